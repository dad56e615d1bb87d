probe --help
