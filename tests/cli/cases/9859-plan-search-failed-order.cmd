plan dgx-h100:2 --model llama3-8b --search --top 2 --batch 64 --order dp-tp-cp-pp
