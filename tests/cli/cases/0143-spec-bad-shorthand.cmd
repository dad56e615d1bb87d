spec dgx-h100:lots
