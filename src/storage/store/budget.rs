//! How long this thread may still wait for the database, all waits together: a
//! deadline for a whole run (a hook's), carried through every wait that opening and
//! using the database does (the busy handler, the WAL-index and lock-file waits, the
//! WAL switch), so that waits never add up past it. Without one, each wait is bounded
//! by `BUSY_TIMEOUT` alone, as the commands want.
//!
//! Per thread, as SQLite calls the busy handler on the thread that runs the statement.

use std::cell::Cell;
use std::time::{Duration, Instant};

thread_local! {
    static UNTIL: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// While alive, every wait for the database on this thread ends by `until` (or
/// sooner, at the deadline in force before, if any); dropped, the one before holds again.
#[must_use = "the budget holds while this lives"]
pub struct WaitBudget {
    previous: Option<Instant>,
}

/// Bounds every wait for the database on this thread, all together, by `until`.
pub fn limit_waits(until: Instant) -> WaitBudget {
    let previous = UNTIL.get();
    UNTIL.set(Some(previous.map_or(until, |p| p.min(until))));
    WaitBudget { previous }
}

impl Drop for WaitBudget {
    fn drop(&mut self) {
        UNTIL.set(self.previous);
    }
}

/// Connections opened by a command that stops its statements at a deadline
/// ([`stop_statements_at`]): their interrupt handles.
static WATCHED: std::sync::Mutex<Vec<rusqlite::InterruptHandle>> =
    std::sync::Mutex::new(Vec::new());
static WATCHING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Every statement of the connections this process opens from now on is interrupted at
/// `until`, from a thread of its own: a command reading rows one by one (each step short)
/// from a table a view that never ends took the place of ends all the same. For the
/// commands, never a hook (which has its own deadline).
pub fn stop_statements_at(until: Instant) {
    WATCHING.store(true, std::sync::atomic::Ordering::Release);
    let _ = std::thread::Builder::new()
        .name("nagger-db-deadline".into())
        .stack_size(64 * 1024)
        .spawn(move || {
            std::thread::sleep(until.saturating_duration_since(Instant::now()));
            for handle in WATCHED
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .iter()
            {
                handle.interrupt();
            }
        });
}

/// Puts `conn` under the deadline [`stop_statements_at`] set, if one is set.
pub(super) fn watch(conn: &rusqlite::Connection) {
    if WATCHING.load(std::sync::atomic::Ordering::Acquire) {
        WATCHED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(conn.get_interrupt_handle());
    }
}

/// When a wait that began at `started` and may last `most` on its own has to end.
pub(super) fn wait_end(started: Instant, most: Duration) -> Instant {
    let own = started + most;
    UNTIL.get().map_or(own, |until| until.min(own))
}

/// How long this thread may still wait; `None` when no run deadline is set.
pub(super) fn left() -> Option<Duration> {
    UNTIL
        .get()
        .map(|until| until.saturating_duration_since(Instant::now()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_bounds_waits_until_dropped_and_never_grows() {
        let now = Instant::now();
        assert_eq!(left(), None);
        assert_eq!(
            wait_end(now, Duration::from_secs(5)),
            now + Duration::from_secs(5)
        );
        {
            let _outer = limit_waits(now + Duration::from_millis(300));
            assert_eq!(
                wait_end(now, Duration::from_secs(5)),
                now + Duration::from_millis(300)
            );
            {
                let _inner = limit_waits(now + Duration::from_mins(1));
                assert_eq!(
                    wait_end(now, Duration::from_secs(5)),
                    now + Duration::from_millis(300),
                    "an inner budget never extends the outer one"
                );
            }
            assert!(left().is_some_and(|l| l <= Duration::from_millis(300)));
        }
        assert_eq!(left(), None);
    }
}
