"""Write a whole file or nothing: a temporary file beside the target, then ``os.replace`` (atomic).

A reader never sees half a file, and a failed write leaves the target as it was (the temporary
file is removed). The test file itself has its own, stricter path (:mod:`ragcov_tui.testset.durable`:
backups, digests, fsync); this is for the files ragcov makes (pages, generated test files).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, text: str, *, mode: int | None = None) -> Path:
    """``text`` (UTF-8) at ``path``, its folder created; ``mode``: the file's permission bits (None: the
    temporary file's, owner only). OSError when it cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
