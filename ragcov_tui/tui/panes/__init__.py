"""The app's panes, one per tab (each a ``Pane``, :mod:`.base`); modal screens live in :mod:`ragcov_tui.tui.modals`."""
