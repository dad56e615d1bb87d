plan dgx-h100:4 --model llama3-8b --batch 32 --checkpoint 1min --fail-link -1
