"""Bad settings, output paths, databases and URLs (issue #17 groups 9 and 10): every one is exit 2
with ONE line on stderr naming the flag, variable, ``ragcov.toml`` key or file at fault — never
``internal error``, never a traceback — and nothing ran: no database file, or no session in it.

In-process through ``ragcov_tui.cli.main``; the cases that must fail before any work are cheap,
so the batteries are wide (every flag × bad values, every key × wrong types, every variable).
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ragcov_tui.services.settings import SPECS
from ragcov_tui.store.db import open_db
from tests.cli.conftest import CORPUS, QUESTIONS, run_cli

CORPUS_FILE = next(p for p in sorted(CORPUS.iterdir()) if p.is_file())
BAD_ANY = ["-1", "1e20", "nan", "NaN", "inf", "-inf", "words", "", " ", "1,5", "0x10", "9" * 26, "½"]
ANALYZE_FLAGS = {
    "--seed": [],
    "--chunk-size": ["0", "1.5"],
    "--chunk-overlap": ["1.5", "500"],
    "--top-n": ["0", "2.0"],
    "--lof-neighbors": ["0"],
    "--concurrency": ["0", "4.5"],
    "--clusters": ["0", "auto5"],
    "--threshold": ["0", "2.5"],
    "--gap-threshold": ["1.01"],
    "--contamination": ["0", "0.5", "autox"],
}
EVAL_FLAGS = {
    "--k": ["0", "2.5"],
    "--paraphrases": ["101"],
    "--repeats": ["0"],
    "--concurrency": ["0", "1025"],
    "--chunk-size": ["0"],
    "--chunk-overlap": ["600"],
    "--max-drop": ["1.5"],
}
RAGCOV_VARS = {
    "RAGCOV_CONCURRENCY": ["0", "4.5"],
    "RAGCOV_RETRY_ATTEMPTS": [],
    "RAGCOV_RETRY_BASE_DELAY": [],
    "RAGCOV_HTTP_TIMEOUT": [],
    "RAGCOV_HTTP_IDLE_TIMEOUT": [],
    "RAGCOV_DB_TIMEOUT": ["3601"],
}


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No settings from the machine running the tests: no RAGCOV_* variable, no ./ragcov.toml."""
    for name in list(os.environ):
        if name.startswith(("RAGCOV_", "OPENAI_", "VOYAGE_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def analyze(db: Path, *extra: str) -> list[str]:
    return ["analyze", "--db", str(db), "--corpus", str(CORPUS), "--questions", str(QUESTIONS), *extra]


def evaluate(db: Path, *extra: str) -> list[str]:
    return [
        "eval",
        "--db",
        str(db),
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        "builtin:bm25",
        *extra,
    ]


def one_line_error(capsys: pytest.CaptureFixture, code: int, *needles: str) -> str:
    """Exit 2, one stderr line containing every needle, no internal error or traceback."""
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1, err
    assert err.startswith("error: ") and "internal error" not in err and "Traceback" not in err, err
    assert "Errno" not in err, err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


def sessions_in(db: Path) -> int:
    if not db.is_file():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
        except sqlite3.DatabaseError:
            return 0


# ---------------------------------------------------------------- flags


@pytest.mark.parametrize("flag, value", [(f, v) for f, extra in ANALYZE_FLAGS.items() for v in BAD_ANY + extra])
def test_bad_analyze_flag_values(flag: str, value: str, tmp_path: Path, capsys) -> None:
    db = tmp_path / "r.db"
    one_line_error(capsys, run_cli(*analyze(db, f"{flag}={value}")), flag)
    assert not db.exists()


@pytest.mark.parametrize("flag, value", [(f, v) for f, extra in EVAL_FLAGS.items() for v in BAD_ANY + extra])
def test_bad_eval_flag_values(flag: str, value: str, tmp_path: Path, capsys) -> None:
    db = tmp_path / "r.db"
    one_line_error(capsys, run_cli(*evaluate(db, f"{flag}={value}")), flag)
    assert not db.exists()


def test_seed_range_is_0_to_2_pow_32_minus_1(tmp_path: Path, capsys) -> None:
    one_line_error(capsys, run_cli(*analyze(tmp_path / "r.db", f"--seed={2**32}")), "--seed", "4294967295")


def test_overlap_not_below_the_chunk_size_names_both(tmp_path: Path, capsys) -> None:
    err = one_line_error(capsys, run_cli(*analyze(tmp_path / "r.db", "--chunk-size=100", "--chunk-overlap=100")))
    assert "--chunk-overlap" in err and "--chunk-size" in err


# ---------------------------------------------------------------- ragcov.toml

WRONG = {
    "int": ['"x"', "1.5", "true", "[3]", "-1", "1e20", "nan", "inf", '""', '"5"'],
    "float": ['"a"', "true", "[1]", "nan", "inf", "-inf", "-1", "1e20", '""', '"0.5"'],
    "text": ["5", "true", "[1]", "1.5", '""', '"  "', "{ a = 1 }"],
}
KIND = {
    "clusters": "int",
    "threshold": "float",
    "gap_threshold": "float",
    "contamination": "float",
    "max_drop": "float",
    "db": "text",
    "embedder": "text",
    "llm": "text",
    "judge_llm": "text",
    "paraphrase_llm": "text",
    "metrics": "text",
    "traffic": "text",
    "eval_session": "text",
    "window": "text",
    "since": "text",
    "until": "text",
    "id_field": "text",
    "text_field": "text",
    "vector_field": "text",
    "doc_field": "text",
}
TOML_CASES = [
    (command, key, value)
    for key, spec in SPECS.items()
    for command in ("analyze", "eval")
    if command in spec.commands
    for value in WRONG[KIND.get(key, "int")]
    if not (key == "metrics" and value == "[1]")
] + [("eval", "metrics", "[1]"), ("eval", "metrics", "[]")]


def run_with_toml(tmp_path: Path, command: str, text: str) -> int:
    config = tmp_path / "ragcov.toml"
    config.write_text(text)
    argv = analyze(tmp_path / "r.db") if command == "analyze" else evaluate(tmp_path / "r.db")
    return run_cli(*argv, "--config", str(config))


@pytest.mark.parametrize("command, key, value", TOML_CASES)
def test_wrong_types_in_a_command_table_name_the_file_table_and_key(
    command: str, key: str, value: str, tmp_path: Path, capsys
) -> None:
    code = run_with_toml(tmp_path, command, f"[{command}]\n{key} = {value}\n")
    err = one_line_error(capsys, code, f"ragcov.toml [{command}] {key}:")
    assert "--" not in err.split(":")[0]  # no flag the user never typed
    assert sessions_in(tmp_path / "r.db") == 0


@pytest.mark.parametrize("command, key, value", [c for c in TOML_CASES if "{" not in c[2]])
def test_wrong_types_at_the_top_level_name_the_file_and_key(
    command: str, key: str, value: str, tmp_path: Path, capsys
) -> None:
    one_line_error(capsys, run_with_toml(tmp_path, command, f"{key} = {value}\n"), f"ragcov.toml {key}:")


def test_db_5_in_the_toml_is_an_error_not_a_database_named_5(tmp_path: Path, capsys) -> None:
    (tmp_path / "ragcov.toml").write_text("db = 5\n")
    one_line_error(capsys, run_cli("sessions"), "ragcov.toml db: expected text, got 5")
    assert not (tmp_path / "5").exists()


def test_unknown_keys_warn_once_and_the_run_goes_on(tmp_path: Path, capsys) -> None:
    (tmp_path / "ragcov.toml").write_text("sed = 1\n[analyze]\nclustres = 3\n[sessions]\n")
    assert run_cli("sessions", "--db", str(tmp_path / "r.db")) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("warning: ragcov.toml") for line in err)
    assert "'sed'" in err[0] and "[analyze]: unknown key 'clustres'" in err[1]


def test_a_good_toml_is_used_flags_win(tmp_path: Path, capsys) -> None:
    (tmp_path / "ragcov.toml").write_text("[eval]\nk = 0\n")
    one_line_error(capsys, run_cli(*evaluate(tmp_path / "r.db")), "ragcov.toml [eval] k")
    (tmp_path / "ragcov.toml").write_text("[eval]\nk = 3\nmax_drop = 0.2\n")
    one_line_error(capsys, run_cli(*evaluate(tmp_path / "r.db", "--max-drop=0.1", "--k=0")), "--k")


@pytest.mark.parametrize("make", ["missing", "folder", "bad toml"])
def test_a_bad_config_file_is_named(make: str, tmp_path: Path, capsys, monkeypatch) -> None:
    path = tmp_path / "cfg.toml"
    if make == "folder":
        path.mkdir()
    elif make == "bad toml":
        path.write_text("k = \n")
    monkeypatch.setenv("RAGCOV_CONFIG", str(path))
    one_line_error(capsys, run_cli("sessions", "--db", str(tmp_path / "r.db")), str(path))


# ---------------------------------------------------------------- environment


@pytest.mark.parametrize(
    "var, value",
    [
        (v, x)
        for v, extra in RAGCOV_VARS.items()
        for x in [b for b in BAD_ANY if b.strip() and b != "0x10"] + extra
        if not (v != "RAGCOV_CONCURRENCY" and x == "1,5")
    ],
)
def test_bad_environment_values_name_the_variable(var: str, value: str, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv(var, value)
    db = tmp_path / "r.db"
    one_line_error(capsys, run_cli(*analyze(db)), f"${var}")
    assert not db.exists()


@pytest.mark.parametrize("var", ["RAGCOV_EMBEDDER", "RAGCOV_LLM"])
def test_an_empty_variable_is_unset(var: str, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(var, "   ")
    monkeypatch.setenv("RAGCOV_CONCURRENCY", "0")  # stop before any work: the error proves the rest parsed
    assert run_cli(*analyze(tmp_path / "r.db")) == 2


# ---------------------------------------------------------------- output paths


def output_cases(tmp_path: Path) -> dict[str, tuple[list[str], str]]:
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "folder").mkdir()
    db = str(tmp_path / "r.db")
    return {
        "folder": (["--json", str(tmp_path / "folder")], "is a folder"),
        "test file": (["--markdown", str(QUESTIONS)], "the test file"),
        "corpus file": (["--json", str(CORPUS_FILE)], "corpus"),
        "database": (["--json", db], "session database"),
        "under a file": (["--markdown", str(tmp_path / "a-file" / "r.md")], "is a file, not a folder"),
        "same twice": (["--json", str(tmp_path / "r.out"), "--markdown", str(tmp_path / "r.out")], "same file"),
        "empty": (["--json", ""], "empty path"),
    }


OUTPUT_CASES = ["folder", "test file", "corpus file", "database", "under a file", "same twice", "empty"]


@pytest.mark.parametrize("case", OUTPUT_CASES)
@pytest.mark.parametrize("command", ["analyze", "eval", "report"])
def test_output_paths_are_checked_before_the_run(command: str, case: str, tmp_path: Path, capsys) -> None:
    extra, needle = output_cases(tmp_path)[case]
    db = tmp_path / "r.db"
    if command == "report" and case in ("test file", "corpus file"):
        pytest.skip("report reads no test file or corpus")
    argv = {
        "analyze": analyze(db, *extra),
        "eval": evaluate(db, *extra),
        "report": ["report", "latest", "--db", str(db), *extra],
    }[command]
    flag = extra[-2] if case == "same twice" else extra[0]
    one_line_error(capsys, run_cli(*argv), flag, needle)
    assert not db.exists()
    assert QUESTIONS.read_text().startswith("{") and CORPUS_FILE.stat().st_size > 0


def read_only(path: Path) -> bool:
    """Make ``path`` unwritable even for root (immutable flag) — False when the filesystem can't."""
    if os.geteuid() != 0:
        path.chmod(0o555 if path.is_dir() else 0o444)
        return True
    return subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0


def writable_again(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True)
    path.chmod(0o755 if path.is_dir() else 0o644)


def test_output_in_a_read_only_folder(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    if not read_only(folder):
        pytest.skip("cannot make a folder read-only here")
    try:
        one_line_error(
            capsys, run_cli(*analyze(tmp_path / "r.db", "--json", str(folder / "r.json"))), "--json", "cannot write in"
        )
    finally:
        writable_again(folder)
    assert not (tmp_path / "r.db").exists()


# ---------------------------------------------------------------- the session database


def corrupt(db: Path) -> None:
    db.write_bytes(os.urandom(8192))


def newer(db: Path) -> None:
    open_db(db).execute("PRAGMA user_version = 99")


DB_CASES: dict[str, tuple[Callable[[Path], object], str]] = {
    "folder": (Path.mkdir, "is a directory"),
    "corrupt": (corrupt, "not a ragcov database"),
    "newer": (newer, "newer than this ragcov"),
}
COMMANDS = {
    "analyze": lambda db: analyze(db),
    "eval": lambda db: evaluate(db),
    "sessions": lambda db: ["sessions", "--db", str(db)],
    "report": lambda db: ["report", "latest", "--db", str(db)],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", DB_CASES)
def test_unusable_databases(case: str, command: str, tmp_path: Path, capsys) -> None:
    db = tmp_path / "r.db"
    make, needle = DB_CASES[case]
    make(db)
    one_line_error(capsys, run_cli(*COMMANDS[command](db)), f"--db {db}", needle)


@pytest.mark.parametrize("command", COMMANDS)
def test_db_under_a_file(command: str, tmp_path: Path, capsys) -> None:
    (tmp_path / "f").write_text("x")
    one_line_error(capsys, run_cli(*COMMANDS[command](tmp_path / "f" / "r.db")), "f is a file, not a folder")


@pytest.mark.parametrize("source", ["env", "toml"])
def test_a_bad_db_names_where_the_path_came_from(source: str, tmp_path: Path, capsys, monkeypatch) -> None:
    (tmp_path / "dir.db").mkdir()
    if source == "env":
        monkeypatch.setenv("RAGCOV_DB", str(tmp_path / "dir.db"))
        needle = "$RAGCOV_DB"
    else:
        (tmp_path / "ragcov.toml").write_text(f'db = "{tmp_path / "dir.db"}"\n')
        needle = "ragcov.toml db"
    one_line_error(capsys, run_cli("sessions"), needle, "is a directory")


@pytest.mark.parametrize("command", ["analyze", "eval"])
def test_a_locked_database_is_named_and_nothing_runs(command: str, tmp_path: Path, capsys, monkeypatch) -> None:
    db = tmp_path / "r.db"
    open_db(db).conn.close()
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    monkeypatch.setenv("RAGCOV_DB_TIMEOUT", "0.05")
    try:
        one_line_error(
            capsys, run_cli(*COMMANDS[command](db)), f"--db {db}", "locked by another process", "waited 0.05 s"
        )
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert sessions_in(db) == 0


def test_a_reader_waits_for_a_writer_instead_of_failing(tmp_path: Path, capsys, monkeypatch) -> None:
    db = tmp_path / "r.db"
    open_db(db).conn.close()
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # WAL: readers go on while a writer holds the lock
    try:
        assert run_cli("sessions", "--db", str(db)) == 0
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_a_database_locked_in_rollback_mode_stops_even_a_reader(tmp_path: Path, capsys, monkeypatch) -> None:
    db = tmp_path / "r.db"
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("CREATE TABLE t (x)")
    other.execute("BEGIN EXCLUSIVE")
    monkeypatch.setenv("RAGCOV_DB_TIMEOUT", "0")
    try:
        one_line_error(capsys, run_cli("sessions", "--db", str(db)), "locked")
    finally:
        other.execute("ROLLBACK")
        other.close()


@pytest.mark.parametrize("command", ["analyze", "eval"])
def test_a_read_only_database_is_named_before_any_work(command: str, tmp_path: Path, capsys) -> None:
    db = tmp_path / "r.db"
    open_db(db).conn.close()
    if not read_only(db):
        pytest.skip("cannot make a file read-only here")
    try:
        one_line_error(capsys, run_cli(*COMMANDS[command](db)), f"--db {db}", "read-only")
        assert run_cli("sessions", "--db", str(db)) == 0  # reading a read-only database is fine
    finally:
        writable_again(db)
    assert sessions_in(db) == 0


# ---------------------------------------------------------------- URLs


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(
    "url, needle",
    [
        ("http://", "no host"),
        ("http:http://", "no host"),
        ("http://exa mple.com/x", "spaces"),
        ("http://127.0.0.1:99999/x", "port"),
        ("http://127.0.0.1:abc/x", "port"),
        ("http://127.0.0.1:0/x", "port must be"),
        ("http://[::1/x", "IPv6"),
        ("http://a..b/x", "not a valid host name"),
        ("http:ftp://host/x", "http:// or https://"),
        ("http://host\x1b[2J/x", "control"),
    ],
)
def test_malformed_system_urls(url: str, needle: str, tmp_path: Path, capsys) -> None:
    db = tmp_path / "r.db"
    argv = [a if a != "builtin:bm25" else url for a in evaluate(db)]
    one_line_error(capsys, run_cli(*argv), "--system", needle)
    assert sessions_in(db) == 0


def test_a_closed_port_is_bad_input_naming_the_system_flag(tmp_path: Path, capsys) -> None:
    db = tmp_path / "r.db"
    port = closed_port()
    argv = [a if a != "builtin:bm25" else f"http://127.0.0.1:{port}/rag" for a in evaluate(db)]
    one_line_error(capsys, run_cli(*argv), "--system", f"127.0.0.1:{port}", "Connection refused")
    assert sessions_in(db) == 0


@pytest.mark.parametrize("url", ["http://", "ftp://x/v1", "http://a b/v1", "http://127.0.0.1:70000/v1"])
def test_a_malformed_openai_base_url_names_the_variable(url: str, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    db = tmp_path / "r.db"
    one_line_error(capsys, run_cli(*analyze(db, "--embedder", "openai:m")), "$OPENAI_BASE_URL")
    assert sessions_in(db) == 0


# ---------------------------------------------------------------- messages


def test_an_interrupt_says_interrupted_and_exits_130(tmp_path: Path, capsys, monkeypatch) -> None:
    from ragcov_tui.cli import commands as cli_commands

    def stop(args, out):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_commands, "cmd_sessions", stop)
    assert run_cli("sessions", "--db", str(tmp_path / "r.db")) == 130
    assert capsys.readouterr().err.strip() == "interrupted"


def test_invalid_json_reply_reason_is_not_a_bare_zero() -> None:
    import json

    from ragcov_tui.shared.http_retry import root_cause_message

    try:
        json.loads("")
    except json.JSONDecodeError as exc:
        assert root_cause_message(exc).startswith("Expecting value")


def test_os_errors_read_without_errno() -> None:
    from ragcov_tui.shared.error_text import os_reason

    try:
        os.mkdir("/")
    except OSError as exc:
        assert os_reason(exc) == "File exists: /"


# ---------------------------------------------------------------- values the data cannot honour


def test_clamped_options_warn_once_each_and_the_report_and_session_say_the_value_used(tmp_path: Path, capsys) -> None:
    import json

    from ragcov_tui.store.sessions import list_sessions

    db, out, md = tmp_path / "r.db", tmp_path / "r.json", tmp_path / "r.md"
    assert (
        run_cli(
            *analyze(
                db,
                "--embedder",
                "hash",
                "--clusters",
                "100000",
                "--top-n",
                "1000",
                "--lof-neighbors",
                "100000",
                "--json",
                str(out),
                "--markdown",
                str(md),
            )
        )
        == 0
    )
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    report = json.loads(out.read_text())
    k = report["clustering"]["k"]
    assert k < 100 and report["clustering"]["k_requested"] == 100000
    assert warnings == [f"warning: {line}" for line in report["adjustments"]] and len(warnings) == 3
    assert warnings[0] == f"warning: clusters 100000: this corpus allows at most {k} clusters; used {k}"
    assert "top_n 1000" in warnings[1] and "lof_neighbors 100000" in warnings[2]
    used = {key: report["params"][key] for key in ("clusters", "top_n", "lof_neighbors")}
    assert used == {"clusters": k, "top_n": k, "lof_neighbors": report["outlier_detection"]["neighbors"]}
    assert report["coverage"]["top_n"] == k
    stored = list_sessions(open_db(db))[0]["params"] or {}
    assert {key: stored[key] for key in used} == used
    assert f"> **Adjusted:** clusters 100000: this corpus allows at most {k} clusters; used {k}" in md.read_text()


# ---------------------------------------------------------------- argparse and mid-run failures


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["analyze", "--seed"], "--seed: expected one argument"),
        (["bogus"], "invalid choice: 'bogus'"),
        (["analyze", "--corpus", "x"], "required: --questions"),
        (["sessions", "--nope"], "unrecognized arguments: --nope"),
        (["sessions", "--kind", "x\x1b[2J"], "invalid choice"),
        (["eval", "--questions", "q"], "--system"),
    ],
)
def test_argument_errors_are_one_line_exit_2(argv: list[str], needle: str, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        run_cli(*argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: ragcov") and needle in err and "\x1b" not in err
    assert err.endswith("--help)")


def test_a_database_failing_mid_run_is_one_line_naming_it(tmp_path: Path, capsys, monkeypatch) -> None:
    import ragcov_tui.store.sessions as sessions

    def locked(*args, **kwargs):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(sessions, "list_sessions", locked)
    db = tmp_path / "r.db"
    one_line_error(capsys, run_cli("sessions", "--db", str(db)), f"--db {db}", "locked by another process")


def test_an_interrupt_while_starting_is_one_line(tmp_path: Path, capsys, monkeypatch) -> None:
    import ragcov_tui.cli.main as cli

    def stop():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_parser", stop)
    assert run_cli("sessions") == 130 and capsys.readouterr().err.strip() == "interrupted"


LONG = "a" * 300  # longer than a file name may be: probing it raises ENAMETOOLONG


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["sessions", "--db", LONG], "--db"),
        (["sessions", "--config", LONG], "--config"),
        (["report", "latest", "--json", LONG], "--json"),
        (["report", "latest", "--markdown", f"{LONG}/r.md"], "--markdown"),
        (["compare", f"{LONG}.json", "b"], LONG[:20]),
        (["sessions", "--config", "/dev/null/x"], "--config"),
    ],
)
def test_impossible_paths_are_one_line(argv: list[str], needle: str, tmp_path: Path, capsys) -> None:
    if "--db" not in argv:
        argv = [*argv, "--db", str(tmp_path / "r.db")]
    one_line_error(capsys, run_cli(*argv), needle)


