parse --json tests/fixtures/ulimit/ulimit-a-memlock-64k-ucx8229.txt
