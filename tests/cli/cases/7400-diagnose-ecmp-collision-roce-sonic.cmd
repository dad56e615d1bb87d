diagnose --spec scenarios/lab/ring-ecmp-dcqcn.yaml tests/fixtures/ecmp-lab-roce/ecmp-sonic.leaf0.txt
