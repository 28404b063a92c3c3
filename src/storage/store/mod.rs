//! The state database: `NaggerStateDB` opens it (`db`), its errors (`error`), and one
//! repository per group of tables, each reached from the database handle
//! (`db.context()`, `db.markers()` …), plus the read-only queries of the commands and
//! the dashboard. `limit_waits` bounds a whole run's waits for the database (`budget`).

mod budget;
pub mod command_queries;
mod context;
mod db;
mod error;
pub mod foreign;
#[cfg(test)]
mod foreign_tests;
pub mod health;
mod hook_log;
mod markers;
mod rule_hits;
mod sessions;
pub mod stats;
mod subagents;
pub mod ui_queries;
mod usage;

pub use budget::{WaitBudget, limit_waits, stop_statements_at};
pub use context::{
    ContextEntry, ContextRepository, FileChange, NewContextEntry, TaskDone, TaskRecord,
};
pub use db::{
    BUSY_TIMEOUT, HOOK_WAL_BYTES, NaggerStateDB, OpenReport, checkpoint_deferred, close_by_exit,
    embedded_migrations, immediate, latest_version, migration_lock_path, now_ms, quarantine,
    user_version,
};
pub use error::{StoreError, StoreResult, is_busy, is_corrupt, is_corrupt_sqlite};
pub use hook_log::{HookLogRecord, HookLogRepository, NewHookLog};
pub use markers::{Due, ExpireReason, Marker, MarkerRepository};
pub use rule_hits::{NewRuleHit, RuleHitRepository};
pub use sessions::{SessionInfo, SessionRepository};
pub use subagents::{
    ExactOutcome, HistoryRecord, MatchOutcome, RoleSource, SpawnKey, SpawnRow, SubagentRecord,
    SubagentRepository, TranscriptCursorRow,
};
pub use usage::UsageRepository;
