advise --spec scenarios/lab/ring-ecmp-ib.yaml tests/fixtures/ecmp-lab/ecmp-*.txt
