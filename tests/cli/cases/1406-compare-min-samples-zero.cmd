archive compare --min-samples 0
