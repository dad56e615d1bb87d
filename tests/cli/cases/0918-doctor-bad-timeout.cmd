doctor --timeout 0
