diagnose tests/fixtures/smpquery-pkeys/ibsim-partc-0x0030-full-and-limited-members.txt --json
