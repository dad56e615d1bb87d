diagnose --format ibstat tests/fixtures/wild/perfquery/basic-counters-no-header-ibsim-zsh-prompt.txt
