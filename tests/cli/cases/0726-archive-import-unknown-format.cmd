archive import tests/fixtures/archive/notes.md
