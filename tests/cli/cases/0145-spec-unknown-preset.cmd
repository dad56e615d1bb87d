spec dgx-h300:4
