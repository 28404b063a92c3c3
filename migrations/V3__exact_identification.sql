-- Exact identification: how each agent's role and first tool call were established,
-- and whether a guessed role was later corrected.

-- Spawns also come from the main agent's PreToolUse of Agent/Task (before the parent
-- transcript holds them): where a row came from.
ALTER TABLE task_spawns ADD COLUMN registered_by TEXT NOT NULL DEFAULT 'transcript';
-- A subagent's own transcript starts with its prompt: its hash finds the spawn among
-- its session's few spawns (through the session_id prefix of the unique index; an
-- index of its own would be parsed by every hook process for little gain).

-- How many times a guessed role was replaced by a different exact one.
ALTER TABLE subagents ADD COLUMN role_corrected INTEGER NOT NULL DEFAULT 0;
-- The role the agent was given at SubagentStart (null: not known exactly then).
ALTER TABLE subagents ADD COLUMN start_role TEXT;

ALTER TABLE subagent_history ADD COLUMN claimed_by TEXT;
ALTER TABLE subagent_history ADD COLUMN role_corrected INTEGER NOT NULL DEFAULT 0;
