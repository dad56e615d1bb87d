plan dgx-h100:2 --model llama3-8b --search --top 3 --batch 64 --json
