plan dgx-h100:4 --model mixtral-8x7b --tp 2 --ep 4 --batch 32 --expert-load 3,1,x
