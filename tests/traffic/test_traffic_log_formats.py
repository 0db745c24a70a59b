"""The query log format registry is the one list of what ``--traffic`` reads (issue #29 §3): every
registered suffix is read by its rows reader, an unregistered one is refused naming them all, and the
help and the README list exactly the registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.traffic.log_formats import LOG_FORMATS, traffic_help, traffic_table
from ragcov_tui.traffic.reader import read_traffic
from tests.support.cli_help import option_help

README = Path(__file__).resolve().parents[2] / "README.md"
ROWS = [("reset my password", 3), ("export a page as pdf", 1)]
SAMPLES = {  # one log per registered suffix: the queries of ROWS, with their counts where the format has them
    ".jsonl": "".join(json.dumps({"query": q, "count": n}) + "\n" for q, n in ROWS),
    ".ndjson": "".join(json.dumps({"question": q, "n": n}) + "\n" for q, n in ROWS),
    ".csv": "query;count\n" + "".join(f"{q};{n}\n" for q, n in ROWS),
    ".tsv": "text\tcount\n" + "".join(f"{q}\t{n}\n" for q, n in ROWS),
    ".txt": "".join(f"{q}\n" * n for q, n in ROWS),
    ".log": "".join(f"{q}\n\n" * n for q, n in ROWS),
}


def test_every_registered_suffix_has_a_sample_here() -> None:
    """A new format must add its sample to SAMPLES (and so to the test below)."""
    assert set(SAMPLES) == set(LOG_FORMATS)


@pytest.mark.parametrize("suffix", list(SAMPLES))
def test_every_registered_suffix_is_read(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"log{suffix.upper()}"  # suffixes: any case
    path.write_text(SAMPLES[suffix], encoding="utf-8")
    log = read_traffic(path)
    assert list(zip(log.texts, log.counts.tolist(), strict=True)) == ROWS
    assert log.rows == (2 if suffix not in (".txt", ".log") else 4)


def test_an_unregistered_suffix_is_refused_naming_every_registered_one(tmp_path: Path) -> None:
    path = tmp_path / "log.xlsx"
    path.write_bytes(b"x")
    with pytest.raises(BadInput, match="unsupported file type '.xlsx'") as caught:
        read_traffic(path)
    assert all(suffix in str(caught.value) for suffix in LOG_FORMATS)


def test_the_traffic_help_lists_the_registry() -> None:
    shown = option_help("analyze", "--traffic")
    assert traffic_help() in shown
    assert all(suffix in shown for suffix in LOG_FORMATS)


def test_the_readme_table_is_the_registry() -> None:
    assert traffic_table() in README.read_text(encoding="utf-8"), (
        "README's query log table differs from the registry; paste traffic_table()'s output:\n" + traffic_table()
    )
