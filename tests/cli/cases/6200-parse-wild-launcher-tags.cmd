parse --summary tests/fixtures/wild/nccl-tests/launcher-rank-tag-on-every-write-rows.txt
