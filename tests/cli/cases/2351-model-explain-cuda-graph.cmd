model dgx-h100 --explain 8 --cuda-graph
