"""SQLite sessions (sqlite-utils, WAL): every analysis and evaluation run, plus the caches.

Open with :func:`ragcov_tui.store.db.open_db`; it creates or migrates the schema. One connection
per thread: open the database in the thread that uses it.
"""

from ragcov_tui.store.db import default_db_path, open_db

__all__ = ["default_db_path", "open_db"]
