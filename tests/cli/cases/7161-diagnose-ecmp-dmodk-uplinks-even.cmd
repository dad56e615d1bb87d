diagnose --spec scenarios/lab/ring-ecmp-ib.yaml tests/fixtures/ecmp-lab/dmodk-*.txt
