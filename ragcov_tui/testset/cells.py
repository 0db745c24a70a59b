"""CSV cells as the values of their fields: text, or a list / object written as JSON or as a
Python literal.

pandas writes a list cell with ``str(list)``: Ragas ``result.to_pandas().to_csv()`` gives
``['chunk one', 'chunk two']``, Giskard's ``to_pandas().to_csv()`` gives a ``metadata`` cell
``{'question_type': 'simple', …}``. A structured cell (one starting with ``[`` or ``{``) is
therefore read as strict JSON first, then as a Python literal — safely: with
:func:`ast.literal_eval`, which builds literals and runs nothing, and only lists, tuples, dicts,
strings, finite numbers, booleans and None are kept. Anything else (a call, a name, an
operator, a set, bytes) is refused with one line naming ``file:line`` and the field. Nothing is
ever ``eval``-ed.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import InvalidJson, parse_json

# Fields whose non-structured cell is a list of texts split on ``|`` (``;`` occurs in prose; ``|``
# is also DeepEval's delimiter for ``context`` / ``retrieval_context`` in its CSV). Giskard's
# ``reference_context`` is one text and never reaches here (see the reader).
TEXT_LISTS = ("paraphrases", "retrieved_contexts", "reference_contexts")
# Fields whose cell may hold a JSON / Python-literal list or object (``metadata``: Giskard's
# free-form object).
STRUCTURED = ("gold", "vector", *TEXT_LISTS, "expected_keywords", "retrieved_ids", "metadata")
_LITERAL_CONSTANTS = (str, int, float, bool, type(None))


class NotALiteral(ValueError):
    """The text is not a plain Python literal of lists, dicts and constants."""


def python_literal(text: str) -> Any:
    """The value of ``text`` when it is a Python literal of lists, tuples (read as lists), dicts,
    strings, numbers, booleans and None; else :class:`NotALiteral` with the reason.

    :func:`ast.literal_eval` evaluates literals only (a name, call, operator or comprehension is
    refused by it, never run); sets, bytes and complex numbers, which it also builds, are refused
    here, and so is a non-finite float (``1e999``).
    """
    try:
        value = ast.literal_eval(text.strip())
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError) as exc:
        problem = getattr(exc, "msg", None) if isinstance(exc, SyntaxError) else None
        raise NotALiteral(problem or "only lists, dicts, strings, numbers, True, False and None") from None
    return _plain(value)


def _plain(value: Any) -> Any:
    """``value`` with tuples as lists (JSON has none); NotALiteral for any other container or
    constant type."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        if any(isinstance(k, tuple) for k in value):  # a list as a key: JSON keys are constants
            raise NotALiteral("a dict key must be a string or a number, not a tuple or list")
        return {_plain(k): _plain(v) for k, v in value.items()}
    if type(value) not in _LITERAL_CONSTANTS or (isinstance(value, float) and not math.isfinite(value)):
        raise NotALiteral(f"a {type(value).__name__} value is not allowed")
    return value


def structured_cell(where: str, name: str, cell: str) -> Any:
    """A cell starting with ``[`` or ``{``: strict JSON, else a safe Python literal (see the module
    docstring); BadInput naming ``where`` and the field when it is neither."""
    try:
        return parse_json(cell)
    except InvalidJson as exc:
        json_problem = f"{exc.message} at column {exc.column}"
    try:
        return python_literal(cell)
    except NotALiteral as exc:
        raise BadInput(
            f"{where}: field {name!r} is neither valid JSON ({json_problem}) nor a plain Python list literal ({exc})"
        ) from None


def cell_value(where: str, name: str, canonical: str, cell: str) -> Any:
    """A CSV cell as the JSON-like value of its field (None for an empty cell).

    Structured fields (:data:`STRUCTURED`) take a JSON or Python-literal list or object; a plain
    cell of a text list splits on ``|``, of an id list on ``;`` (else ``|``). ``question`` keeps
    its surrounding whitespace.
    """
    cell = cell.strip() if canonical != "question" else cell
    if not cell.strip():
        return None
    if canonical in STRUCTURED and cell[0] in "[{":
        return structured_cell(where, name, cell)
    if canonical in TEXT_LISTS:
        return [part.strip() for part in cell.split("|") if part.strip()]
    if canonical in ("gold", "expected_keywords", "retrieved_ids"):
        separator = ";" if ";" in cell else "|"
        return [part.strip() for part in cell.split(separator) if part.strip()]
    if canonical == "vector":
        raise BadInput(f"{where}: field {name!r} must be a JSON list of numbers")
    return cell
