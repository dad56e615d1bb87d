plan examples/dgx-h100-sharp.yaml --model llama3-8b --tp 8 --batch 64 --zero 0
