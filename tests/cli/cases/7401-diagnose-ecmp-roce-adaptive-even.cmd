diagnose --spec scenarios/lab/ring-ecmp-dcqcn.yaml tests/fixtures/ecmp-lab-roce/adaptive-sonic.leaf0.txt