def test_a_fifo_named_as_baseline_or_config_is_refused_not_read(tmp_path: Path, capsys) -> None:
    os.mkfifo(tmp_path / "base.json")
    db = tmp_path / "r.db"
    one_line_error(capsys, run_cli(*evaluate(db, "--baseline", str(tmp_path / "base.json"))), "named pipe")
    one_line_error(capsys, run_cli("sessions", "--db", str(db), "--config", str(tmp_path / "base.json")), "named pipe")
    assert sessions_in(db) == 0


@pytest.mark.parametrize(
    "line", ['{"question": "a\nb"}', '{"question": "a\tb"}', '{"question": "ok"', '{"question": "\\ud800"}']
)
def test_json_errors_say_at_column_once(line: str, tmp_path: Path, capsys) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text(line + "\n")
    err = one_line_error(
        capsys,
        run_cli("analyze", "--db", str(tmp_path / "r.db"), "--corpus", str(CORPUS), "--questions", str(questions)),
        "q.jsonl:1",
    )
    assert "at at" not in err


@pytest.mark.parametrize("which", ["questions", "corpus file"])
@pytest.mark.parametrize("flag", ["--json", "--markdown"])
def test_report_never_writes_over_the_sessions_inputs(which: str, flag: str, tmp_path: Path, capsys) -> None:
    import shutil

    corpus = tmp_path / "docs"
    shutil.copytree(CORPUS, corpus)
    questions = tmp_path / "q.jsonl"
    shutil.copy(QUESTIONS, questions)
    db = tmp_path / "r.db"
    assert (
        run_cli(
            "analyze",
            "-q",
            "--db",
            str(db),
            "--corpus",
            str(corpus),
            "--questions",
            str(questions),
            "--embedder",
            "hash",
        )
        == 0
    )
    capsys.readouterr()
    target = questions if which == "questions" else corpus / CORPUS_FILE.name
    before = target.read_bytes()
    one_line_error(capsys, run_cli("report", "latest", "--db", str(db), flag, str(target)), flag, "one of the inputs")
    assert target.read_bytes() == before


