report tests/fixtures/archive/h100-current.json -o /nonexistent-fabtune-dir/r.html
