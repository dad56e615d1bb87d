plan dgx-h100:4
