"""ragcov_tui.tui.widgets: literal text, paged tables and plotext charts."""
