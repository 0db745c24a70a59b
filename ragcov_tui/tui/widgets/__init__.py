"""ragcov_tui.tui.widgets."""
