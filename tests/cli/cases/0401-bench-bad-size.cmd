bench -b 1X
