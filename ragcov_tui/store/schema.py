"""Table definitions. ``create_v1`` is migration 0 → 1; later versions append new functions.

JSON columns hold JSON text. Per-item tables (chunks, chunk_results, question_results,
eval_items) are keyed by ``(session_id, item id)`` so the TUI pages and filters them in SQL instead
of loading 100k rows. API keys are never stored anywhere.
"""

from __future__ import annotations

import sqlite_utils

V1 = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,              -- short random id, e.g. 'a3f9c2d1'
    kind TEXT NOT NULL,               -- 'analysis' | 'eval'
    name TEXT,                        -- user label (rename in the TUI)
    status TEXT NOT NULL,             -- 'running' | 'done' | 'failed' | 'cancelled'
    created_at TEXT NOT NULL,         -- ISO 8601 UTC
    finished_at TEXT,
    user TEXT,
    corpus TEXT,                      -- JSON list of corpus paths as given
    questions_path TEXT,              -- absolute path of the test file
    testset_sha256 TEXT,              -- of the test file's bytes when read
    embedder TEXT,                    -- 'local:all-MiniLM-L6-v2' ...
    llm TEXT,                         -- 'openai:gpt-4o-mini' | 'heuristic'
    system TEXT,                      -- eval: the system under test spec
    params TEXT,                      -- JSON of every parameter of the run
    summary TEXT,                     -- JSON headline figures (coverage.basic, aggregates...)
    timings TEXT,                     -- JSON {stage: seconds}
    usage TEXT,                       -- JSON token / cost / call counts
    error TEXT
);
CREATE INDEX IF NOT EXISTS sessions_created ON sessions(created_at);

CREATE TABLE IF NOT EXISTS documents (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    path TEXT,
    n_chunks INTEGER,
    n_chars INTEGER,
    PRIMARY KEY (session_id, source)
);
CREATE TABLE IF NOT EXISTS chunks (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    chunk_id TEXT NOT NULL,
    seq INTEGER NOT NULL,             -- 0-based order in the session (row of the vector matrix)
    source TEXT NOT NULL,
    position INTEGER,
    n_tokens INTEGER,
    text TEXT NOT NULL,
    PRIMARY KEY (session_id, chunk_id)
);
CREATE TABLE IF NOT EXISTS questions (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    question_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    text TEXT NOT NULL,
    raw TEXT,                         -- JSON of the row as read
    PRIMARY KEY (session_id, question_id)
);
CREATE TABLE IF NOT EXISTS vectors (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,               -- 'chunk' | 'question'
    item_id TEXT NOT NULL,
    vector BLOB NOT NULL,             -- float32 little-endian
    PRIMARY KEY (session_id, kind, item_id)
);

-- analysis results
CREATE TABLE IF NOT EXISTS reports (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    report TEXT NOT NULL              -- JSON: the --json contract without the per-item detail lists
);
CREATE TABLE IF NOT EXISTS chunk_results (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    chunk_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    source TEXT NOT NULL,
    cluster INTEGER,
    mindist REAL,                     -- NULL when no inlier question exists
    nearest_question TEXT,
    x REAL, y REAL,                   -- 2-D map (NULL when the chunk was not projected)
    PRIMARY KEY (session_id, chunk_id)
);
CREATE INDEX IF NOT EXISTS chunk_results_cluster ON chunk_results(session_id, cluster, mindist);
CREATE TABLE IF NOT EXISTS question_results (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    question_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    text TEXT NOT NULL,
    lof_score REAL,
    outlier INTEGER NOT NULL,
    nearest_cluster INTEGER,
    nearest_chunk TEXT,
    nearest_chunk_dist REAL,
    redundant_with TEXT,              -- JSON list of question ids
    x REAL, y REAL,
    PRIMARY KEY (session_id, question_id)
);
CREATE TABLE IF NOT EXISTS suggestions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    cluster INTEGER NOT NULL,
    text TEXT NOT NULL,
    origin TEXT NOT NULL,             -- 'llm:<model>' | 'heuristic'
    status TEXT NOT NULL DEFAULT 'open', -- 'open' | 'accepted' | 'rejected'
    question_id TEXT,                 -- id given to the row written into the test file
    decided_at TEXT,
    user TEXT
);
CREATE INDEX IF NOT EXISTS suggestions_session ON suggestions(session_id, cluster);

