model dgx-b200 --gpus 4 --op all_gather -b 64K -e 4G -f 16
