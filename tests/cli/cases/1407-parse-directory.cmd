parse tests/hostile/fixtures
