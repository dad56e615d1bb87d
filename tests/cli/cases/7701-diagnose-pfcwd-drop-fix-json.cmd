diagnose tests/fixtures/sonic/fabtune-sim-pfcwd-drop-sw1.1.txt tests/fixtures/sonic/fabtune-sim-pfcwd-drop-sw0.0.txt --json
