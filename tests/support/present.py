"""``present(x)``: a value the test expects to be there (the code under test returns ``T | None``)."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def present(value: T | None) -> T:
    """``value``, failing the test when it is None."""
    assert value is not None
    return value
