spec dgx-b200:2
