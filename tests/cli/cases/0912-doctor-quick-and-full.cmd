doctor --quick --full
