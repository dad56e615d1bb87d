plan dgx-h100:8 --model llama3-70b --search --top 5 --batch 512 --no-sp
