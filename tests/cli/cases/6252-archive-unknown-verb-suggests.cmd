archive lsit
