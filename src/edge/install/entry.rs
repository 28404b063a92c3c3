//! What every hook entry nagger puts into settings.json or a plugin says: the events,
//! the matcher and the timeout.

use crate::base::event::{ClientVersion, HookEvent};

/// The events every Claude Code nagger runs with knows: what `install` registers when it
/// cannot tell the client's version.
pub const HOOK_EVENTS: &[&str] = &HookEvent::EVERY_CLIENT;

/// Every event nagger handles, newer clients' included.
pub const ALL_HOOK_EVENTS: &[&str] = &HookEvent::NAMES;

/// The events `install` registers for a client of `version`: each one it knows. Claude
/// Code 2.1.68 ignores every hook of a settings file that names an event it does not
/// know (its debug log says "Found 0 hook matchers in settings"), so an event a client
/// does not know is never registered for it.
pub fn events_for(version: Option<ClientVersion>) -> Vec<&'static str> {
    HookEvent::ALL
        .into_iter()
        .filter(|e| e.known_by(version))
        .map(HookEvent::as_str)
        .collect()
}

/// Claude Code lets a hook that times out fail open; nagger's budgets are milliseconds.
/// Far above nagger's worst case: a run answers within its hard deadline (0.8 s after
/// it began, whatever the database does) and a stdin that never ends costs 2 s.
pub const HOOK_TIMEOUT_SECS: u64 = 10;

/// `"*"` matches everything for the events that have matchers and is ignored by the others,
/// so one value fits every event.
pub const HOOK_MATCHER: &str = "*";
