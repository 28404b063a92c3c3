-- nagger state, schema v4: names that say what they hold, and no placeholder for a
-- session that was never named.

-- The per-session "shown already" markers (conventions, rules, the compression block)
-- were a table called `sessions` keyed by a column called `hook_name`.
ALTER TABLE sessions RENAME TO session_markers;
ALTER TABLE session_markers RENAME COLUMN hook_name TO marker;

-- Input nagger could not read is logged without a session (it had none, or none that
-- could be trusted): session_id may be NULL, where it held the word "unknown".
CREATE TABLE hook_log_v4 (
    id            INTEGER PRIMARY KEY,
    session_id    TEXT,
    hook_name     TEXT NOT NULL,
    event_type    TEXT NOT NULL,
    agent_id      TEXT,
    timestamp     INTEGER NOT NULL,
    result        TEXT,
    details       TEXT,
    duration_ms   REAL,
    role_source   TEXT,
    caller        TEXT,
    context_chars INTEGER
);
INSERT INTO hook_log_v4
SELECT id, CASE WHEN event_type = 'invalid' AND session_id = 'unknown' THEN NULL ELSE session_id END,
       hook_name, event_type, agent_id, timestamp, result, details, duration_ms,
       role_source, caller, context_chars
FROM hook_log;
DROP TABLE hook_log;
ALTER TABLE hook_log_v4 RENAME TO hook_log;

CREATE INDEX idx_hook_log_session ON hook_log(session_id, timestamp);
CREATE INDEX idx_hook_log_time ON hook_log(timestamp, event_type, hook_name, duration_ms);
CREATE INDEX idx_hook_log_stats ON hook_log(event_type, hook_name, duration_ms, timestamp);
CREATE INDEX idx_hook_log_outcomes ON hook_log(result, event_type, hook_name, timestamp)
    WHERE result <> 'none';
CREATE INDEX idx_hook_log_role_sources ON hook_log(role_source, timestamp)
    WHERE role_source IS NOT NULL;
CREATE INDEX idx_hook_log_first_calls ON hook_log(caller, timestamp)
    WHERE caller IS NOT NULL;
CREATE INDEX idx_hook_log_context ON hook_log(event_type, context_chars, timestamp)
    WHERE result = 'context';
