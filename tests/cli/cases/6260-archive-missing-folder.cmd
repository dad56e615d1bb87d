archive list --archive tests/cli/cases/no-such-folder/a.db
