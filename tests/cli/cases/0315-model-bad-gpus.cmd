model dgx-h100 --op allreduce --gpus 9
