"""ragcov_tui.coverage."""
