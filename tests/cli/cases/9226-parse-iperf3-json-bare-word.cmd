parse tests/fixtures/iperf3-json/handmade-iperf3-nan-throughput.txt
