-- nagger state, schema v2: a lighter hook_log for the hook path.
--
-- Every hook process parses the whole schema before its first statement, and every run
-- inserts one hook_log row. The rollup triggers were a third of the instructions of a
-- quiet PreToolUse, and the JSON-expression indexes ran json_valid/json_extract on every
-- insert. So: the rollup is kept by nagger in the transaction that logs the run
-- (src/store/hook_log.rs), and what `nagger stats` reads out of the details is stored in
-- plain columns, indexed only on the rows that carry them. Indexes of small tables that
-- no query needs go too: each one is parsed by every process and, for sessions and
-- session_info, written by most hook runs.

-- hook_log is rebuilt: the three columns are added, and its id is a plain rowid
-- (AUTOINCREMENT wrote sqlite_sequence on every run; the purge deletes the oldest rows,
-- so ids still only grow). Dropping the old table drops its triggers and indexes.
-- The column notes stay out of the CREATE text, which every process parses:
--   result        none | deny | ask | block | context | error
--   details       JSON
--   role_source   SubagentStart: how the role was found
--   caller        a subagent's first tool call: direct | claim
--   context_chars result context: characters of context added
CREATE TABLE hook_log_v2 (
    id            INTEGER PRIMARY KEY,
    session_id    TEXT NOT NULL,
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
INSERT INTO hook_log_v2
SELECT id, session_id, hook_name, event_type, agent_id, timestamp, result, details, duration_ms,
       CASE WHEN json_valid(details) THEN CASE WHEN event_type = 'SubagentStart'
            THEN json_extract(details, '$.role_source') END END,
       CASE WHEN json_valid(details) THEN CASE WHEN json_extract(details, '$.first_call') = 1
            THEN json_extract(details, '$.caller') END END,
       CASE WHEN json_valid(details) THEN CASE WHEN result = 'context'
            THEN coalesce(json_extract(details, '$.context_chars'),
                          json_extract(details, '$.output_chars')) END END
FROM hook_log;
DROP TABLE hook_log;
ALTER TABLE hook_log_v2 RENAME TO hook_log;
DELETE FROM sqlite_sequence WHERE name = 'hook_log';

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

DROP INDEX idx_sessions_status;          -- no query selects markers by status
DROP INDEX idx_subagents_session;        -- subagents holds only running agents
DROP INDEX idx_session_info_ended;       -- one row per session: the purge scans them
DROP INDEX idx_session_info_seen;

-- Digest stages filtered by category (a role that only wants navigation, say) walked
-- every entry of the role, or of the project, newest first, looking for the few of
-- those categories: 5 ms at 10,000 entries. These reach them directly.
CREATE INDEX idx_context_role_category ON context_entries(role, category, created_at);
CREATE INDEX idx_context_category ON context_entries(category, created_at);
