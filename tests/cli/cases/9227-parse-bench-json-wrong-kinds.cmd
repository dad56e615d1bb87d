parse tests/fixtures/fabtune-bench/handmade-json-wrong-kinds.txt
