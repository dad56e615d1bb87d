plan dgx-h100:2048 --model llama3-405b --tp 8 --pp 16 --vpp 8 --zero 2 --batch 2048 --pp-balance --json
