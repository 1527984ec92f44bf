"""Lambda entry points, one folder per function. Each is a few lines: build once, then delegate."""
