modle dgx-h100:2
