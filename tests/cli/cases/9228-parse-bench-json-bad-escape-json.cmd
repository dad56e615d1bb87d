parse --json tests/fixtures/fabtune-bench/handmade-json-bad-escape.txt
