parse -
