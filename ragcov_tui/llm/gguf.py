"""Reading the metadata of a GGUF model file (llama.cpp's format) without loading the model.

Layout (little-endian): ``b"GGUF"``, ``uint32`` version (2 or 3), ``uint64`` tensor count,
``uint64`` key/value count, then the key/value pairs: a key (``uint64`` length + UTF-8 bytes), a
``uint32`` value type and the value (scalars, a length-prefixed string, or an array: ``uint32``
item type, ``uint64`` count, the items). :func:`read_gguf_metadata` returns the scalar and string
values (arrays are skipped: the vocabulary alone holds tens of thousands of strings) and raises
:class:`~ragcov_tui.shared.errors.BadInput` naming the file for anything that is not a readable GGUF file.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any, BinaryIO

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_files import os_error_problem, require_regular_file
from ragcov_tui.shared.safe_text import visible

MAGIC = b"GGUF"
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
STRING, ARRAY = 8, 9
MAX_KEYS = 100_000  # far above any real file; a corrupt count fails here, not after reading gigabytes
MAX_STRING = 1 << 24
MAX_NESTING = 8  # arrays of arrays; real files have none


class _Corrupt(Exception):
    pass


def _read(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise _Corrupt("the file ends inside its header")
    return data


def _unpack(f: BinaryIO, fmt: str) -> Any:
    return struct.unpack(fmt, _read(f, struct.calcsize(fmt)))[0]


def _string(f: BinaryIO) -> str:
    n = _unpack(f, "<Q")
    if n > MAX_STRING:
        raise _Corrupt(f"a string of {n} bytes")
    return _read(f, n).decode("utf-8", "replace")


def _smallest(kind: int) -> int:
    """The fewest bytes one value of type ``kind`` takes (a string: its length; an array: its
    item type and count), so a count the rest of the file cannot hold is refused before reading."""
    return struct.calcsize(_SCALARS[kind]) if kind in _SCALARS else 8 if kind == STRING else 12


def _value(f: BinaryIO, kind: int, size: int) -> Any:
    """One value of type ``kind``; arrays are skipped (None). ``size`` is the file's length.

    An array of arrays is walked with an explicit stack, not by recursion, and may be nested
    :data:`MAX_NESTING` deep (real files nest none); every count is checked against the bytes left.
    """
    if kind in _SCALARS:
        return _unpack(f, _SCALARS[kind])
    if kind == STRING:
        return _string(f)
    if kind != ARRAY:
        raise _Corrupt(f"unknown value type {kind}")
    pending = [(_unpack(f, "<I"), _unpack(f, "<Q"))]  # (item type, items left) per open array
    while pending:
        item, count = pending.pop()
        if item not in _SCALARS and item not in (STRING, ARRAY):
            raise _Corrupt(f"unknown value type {item}")
        if count > (size - f.tell()) // _smallest(item):
            raise _Corrupt(f"an array of {count} items runs past the end of the file")
        if item in _SCALARS:
            f.seek(count * struct.calcsize(_SCALARS[item]), 1)
        elif item == STRING:
            for _ in range(count):
                _string(f)
        elif count:
            if len(pending) >= MAX_NESTING:
                raise _Corrupt(f"arrays nested deeper than {MAX_NESTING} levels")
            pending += [(item, count - 1), (_unpack(f, "<I"), _unpack(f, "<Q"))]
    return None


def read_gguf_metadata(path: str | Path) -> dict[str, Any]:
    """The scalar and string metadata of the GGUF file at ``path`` (``general.architecture``,
    ``{arch}.context_length``, ``general.name``…); BadInput naming the path when it is missing,
    not a regular file (a FIFO is refused before it is opened: opening one blocks), unreadable or
    not GGUF."""
    shown = visible(str(path))
    if not os.path.lexists(path):
        raise BadInput(f"{shown}: no such GGUF model file")
    require_regular_file(Path(path), shown)
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if f.read(4) != MAGIC:
                raise BadInput(f"{shown}: not a GGUF model file (it does not start with 'GGUF')")
            version = _unpack(f, "<I")
            if version not in (2, 3):
                raise BadInput(f"{shown}: GGUF version {version} is not supported (2 or 3 expected)")
            _unpack(f, "<Q")  # tensor count
            n_keys = _unpack(f, "<Q")
            if n_keys > MAX_KEYS:
                raise _Corrupt(f"{n_keys} metadata keys")
            meta: dict[str, Any] = {}
            for _ in range(n_keys):
                key = _string(f)
                value = _value(f, _unpack(f, "<I"), size)
                if value is not None:
                    meta[key] = value
            return meta
    except OSError as exc:
        raise BadInput(f"{shown}: cannot read the GGUF model file ({os_error_problem(exc, Path(path))})") from None
    except (_Corrupt, struct.error) as exc:
        raise BadInput(f"{shown}: damaged GGUF model file ({exc})") from None


def context_length(meta: dict[str, Any]) -> int | None:
    """The context the model was trained with (``{arch}.context_length``, llama.cpp's ``n_ctx_train``)."""
    value = meta.get(f"{meta.get('general.architecture', '')}.context_length")
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
