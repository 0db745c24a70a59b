"""The modules every layer may use (errors, safe text, progress, number formatting, intervals, ...): they import
no other package of ragcov_tui (import contract "shared-imports-nothing-above")."""
