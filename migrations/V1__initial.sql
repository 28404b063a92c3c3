-- nagger state, schema v1. Every time is unix milliseconds (UTC).

-- Subagents that have started and not yet stopped (the Registry).
CREATE TABLE subagents (
    agent_id             TEXT PRIMARY KEY,
    session_id           TEXT NOT NULL,
    agent_type           TEXT NOT NULL DEFAULT 'unknown',
    role                 TEXT,
    role_source          TEXT,                 -- exact_link | task_match | direct | unresolved
    created_at           INTEGER NOT NULL,
    startup_processed    INTEGER NOT NULL DEFAULT 0,
    startup_processed_at INTEGER,
    claimed_by           TEXT,                 -- direct (agent_id in input) | claim (2-phase claim)
    task_spawn_id        INTEGER,              -- the task_spawns row this agent was matched to
    registered_by        TEXT NOT NULL DEFAULT 'subagent_start'  -- or pre_tool_use: agent_id seen without SubagentStart
);
CREATE INDEX idx_subagents_session ON subagents(session_id);
CREATE INDEX idx_subagents_unprocessed ON subagents(session_id, created_at) WHERE startup_processed = 0;

-- Agent/Task tool_use blocks found in a session's parent transcript.
CREATE TABLE task_spawns (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id       TEXT NOT NULL,
    transcript_index INTEGER NOT NULL,         -- line number in the parent transcript
    tool_use_id      TEXT NOT NULL,            -- the tool_use id, or line:<n> when the block had none
    subagent_type    TEXT,
    role             TEXT,                     -- resolved role of this spawn
    prompt_hash      TEXT,                     -- sha256(prompt)[:16]
    description      TEXT,
    linked_agent_id  TEXT,                     -- exact link read from the transcript
    matched_agent_id TEXT,                     -- the agent this spawn was assigned to
    created_at       INTEGER NOT NULL,
    UNIQUE(session_id, tool_use_id)
);
CREATE INDEX idx_task_spawns_unmatched ON task_spawns(session_id, subagent_type, transcript_index) WHERE matched_agent_id IS NULL;
CREATE INDEX idx_task_spawns_linked ON task_spawns(session_id, linked_agent_id) WHERE linked_agent_id IS NOT NULL;
CREATE INDEX idx_task_spawns_matched ON task_spawns(matched_agent_id) WHERE matched_agent_id IS NOT NULL;

-- Per-session processed markers (conventions shown, with the context size at the time).
CREATE TABLE sessions (
    session_id  TEXT NOT NULL,
    hook_name   TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    last_tokens INTEGER NOT NULL DEFAULT 0,
    status      TEXT NOT NULL DEFAULT 'active', -- active | expired
    expired_at  INTEGER,
    expire_reason TEXT,
    PRIMARY KEY (session_id, hook_name)
);
CREATE INDEX idx_sessions_status ON sessions(status);

-- One row per Claude Code session nagger has seen.
CREATE TABLE session_info (
    session_id      TEXT PRIMARY KEY,
    started_at      INTEGER NOT NULL,
    last_seen_at    INTEGER NOT NULL,
    source          TEXT,
    transcript_path TEXT,
    cwd             TEXT,
    compactions     INTEGER NOT NULL DEFAULT 0,
    ended_at        INTEGER,
    end_reason      TEXT
);
CREATE INDEX idx_session_info_ended ON session_info(ended_at) WHERE ended_at IS NOT NULL;
CREATE INDEX idx_session_info_seen ON session_info(last_seen_at);

