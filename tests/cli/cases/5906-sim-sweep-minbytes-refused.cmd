sim --sweep scenarios/sweep-example.yaml -b 1M
