plan dgx-h100:4 --model llama3-8b --batch 32 --fail-nic -0.5
