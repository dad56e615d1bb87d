spec dgx-a100
