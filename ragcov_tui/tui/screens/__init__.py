"""ragcov_tui.tui.screens."""