-- evaluation results
CREATE TABLE IF NOT EXISTS eval_items (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    question_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    status TEXT NOT NULL,             -- 'done' | 'error'
    question TEXT,
    answer TEXT,
    retrieved TEXT,                   -- JSON [{id, text, score, cited}]
    retrieval TEXT,                   -- JSON {metric: value}
    generation TEXT,                  -- JSON {metric: value|null}
    details TEXT,                     -- JSON: claims, verdicts, paraphrase answers, spreads
    judge_calls TEXT,                 -- JSON [{metric, prompt, raw, error}]
    diagnosis TEXT,
    error TEXT,
    finished_at TEXT,
    PRIMARY KEY (session_id, question_id)
);

-- triage
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,               -- 'question' | 'suggestion'
    target TEXT NOT NULL,             -- question id or suggestion id
    action TEXT NOT NULL,             -- 'keep' | 'drop' | 'accept' | 'reject' | 'edit' | 'undo'
    payload TEXT,                     -- JSON (edited text, new row id, ...)
    testset_path TEXT,
    sha_before TEXT,
    sha_after TEXT,
    backup_path TEXT,
    undone INTEGER NOT NULL DEFAULT 0,
    user TEXT,
    at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rejected_suggestions (
    testset_path TEXT NOT NULL,
    text_key TEXT NOT NULL,           -- normalised text (lower case, collapsed spaces)
    at TEXT NOT NULL,
    PRIMARY KEY (testset_path, text_key)
);

