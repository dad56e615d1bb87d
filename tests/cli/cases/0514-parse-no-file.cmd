parse
