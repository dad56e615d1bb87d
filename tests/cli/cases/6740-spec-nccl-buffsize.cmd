spec tests/fixtures/spec/p5-buffsize-4m.yaml
