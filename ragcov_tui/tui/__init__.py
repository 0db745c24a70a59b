"""ragcov_tui.tui."""
