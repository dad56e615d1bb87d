spec hgx-h200:512
