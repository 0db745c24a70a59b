"""Walking a corpus folder: every regular file under it, without ever hanging or looping.

Hidden entries (names starting with ``.``) are left out. Symbolic links are followed, to files
and to folders alike, but each folder is walked once: a link back to a folder already walked
(``loop -> ..``, a folder linked into itself, two links to one folder) is skipped with a
warning, so the walk ends on any tree. Entries that are not regular files are skipped with one
warning each naming them, and never opened: named pipes (FIFO, whose read would wait forever),
sockets, devices; so are broken links, link loops (``a -> a``) and folders that cannot be read.
"""

from __future__ import annotations

import os
import stat
from collections import deque
from collections.abc import Callable
from pathlib import Path

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_files import kind_problem, os_error_problem


def walk_files(root: Path, display: str, warn: Callable[[str], None]) -> list[Path]:
    """The regular files under the folder ``root``, sorted by relative posix path.

    ``display`` names ``root`` in messages (entries are ``display/relative``). BadInput when
    ``root`` itself cannot be listed.
    """
    prefix = display.rstrip("/") or display
    try:
        walked = {_folder_key(os.stat(root))}
    except OSError as exc:
        raise BadInput(f"corpus directory {display}: {os_error_problem(exc, root)}") from None
    found: list[Path] = []
    queue = deque([root])
    while queue:
        folder = queue.popleft()
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            if folder == root:
                raise BadInput(f"corpus directory {display}: {os_error_problem(exc, folder)}") from None
            reason = exc.strerror or type(exc).__name__
            warn(f"{prefix}/{folder.relative_to(root).as_posix()}: cannot list this folder ({reason}); skipped")
            continue
        for name in names:
            if name.startswith("."):
                continue
            path = folder / name
            shown = f"{prefix}/{path.relative_to(root).as_posix()}"
            try:
                info = os.stat(path)
            except (OSError, ValueError) as exc:
                problem = os_error_problem(exc, path) if isinstance(exc, OSError) else "is not a valid file name"
                warn(f"{shown}: {problem}; skipped")
                continue
            if stat.S_ISDIR(info.st_mode):
                if _folder_key(info) in walked:
                    warn(f"{shown}: links to a folder already walked (a link cycle, or a second link to it); skipped")
                else:
                    walked.add(_folder_key(info))
                    queue.append(path)
            elif stat.S_ISREG(info.st_mode):
                found.append(path)
            else:
                warn(f"{shown}: {kind_problem(info.st_mode)}; skipped")
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def _folder_key(info: os.stat_result) -> tuple[int, int]:
    return info.st_dev, info.st_ino
