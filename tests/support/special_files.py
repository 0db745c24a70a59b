"""Making the special files a reader must refuse without blocking: a socket (a FIFO is ``os.mkfifo``)."""

from __future__ import annotations

import os
import socket
from pathlib import Path


def make_socket(path: Path) -> None:
    """A Unix socket at ``path``, bound by its short relative name (AF_UNIX paths are ~100 bytes at most)."""
    here = Path.cwd()
    os.chdir(path.parent)
    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(path.name)
        sock.close()
    finally:
        os.chdir(here)
