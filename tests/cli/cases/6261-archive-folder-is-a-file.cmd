archive list --json --archive tests/cli/cases/6260-archive-missing-folder.cmd/a.db
