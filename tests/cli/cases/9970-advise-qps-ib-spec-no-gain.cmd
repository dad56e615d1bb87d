advise --spec scenarios/lab/ring-ecmp-ib.yaml tests/fixtures/ecmp-lab-roce/ecmp-sonic.leaf0.txt tests/fixtures/ecmp-lab-roce/ecmp-ethtool-S.n0.nic0.txt