-- Every hook run.
CREATE TABLE hook_log (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT NOT NULL,
    hook_name   TEXT NOT NULL,
    event_type  TEXT NOT NULL,
    agent_id    TEXT,
    timestamp   INTEGER NOT NULL,
    result      TEXT,                           -- none | deny | ask | block | context | error
    details     TEXT,                           -- JSON
    duration_ms REAL
);
CREATE INDEX idx_hook_log_session ON hook_log(session_id, timestamp);
-- Also covers what `nagger stats --since` counts one by one (the rows of the day it cuts).
CREATE INDEX idx_hook_log_time ON hook_log(timestamp, event_type, hook_name, duration_ms);
-- `nagger stats` reads these instead of the table (src/store/stats.rs uses the same
-- expressions, character for character, so the planner matches them): percentiles per
-- (event, hook) off one index in duration order; the rarer outcomes and the details they
-- need through partial indexes of just those rows.
CREATE INDEX idx_hook_log_stats ON hook_log(event_type, hook_name, duration_ms, timestamp);
CREATE INDEX idx_hook_log_outcomes ON hook_log(result, event_type, hook_name, timestamp)
    WHERE result <> 'none';
CREATE INDEX idx_hook_log_role_sources
    ON hook_log(event_type, json_extract(CASE WHEN json_valid(details) THEN details END, '$.role_source'), timestamp)
    WHERE event_type = 'SubagentStart';
CREATE INDEX idx_hook_log_first_calls
    ON hook_log(json_extract(CASE WHEN json_valid(details) THEN details END, '$.caller'), timestamp)
    WHERE json_extract(CASE WHEN json_valid(details) THEN details END, '$.first_call') = 1;
CREATE INDEX idx_hook_log_context
    ON hook_log(event_type, coalesce(json_extract(CASE WHEN json_valid(details) THEN details END, '$.context_chars'), json_extract(CASE WHEN json_valid(details) THEN details END, '$.output_chars')), timestamp)
    WHERE result = 'context';

-- Runs per (event, hook, day, duration bucket), kept by triggers so `nagger stats` reads
-- a few thousand rows instead of counting a million. The bucket expression is
-- `fine_bucket_sql` of src/store/stats.rs, character for character (a test holds them
-- together); -1 = no duration recorded. Rows that reach 0 runs are deleted.
CREATE TABLE hook_log_rollup (
    event_type TEXT NOT NULL,
    hook_name  TEXT NOT NULL,
    day        INTEGER NOT NULL,                -- timestamp / 86400000 (UTC days)
    bucket     INTEGER NOT NULL,
    runs       INTEGER NOT NULL,
    PRIMARY KEY (event_type, hook_name, day, bucket)
) WITHOUT ROWID;
CREATE TRIGGER hook_log_rollup_insert AFTER INSERT ON hook_log BEGIN
    INSERT INTO hook_log_rollup (event_type, hook_name, day, bucket, runs)
    VALUES (NEW.event_type, NEW.hook_name, NEW.timestamp / 86400000,
            CASE WHEN NEW.duration_ms IS NULL THEN -1 WHEN NEW.duration_ms < 10 THEN max(0, CAST(NEW.duration_ms * 10 AS INTEGER)) WHEN NEW.duration_ms < 100 THEN 100 + CAST(NEW.duration_ms - 10 AS INTEGER) WHEN NEW.duration_ms < 1000 THEN 190 + CAST((NEW.duration_ms - 100) / 10 AS INTEGER) WHEN NEW.duration_ms < 10000 THEN 280 + CAST((NEW.duration_ms - 1000) / 100 AS INTEGER) ELSE 370 END, 1)
    ON CONFLICT (event_type, hook_name, day, bucket) DO UPDATE SET runs = runs + 1;
