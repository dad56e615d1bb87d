diagnose tests/fixtures/nccl-tests/dell-xe9680-2x8-h100-cx7-ib400-all-reduce-mpi-xpmem-warn.txt --spec tests/fixtures/spec/h100-2node-8x-xdr.yaml
