bench --help
