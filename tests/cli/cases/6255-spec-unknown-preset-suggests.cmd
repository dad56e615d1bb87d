spec dgx-h10:4
