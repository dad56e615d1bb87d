archive import README.md
