plan dgx-h100:1 --model gpt3-175b --tp 8 --batch 8
