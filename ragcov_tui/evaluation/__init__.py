"""ragcov_tui.evaluation."""
