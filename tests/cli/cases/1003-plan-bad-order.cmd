plan dgx-h100:4 --model llama3-8b --order tp-dp --batch 32
