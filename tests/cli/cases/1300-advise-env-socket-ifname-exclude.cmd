advise --format env tests/fixtures/nccl-log/v100-no-ib-device-socket-on-loopback-nccl2.4.8-excerpt.txt
