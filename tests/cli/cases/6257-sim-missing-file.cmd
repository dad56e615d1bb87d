sim tests/cli/cases/no-such-scenario
