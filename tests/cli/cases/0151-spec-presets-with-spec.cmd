spec --presets dgx-h100