-- caches
CREATE TABLE IF NOT EXISTS embedding_cache (
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,             -- float32 little-endian, L2-normalised
    created_at TEXT NOT NULL,
    PRIMARY KEY (provider, model, text_sha256)
);
CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY,             -- sha256 of canonical JSON {provider, model, messages, params}
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    request TEXT NOT NULL,            -- JSON of the request (no key)
    reply TEXT NOT NULL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    created_at TEXT NOT NULL
);
"""


def create_v1(db: sqlite_utils.Database) -> None:
    """Create every version-1 table and index."""
    db.conn.executescript(V1)


V2_COLUMNS = {  # sessions: who runs it (see store.liveness) and how far it got
    "pid": "INTEGER",  # process id of the owner while it runs
    "host": "TEXT",  # hostname of the owner
    "heartbeat_at": "TEXT",  # ISO 8601 UTC, rewritten every few seconds while it runs
    "progress": "TEXT",  # JSON {stage, done, total}: the owner's latest progress report
}


def add_session_owner_v2(db: sqlite_utils.Database) -> None:
    """Version 2: the owner and heartbeat of a running session, so a killed run shows as interrupted.

    Idempotent (a column already there is skipped): two processes may migrate the same file at once.
    """
    have = {row[1] for row in db.conn.execute("PRAGMA table_info(sessions)").fetchall()}
    for name, kind in V2_COLUMNS.items():
        if name not in have:
            db.conn.execute(f"ALTER TABLE sessions ADD COLUMN {name} {kind}")


V3_VIEWS = """
CREATE TABLE IF NOT EXISTS testset_views (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    testset_path TEXT NOT NULL,
    sha256 TEXT NOT NULL,             -- of the test file's bytes as the session last saw them
    rows TEXT NOT NULL,               -- JSON [[row key or null, digest of the row's value], ...]
    at TEXT NOT NULL
);
"""


def add_decision_states_v3(db: sqlite_utils.Database) -> None:
    """Version 3: write-ahead triage decisions and each session's view of its test file.

    ``decisions.state`` is ``pending`` (recorded before the file is replaced), ``applied`` or
    ``abandoned`` (a pending write that never reached the file); rows from before are ``applied``.
    ``testset_views`` holds what a session last saw of its test file (see
    :mod:`ragcov_tui.store.testset_views`). Idempotent, like version 2.
    """
    have = {row[1] for row in db.conn.execute("PRAGMA table_info(decisions)").fetchall()}
    if "state" not in have:
        db.conn.execute("ALTER TABLE decisions ADD COLUMN state TEXT NOT NULL DEFAULT 'applied'")
    db.conn.executescript(V3_VIEWS)


V4_TRAFFIC = """
CREATE TABLE IF NOT EXISTS traffic_reports (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    report TEXT NOT NULL              -- JSON: the report's "traffic" section without its per-query details
);
CREATE TABLE IF NOT EXISTS traffic_queries (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,             -- 0-based: most asked first
    text TEXT NOT NULL,               -- the distinct query (whitespace collapsed, unsafe characters visible)
    count INTEGER NOT NULL,           -- times asked in the log
    cluster INTEGER NOT NULL,         -- traffic cluster
    answerable INTEGER NOT NULL,      -- 0: farther from every chunk than the calibrated threshold (content gap)
    nearest_question TEXT,            -- nearest inlier test question (NULL when none)
    question_similarity REAL,
    nearest_chunk TEXT,
    chunk_similarity REAL,
    first_seen TEXT, last_seen TEXT,  -- ISO 8601 UTC when the log has timestamps
    x REAL, y REAL,                   -- on the 2-D map: the position of the nearest chunk
    PRIMARY KEY (session_id, seq)
);
CREATE INDEX IF NOT EXISTS traffic_queries_cluster ON traffic_queries(session_id, cluster, count);
"""


def add_traffic_v4(db: sqlite_utils.Database) -> None:
    """Version 4: traffic coverage of an analysis run with ``--traffic`` (:mod:`ragcov_tui.store.traffic`)."""
    db.conn.executescript(V4_TRAFFIC)


V5_SUGGESTION_COLUMNS = {  # suggestions: where a suggested question came from
    "chunk_id": "TEXT",  # the chunk it was written from (NULL: an older ragcov, or an LLM reply without one)
    "form": "TEXT",  # 'question' | 'passage' (a passage to ask about); NULL when unknown
}


def add_suggestion_source_v5(db: sqlite_utils.Database) -> None:
    """Version 5: each suggestion's source chunk and form, as the report's ``suggested_questions``
    carry them; rows from before keep NULL. Idempotent, like version 2."""
    have = {row[1] for row in db.conn.execute("PRAGMA table_info(suggestions)").fetchall()}
    for name, kind in V5_SUGGESTION_COLUMNS.items():
        if name not in have:
            db.conn.execute(f"ALTER TABLE suggestions ADD COLUMN {name} {kind}")


V6_LABELS = """
CREATE TABLE IF NOT EXISTS labels (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    question_id TEXT NOT NULL,
    metric TEXT NOT NULL,             -- a judged generation metric ('faithfulness', ...)
    label INTEGER NOT NULL,           -- the person's verdict: 1 yes (the answer deserves a pass), 0 no
    source TEXT NOT NULL,             -- 'app' | 'import:<file name>'
    user TEXT,
    at TEXT NOT NULL,
    PRIMARY KEY (session_id, question_id, metric)
);
CREATE TABLE IF NOT EXISTS label_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    question_id TEXT NOT NULL,
    metric TEXT NOT NULL,
    before INTEGER,                   -- the label before the change (NULL: none)
    after INTEGER,                    -- the label after it (NULL: cleared)
    undone INTEGER NOT NULL DEFAULT 0,
    at TEXT NOT NULL
);
"""


def add_labels_v6(db: sqlite_utils.Database) -> None:
    """Version 6: people's verdicts on judged metrics (:mod:`ragcov_tui.store.labels`), the labels a
    judge is aligned against, and the app's log of label changes (its undo)."""
    db.conn.executescript(V6_LABELS)


V7_LINT = """
CREATE TABLE IF NOT EXISTS content_hashes (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,               -- 'document' | 'chunk'
    item_id TEXT NOT NULL,            -- the document's source or the chunk's id
    sha256 TEXT NOT NULL,             -- of its text (UTF-8)
    PRIMARY KEY (session_id, kind, item_id)
);
CREATE TABLE IF NOT EXISTS lint_findings (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,             -- 0-based, in the report's order (question, then kind)
    question_id TEXT NOT NULL,
    kind TEXT NOT NULL,               -- testlint.findings.KINDS
    reason TEXT NOT NULL,
    evidence TEXT NOT NULL,           -- JSON object
    PRIMARY KEY (session_id, seq)
);
CREATE INDEX IF NOT EXISTS lint_findings_kind ON lint_findings(session_id, kind, question_id);
"""


def add_lint_v7(db: sqlite_utils.Database) -> None:
    """Version 7: content hashes per document and chunk of every analysis and eval (stale gold),
    and the test-set lint findings of an analysis (:mod:`ragcov_tui.store.lint`)."""
    db.conn.executescript(V7_LINT)
