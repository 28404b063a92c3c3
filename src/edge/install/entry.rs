//! What every hook entry nagger puts into settings.json or a plugin says: the events,
//! the matcher and the timeout.

/// Every event nagger handles; `install` puts one entry for each into settings.json.
pub const HOOK_EVENTS: &[&str] = &crate::base::event::HookEvent::NAMES;

/// Claude Code lets a hook that times out fail open; nagger's budgets are milliseconds.
/// Far above nagger's worst case: a run answers within its hard deadline (0.9 s after
/// it began, whatever the database does) and a stdin that never ends costs 2 s.
pub const HOOK_TIMEOUT_SECS: u64 = 10;

/// `"*"` matches everything for the events that have matchers and is ignored by the others,
/// so one value fits every event.
pub const HOOK_MATCHER: &str = "*";
