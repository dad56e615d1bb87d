plan gb200-nvl72:2 --model llama3-8b --tp 4 --pp 2 --batch 8
