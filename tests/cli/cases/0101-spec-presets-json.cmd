spec --presets --json
