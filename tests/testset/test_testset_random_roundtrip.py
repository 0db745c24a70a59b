"""Randomised round trips: random files in every format and style, random append / drop / undo.

After every write the file reads back as exactly the expected rows and differs from the previous
bytes by one contiguous edit; undoing every write in reverse gives back the original bytes.
"""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import pytest

from ragcov_tui.testset.reader import read_testset
from ragcov_tui.testset.writer import WriteResult, append_question, drop_question, restore_backup

ALPHABET = "abcxyz ÄéßΩ日本🙂,;|\"'\t\\{}[]:"


def random_text(rng: random.Random, newlines: bool = True) -> str:
    pieces = [rng.choice(ALPHABET) for _ in range(rng.randint(3, 24))]
    if newlines and rng.random() < 0.2:
        pieces.insert(rng.randrange(len(pieces)), rng.choice(["\n", "\r\n"]))
    return "Q " + "".join(pieces).strip() + "?"


def random_rows(rng: random.Random, count: int) -> list[dict]:
    id_style = rng.choice(["padded", "int", "none", "words"])
    rows = []
    for n in range(count):
        row: dict = {}
        if id_style == "padded":
            row["qid"] = f"q{n * 3 + 1:03d}"
        elif id_style == "int":
            row["qid"] = n * 2 + 5
        elif id_style == "words":
            row["qid"] = f"case-{rng.choice('abc')}{n}x"
        row["query"] = random_text(rng)
        if rng.random() < 0.5:
            row["notes"] = random_text(rng)
        rows.append(row)
    return rows


def render_json_family(rng: random.Random, rows: list[dict], fmt: str) -> str:
    if fmt == "jsonl":
        ending = rng.choice(["\n", "\r\n"])
        lines = [json.dumps(r, ensure_ascii=rng.random() < 0.5) for r in rows]
        if rng.random() < 0.3:
            lines.insert(rng.randrange(len(lines)), "")
        return ending.join(lines) + (ending if rng.random() < 0.7 else "")
    indent = rng.choice([None, 2, 4, "\t"])
    separators = rng.choice([None, (",", ":")]) if indent is None else None
    document = {"questions": rows} if rng.random() < 0.5 else rows
    text = json.dumps(document, indent=indent, separators=separators, ensure_ascii=rng.random() < 0.5)
    return text.replace("\n", "\r\n") if rng.random() < 0.3 else text


def render_csv(rng: random.Random, rows: list[dict]) -> str:
    """A CSV in a random style; sometimes as pandas writes one (issue #14): an unnamed index
    column first, a trailing empty column, list cells as Python literals."""
    buffer = io.StringIO()
    columns = list(dict.fromkeys(key for row in rows for key in ("qid", "query", "notes") if key in row))
    contexts = rng.random() < 0.5
    index, trailing = rng.choice([None, "", "Unnamed: 0"]), rng.random() < 0.3
    writer = csv.writer(
        buffer,
        delimiter=rng.choice([",", ";"]),
        lineterminator=rng.choice(["\n", "\r\n"]),
        quoting=rng.choice([csv.QUOTE_MINIMAL, csv.QUOTE_ALL]),
    )
    writer.writerow([index] * (index is not None) + columns + ["retrieved_contexts"] * contexts + [""] * trailing)
    for n, row in enumerate(rows):
        cells = [row.get(column, "") for column in columns]
        cells += [str([random_text(rng) for _ in range(rng.randint(0, 3))])] * contexts
        writer.writerow([n] * (index is not None) + cells + [""] * trailing)
    return ("\ufeff" if rng.random() < 0.3 else "") + buffer.getvalue()


def one_contiguous_edit(old: bytes, new: bytes) -> bool:
    """True when ``new`` is ``old`` with one contiguous piece inserted or removed."""
    short, long = sorted((old, new), key=len)
    prefix = next((i for i, (x, y) in enumerate(zip(short, long, strict=False)) if x != y), len(short))
    return long[:prefix] == short[:prefix] and long[prefix + len(long) - len(short) :] == short[prefix:]


@pytest.mark.parametrize("seed", range(36))
def test_random_append_drop_undo_round_trip(tmp_path: Path, seed: int):
    rng = random.Random(seed)
    fmt = ("jsonl", "json", "csv")[seed % 3]
    rows = random_rows(rng, rng.randint(1, 6))
    content = render_csv(rng, rows) if fmt == "csv" else render_json_family(rng, rows, fmt)
    path = tmp_path / f"tests.{fmt}"
    path.write_bytes(content.encode("utf-8"))
    original = path.read_bytes()
    expected = [q.raw for q in read_testset(path).questions]
    history: list[WriteResult] = []
    for _ in range(10):
        before = path.read_bytes()
        testset = read_testset(path)
        action = rng.random()
        if action < 0.5:
            text = random_text(rng, newlines=fmt != "jsonl" or rng.random() < 0.5)
            result = append_question(path, text, expected_sha256=testset.sha256, provenance={"seed": seed})
            added = read_testset(path).questions[-1]
            assert (added.id, added.text) == (result.question_id, text.strip())
            expected.append(added.raw)
        elif action < 0.8 and len(testset.questions) > 1:
            victim = rng.choice(testset.questions)
            result = drop_question(path, victim.id, expected_sha256=testset.sha256)
            expected.remove(victim.raw)
        elif history:
            last = history.pop()
            restore_backup(path, last.backup_path, expected_sha256=testset.sha256)
            assert path.read_bytes() == last.backup_path.read_bytes()
            expected = [q.raw for q in read_testset(path).questions]
            continue
        else:
            continue
        history.append(result)
        assert one_contiguous_edit(before, path.read_bytes())
        assert [q.raw for q in read_testset(path).questions] == expected
    while history:
        last = history.pop()
        restore_backup(path, last.backup_path, expected_sha256=read_testset(path).sha256)
    assert path.read_bytes() == original
