parse tests/hostile/fixtures/ibstat-latin1-escapes.txt
