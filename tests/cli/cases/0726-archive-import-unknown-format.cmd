archive import tests/fixtures/archive/notes.txt