END;
CREATE TRIGGER hook_log_rollup_delete AFTER DELETE ON hook_log BEGIN
    UPDATE hook_log_rollup SET runs = runs - 1
    WHERE event_type = OLD.event_type AND hook_name = OLD.hook_name
      AND day = OLD.timestamp / 86400000 AND bucket = CASE WHEN OLD.duration_ms IS NULL THEN -1 WHEN OLD.duration_ms < 10 THEN max(0, CAST(OLD.duration_ms * 10 AS INTEGER)) WHEN OLD.duration_ms < 100 THEN 100 + CAST(OLD.duration_ms - 10 AS INTEGER) WHEN OLD.duration_ms < 1000 THEN 190 + CAST((OLD.duration_ms - 100) / 10 AS INTEGER) WHEN OLD.duration_ms < 10000 THEN 280 + CAST((OLD.duration_ms - 1000) / 100 AS INTEGER) ELSE 370 END;
    DELETE FROM hook_log_rollup
    WHERE event_type = OLD.event_type AND hook_name = OLD.hook_name
      AND day = OLD.timestamp / 86400000 AND bucket = CASE WHEN OLD.duration_ms IS NULL THEN -1 WHEN OLD.duration_ms < 10 THEN max(0, CAST(OLD.duration_ms * 10 AS INTEGER)) WHEN OLD.duration_ms < 100 THEN 100 + CAST(OLD.duration_ms - 10 AS INTEGER) WHEN OLD.duration_ms < 1000 THEN 190 + CAST((OLD.duration_ms - 100) / 10 AS INTEGER) WHEN OLD.duration_ms < 10000 THEN 280 + CAST((OLD.duration_ms - 1000) / 100 AS INTEGER) ELSE 370 END AND runs <= 0;
END;
CREATE TRIGGER hook_log_rollup_update
AFTER UPDATE OF event_type, hook_name, timestamp, duration_ms ON hook_log BEGIN
    UPDATE hook_log_rollup SET runs = runs - 1
    WHERE event_type = OLD.event_type AND hook_name = OLD.hook_name
      AND day = OLD.timestamp / 86400000 AND bucket = CASE WHEN OLD.duration_ms IS NULL THEN -1 WHEN OLD.duration_ms < 10 THEN max(0, CAST(OLD.duration_ms * 10 AS INTEGER)) WHEN OLD.duration_ms < 100 THEN 100 + CAST(OLD.duration_ms - 10 AS INTEGER) WHEN OLD.duration_ms < 1000 THEN 190 + CAST((OLD.duration_ms - 100) / 10 AS INTEGER) WHEN OLD.duration_ms < 10000 THEN 280 + CAST((OLD.duration_ms - 1000) / 100 AS INTEGER) ELSE 370 END;
    DELETE FROM hook_log_rollup
    WHERE event_type = OLD.event_type AND hook_name = OLD.hook_name
      AND day = OLD.timestamp / 86400000 AND bucket = CASE WHEN OLD.duration_ms IS NULL THEN -1 WHEN OLD.duration_ms < 10 THEN max(0, CAST(OLD.duration_ms * 10 AS INTEGER)) WHEN OLD.duration_ms < 100 THEN 100 + CAST(OLD.duration_ms - 10 AS INTEGER) WHEN OLD.duration_ms < 1000 THEN 190 + CAST((OLD.duration_ms - 100) / 10 AS INTEGER) WHEN OLD.duration_ms < 10000 THEN 280 + CAST((OLD.duration_ms - 1000) / 100 AS INTEGER) ELSE 370 END AND runs <= 0;
    INSERT INTO hook_log_rollup (event_type, hook_name, day, bucket, runs)
    VALUES (NEW.event_type, NEW.hook_name, NEW.timestamp / 86400000,
            CASE WHEN NEW.duration_ms IS NULL THEN -1 WHEN NEW.duration_ms < 10 THEN max(0, CAST(NEW.duration_ms * 10 AS INTEGER)) WHEN NEW.duration_ms < 100 THEN 100 + CAST(NEW.duration_ms - 10 AS INTEGER) WHEN NEW.duration_ms < 1000 THEN 190 + CAST((NEW.duration_ms - 100) / 10 AS INTEGER) WHEN NEW.duration_ms < 10000 THEN 280 + CAST((NEW.duration_ms - 1000) / 100 AS INTEGER) ELSE 370 END, 1)
    ON CONFLICT (event_type, hook_name, day, bucket) DO UPDATE SET runs = runs + 1;
END;

