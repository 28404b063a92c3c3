//! The dashboard's listener: accepts connections and serves each on a thread of its own,
//! [`MAX_CONNECTIONS`] at once at most. When all are taken, a new connection pushes out
//! the oldest one that has not presented the token yet (so idle or slow connections,
//! however many, never keep the token holder out); when every one has, the new one is
//! closed at once.

use super::conn::{self, Handler};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Connections served at once.
pub const MAX_CONNECTIONS: usize = 64;
/// Threads at once, counting those of pushed-out connections that have not ended yet.
const MAX_THREADS: usize = 2 * MAX_CONNECTIONS;
/// Pause after a failed accept (out of file descriptors, say) before the next.
const ACCEPT_PAUSE: Duration = Duration::from_millis(50);

/// Serves `listener`'s connections with `handler`, forever.
pub fn serve<H: Handler>(listener: &TcpListener, handler: &Arc<H>) -> ! {
    let slots = Arc::new(Slots::default());
    loop {
        let Ok((stream, _)) = listener.accept() else {
            std::thread::sleep(ACCEPT_PAUSE);
            continue;
        };
        let opened = Instant::now();
        // No slot: the connection is closed as it is dropped.
        let Some(slot) = Slots::take(&slots, &stream) else {
            continue;
        };
        let handler = Arc::clone(handler);
        // A thread that cannot start drops the connection and its slot.
        let _ = std::thread::Builder::new()
            .name("nagger-ui".into())
            .spawn(move || {
                let _ = stream.set_nodelay(true);
                conn::serve(stream, &*handler, opened, &|| slot.admitted());
            });
    }
}

/// The open connections, oldest first.
#[derive(Default)]
struct Slots {
    open: Mutex<Vec<Open>>,
    next_id: AtomicU64,
}

struct Open {
    id: u64,
    /// A handle to close it from outside.
    stream: TcpStream,
    /// It has sent a request with the token.
    admitted: bool,
    /// Closed from outside; its thread is ending.
    pushed_out: bool,
}

/// A connection's place among the open ones, given back when dropped.
struct Slot {
    slots: Arc<Slots>,
    id: u64,
}

impl Slots {
    fn open(&self) -> MutexGuard<'_, Vec<Open>> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A slot for `stream`, pushing out the oldest connection without the token when all
    /// are taken; `None` when none can be had.
    fn take(slots: &Arc<Slots>, stream: &TcpStream) -> Option<Slot> {
        let handle = stream.try_clone().ok()?;
        let mut open = slots.open();
        if open.len() >= MAX_THREADS {
            return None;
        }
        if open.iter().filter(|o| !o.pushed_out).count() >= MAX_CONNECTIONS {
            let oldest = open.iter_mut().find(|o| !o.pushed_out && !o.admitted)?;
            let _ = oldest.stream.shutdown(Shutdown::Both);
            oldest.pushed_out = true;
        }
        let id = slots.next_id.fetch_add(1, Ordering::Relaxed);
        open.push(Open {
            id,
            stream: handle,
            admitted: false,
            pushed_out: false,
        });
        Some(Slot {
            slots: Arc::clone(slots),
            id,
        })
    }
}

impl Slot {
    /// The connection has presented the token: it is never pushed out.
    fn admitted(&self) {
        if let Some(o) = self.slots.open().iter_mut().find(|o| o.id == self.id) {
            o.admitted = true;
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.open().retain(|o| o.id != self.id);
    }
}
