plan tests/fixtures/spec/gpu-compute.yaml --model llama3-8b --tp 4 --batch 16 --precision fp8
