archive compare tests/fixtures/archive/veth-800mbit.json --vs tests/fixtures/archive/veth-800mbit-stall.json --floor 2%
