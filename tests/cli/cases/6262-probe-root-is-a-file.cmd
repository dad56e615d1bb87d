probe --root README.md
