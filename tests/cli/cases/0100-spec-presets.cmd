spec --presets
