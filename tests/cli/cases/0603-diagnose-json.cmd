diagnose --json tests/fixtures/ibqueryerrors/ibqueryerrors-linkdowned-rcverrors-xmitdiscards-line.txt