-- Subagents that finished.
CREATE TABLE subagent_history (
    agent_id     TEXT NOT NULL,
    session_id   TEXT NOT NULL,
    agent_type   TEXT NOT NULL,
    role         TEXT,
    role_source  TEXT,
    started_at   INTEGER NOT NULL,
    stopped_at   INTEGER NOT NULL,
    duration_ms  INTEGER NOT NULL,
    tokens       INTEGER,
    summary      TEXT,
    PRIMARY KEY (session_id, agent_id)
);
CREATE INDEX idx_subagent_history_stopped ON subagent_history(stopped_at);

-- How far each transcript has been scanned.
CREATE TABLE transcript_cursors (
    path        TEXT PRIMARY KEY,
    session_id  TEXT,
    byte_offset INTEGER NOT NULL,
    line_count  INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    updated_at  INTEGER NOT NULL
);

-- Results shared between agents.
CREATE TABLE context_entries (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    agent_id   TEXT,
    agent_type TEXT,
    role       TEXT,
    category   TEXT NOT NULL,
    content    TEXT NOT NULL,
    tags       TEXT NOT NULL DEFAULT '',        -- comma separated
    files      TEXT NOT NULL DEFAULT '[]',      -- JSON array of paths written or edited
    tokens     INTEGER,
    content_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX idx_context_session ON context_entries(session_id, created_at);
CREATE INDEX idx_context_role ON context_entries(role, created_at);
CREATE INDEX idx_context_created ON context_entries(created_at);
-- One entry per result: an agent's stop seen twice stores it once.
CREATE UNIQUE INDEX idx_context_dedup ON context_entries(session_id, content_hash);
-- Digest stages 3 and 4 look only at tagged entries (decisions, blockers, roles).
CREATE INDEX idx_context_tagged ON context_entries(created_at) WHERE tags != '';

-- Files changed by Edit/Write/MultiEdit/NotebookEdit, per agent ('' = the main
-- agent, or a subagent on a Claude Code too old to send agent_id).
CREATE TABLE file_changes (
    session_id TEXT NOT NULL,
    agent_id   TEXT NOT NULL DEFAULT '',
    path       TEXT NOT NULL,
    tool       TEXT NOT NULL,
    changes    INTEGER NOT NULL DEFAULT 1,
    first_at   INTEGER NOT NULL,
    last_at    INTEGER NOT NULL,
    PRIMARY KEY (session_id, agent_id, path)
);
CREATE INDEX idx_file_changes_recent ON file_changes(session_id, last_at);

-- Which rule fired for whom.
CREATE TABLE rule_hits (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT NOT NULL,
    agent_id    TEXT,
    rule_name   TEXT NOT NULL,
    rule_kind   TEXT NOT NULL,                  -- file | command | tool | guard
    severity    TEXT NOT NULL,
    decision    TEXT NOT NULL,                  -- what nagger answered for this hit
    last_tokens INTEGER NOT NULL DEFAULT 0,
    created_at  INTEGER NOT NULL
);
CREATE INDEX idx_rule_hits_session ON rule_hits(session_id, rule_name, created_at);
CREATE INDEX idx_rule_hits_created ON rule_hits(created_at);
-- `nagger stats`: hits per rule and decision, in index order.
CREATE INDEX idx_rule_hits_stats ON rule_hits(rule_kind, rule_name, decision, created_at);

-- Tool, skill and subagent-type usage counts.
CREATE TABLE usage_counts (
    session_id TEXT NOT NULL,
    kind       TEXT NOT NULL,                   -- tool | skill | subagent_type
    name       TEXT NOT NULL,
    count      INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, kind, name)
);

-- Work items for roles (digest stage 6).
CREATE TABLE tasks (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    role        TEXT NOT NULL,
    title       TEXT NOT NULL,
    description TEXT,
    status      TEXT NOT NULL DEFAULT 'open',   -- open | done
    created_at  INTEGER NOT NULL,
    done_at     INTEGER
);
CREATE INDEX idx_tasks_role ON tasks(role, status);
