diagnose tests/fixtures/smpquery/ibsim-partc-0x0030-full-and-limited-members.txt --json