SPEC_CASES = [
    ("embedder", "bogus"),
    ("embedder", "openai:"),
    ("embedder", "hash:1"),
    ("embedder", "precomputed:x"),
    ("llm", "gpt-4o"),
    ("llm", "openai:"),
    ("judge_llm", "claude:opus"),
    ("paraphrase_llm", "openai: "),
]


@pytest.mark.parametrize("key, spec", SPEC_CASES)
@pytest.mark.parametrize("source", ["flag", "env", "toml"])
def test_a_provider_spec_no_provider_takes_names_its_source(
    key: str, spec: str, source: str, tmp_path: Path, capsys, monkeypatch
) -> None:
    db = tmp_path / "r.db"
    argv = evaluate(db)
    if source == "flag":
        argv += [f"--{key.replace('_', '-')}={spec}"]
        needle = f"--{key.replace('_', '-')}:"
    elif source == "env":
        var = SPECS[key].env
        if var is None:
            pytest.skip(f"{key} has no environment variable")
        monkeypatch.setenv(var, spec)
        needle = f"${var}:"
    else:
        (tmp_path / "ragcov.toml").write_text(f'[eval]\n{key} = "{spec}"\n')
        needle = f"ragcov.toml [eval] {key}:"
    one_line_error(capsys, run_cli(*argv), needle, repr(spec.strip()) if spec.strip() != spec else repr(spec))
    assert not db.exists()
