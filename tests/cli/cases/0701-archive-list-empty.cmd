archive list
