plan dgx-a100:2 --model llama3-8b --search --top 2 --batch 64 --precision fp8 --json
