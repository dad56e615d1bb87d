parse tests/fixtures/bundle/handmade-support-bundle-ibstat-perfquery-ethtool.txt tests/fixtures/nccl-log/handmade-ib-completion-error-12-env-gdr.txt
