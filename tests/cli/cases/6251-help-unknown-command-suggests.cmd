help modle
