plan dgx-h100:4 --model mixtral-8x7b --tp 2 --ep 4 --batch 32 --zipf 1 --place-by-heat --checkpoint 30s --json
