-- nagger state, schema v2: a lighter hook_log for the hook path.
--
-- Every hook process parses the whole schema before its first statement, and every run
-- inserts one hook_log row. The rollup triggers were a third of the instructions of a
-- quiet PreToolUse, and the JSON-expression indexes ran json_valid/json_extract on every
-- insert. So: the rollup is kept by nagger in the transaction that logs the run
-- (src/store/hook_log.rs), and what `nagger stats` reads out of the details is stored in
-- plain columns, indexed only on the rows that carry them.

DROP TRIGGER hook_log_rollup_insert;
DROP TRIGGER hook_log_rollup_delete;
DROP TRIGGER hook_log_rollup_update;
DROP INDEX idx_hook_log_role_sources;
DROP INDEX idx_hook_log_first_calls;
DROP INDEX idx_hook_log_context;

ALTER TABLE hook_log ADD COLUMN role_source TEXT;      -- SubagentStart: how the role was found
ALTER TABLE hook_log ADD COLUMN caller TEXT;           -- a subagent's first tool call: direct | claim
ALTER TABLE hook_log ADD COLUMN context_chars INTEGER; -- result context: characters of context added

UPDATE hook_log SET
    role_source = CASE WHEN event_type = 'SubagentStart'
                       THEN json_extract(details, '$.role_source') END,
    caller = CASE WHEN json_extract(details, '$.first_call') = 1
                  THEN json_extract(details, '$.caller') END,
    context_chars = CASE WHEN result = 'context'
                         THEN coalesce(json_extract(details, '$.context_chars'),
                                       json_extract(details, '$.output_chars')) END
WHERE json_valid(details);

CREATE INDEX idx_hook_log_role_sources ON hook_log(role_source, timestamp)
    WHERE role_source IS NOT NULL;
CREATE INDEX idx_hook_log_first_calls ON hook_log(caller, timestamp)
    WHERE caller IS NOT NULL;
CREATE INDEX idx_hook_log_context ON hook_log(event_type, context_chars, timestamp)
    WHERE result = 'context';
