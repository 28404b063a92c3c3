//! The dashboard's listener. One thread, the reception, accepts every connection and
//! reads its first request head without blocking, all connections side by side: a
//! connection costs a socket here, never a thread, until its head has come whole with
//! the token. Then it is handed to a thread of its own ([`conn::serve_admitted`]), at
//! most [`MAX_SERVED`] at once: past that, the served connection that has waited longest
//! for its next request (or, with none waiting, the one served longest) is ended to make
//! room, so that no process, even one holding the token, keeps the user's requests out
//! by holding connections. A head that is refused is answered and the connection closed
//! without a thread either. At most [`MAX_ARRIVING`] connections wait for their
//! head; past that the oldest is closed, so however many idle, slow or reconnecting
//! clients there are, a new connection is read within a sweep or two of its arrival
//! and the token holder's request is served at once.

use super::conn::{self, Handler, Head};
use super::http::{self, Request};
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Connections waiting for their first request's head, at most.
pub const MAX_ARRIVING: usize = 512;
/// Admitted connections served at once (each on a thread).
pub const MAX_SERVED: usize = 64;
/// Refused connections whose last input is being read and dropped, at most.
const MAX_CLOSING: usize = 128;
/// Connections accepted per sweep: fewer than [`MAX_ARRIVING`], so that one accepted in
/// a sweep is still there when the sweep reads it, however many come after it.
const ACCEPTS_PER_SWEEP: usize = MAX_ARRIVING / 4;
/// Pause between sweeps when one found nothing to do.
const SWEEP_PAUSE: Duration = Duration::from_millis(5);
/// Pause after a failed accept (out of file descriptors, say).
const ACCEPT_PAUSE: Duration = Duration::from_millis(50);
/// Connections the system may queue before they are accepted (capped by the system's
/// own limit): with the usual 128, a burst of connections from one process drops the
/// token holder's, which the system then tries again only a second later.
const BACKLOG: i32 = 4096;

/// A connection whose first request's head is awaited.
struct Arriving {
    stream: TcpStream,
    buf: Vec<u8>,
    /// How far its head's end was looked for.
    scanned: usize,
    /// When its head must be whole.
    by: Instant,
}

/// A refused connection, answered and shut for writing, whose further input is dropped
/// for a moment so that closing it does not reset the answer away.
struct Closing {
    stream: TcpStream,
    until: Instant,
    dropped: usize,
}

/// What one look at an arriving connection found.
enum Step {
    Wait,
    Drop,
    Head(Head),
}

/// The reception's state: the connections it holds and the count of those served.
struct Reception<H: Handler> {
    handler: Arc<H>,
    arriving: VecDeque<Arriving>,
    closing: VecDeque<Closing>,
    served: Arc<Mutex<Seats>>,
    /// Most connections waiting for their head, and being closed: [`MAX_ARRIVING`] and
    /// [`MAX_CLOSING`], or fewer where the process may hold fewer files.
    most_arriving: usize,
    most_closing: usize,
}

/// File descriptors kept free of the reception's connections: the served connections
/// (and those on their way out), their database connections, the listener, the logs.
const FD_RESERVE: usize = 4 * MAX_SERVED + 64;

/// Raises the process's limit of open files to its hard limit (at most 65536), and
/// returns the limit it has then: with a low soft limit (`ulimit -n 256`), connections
/// that never send a request would take every descriptor and the user's own would not
/// be accepted.
#[cfg(unix)]
pub(super) fn open_files_limit() -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit with a valid pointer to a local struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit) != 0 {
            return 1024;
        }
        let wanted = limit.rlim_max.min(65_536);
        if limit.rlim_cur < wanted {
            let raised = libc::rlimit {
                rlim_cur: wanted,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raw const raised) == 0 {
                limit.rlim_cur = wanted;
            }
        }
    }
    usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX)
}

#[cfg(not(unix))]
pub(super) fn open_files_limit() -> usize {
    1024
}

/// Serves `listener`'s connections with `handler`, forever.
pub fn serve<H: Handler>(listener: &TcpListener, handler: &Arc<H>) -> ! {
    widen_backlog(listener);
    let spare = open_files_limit().saturating_sub(FD_RESERVE);
    let mut reception = Reception {
        handler: Arc::clone(handler),
        arriving: VecDeque::new(),
        closing: VecDeque::new(),
        served: Arc::default(),
        most_arriving: (spare * 3 / 4).clamp(16, MAX_ARRIVING),
        most_closing: (spare / 4).clamp(8, MAX_CLOSING),
    };
    loop {
        let idle = reception.arriving.is_empty() && reception.closing.is_empty();
        // With nothing to sweep, wait for a connection; else only look for them.
        if listener.set_nonblocking(!idle).is_err() {
            std::thread::sleep(ACCEPT_PAUSE);
            continue;
        }
        let per_sweep = (reception.most_arriving / 4).min(ACCEPTS_PER_SWEEP);
        let accepted = reception.accept(listener, if idle { 1 } else { per_sweep });
        let read = reception.sweep();
        if !accepted && !read {
            std::thread::sleep(SWEEP_PAUSE);
        }
    }
}

/// Raises the listening socket's queue to [`BACKLOG`]: listening again on a listening
/// socket only changes its queue's length.
#[cfg(unix)]
pub(super) fn widen_backlog(listener: &TcpListener) {
    use std::os::unix::io::AsRawFd;
    // SAFETY: listen(2) on a descriptor `listener` owns and keeps open.
    let _ = unsafe { libc::listen(listener.as_raw_fd(), BACKLOG) };
}

#[cfg(not(unix))]
pub(super) fn widen_backlog(_listener: &TcpListener) {}

impl<H: Handler> Reception<H> {
    /// Accepts up to `most` waiting connections; whether any came.
    fn accept(&mut self, listener: &TcpListener, most: usize) -> bool {
        let mut any = false;
        for _ in 0..most {
            match listener.accept() {
                Ok((stream, _)) => {
                    any = true;
                    if stream.set_nonblocking(true).is_err() {
                        continue;
                    }
                    if self.arriving.len() >= self.most_arriving {
                        // Closed as it is dropped.
                        self.arriving.pop_front();
                    }
                    self.arriving.push_back(Arriving {
                        stream,
                        buf: Vec::new(),
                        scanned: 0,
                        by: Instant::now() + conn::HEAD_TIME,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    // Out of file descriptors, say: the oldest waiting makes room.
                    if self.arriving.pop_front().is_none() {
                        self.closing.pop_front();
                    }
                    std::thread::sleep(ACCEPT_PAUSE);
                    break;
                }
            }
        }
        any
    }

    /// Reads what each connection sent; answers, hands over or closes those that are
    /// done. Whether anything was read.
    fn sweep(&mut self) -> bool {
        let now = Instant::now();
        let mut read = false;
        for _ in 0..self.arriving.len() {
            let Some(mut a) = self.arriving.pop_front() else {
                break;
            };
            match look(&mut a, now, &mut read) {
                Step::Wait => self.arriving.push_back(a),
                Step::Drop => {}
                Step::Head(Head::Gone) => {}
                Step::Head(Head::Refused(answer)) => self.refuse(a.stream, &answer, false),
                Step::Head(Head::Request(request)) => self.admit(a, request),
            }
        }
        for _ in 0..self.closing.len() {
            let Some(mut c) = self.closing.pop_front() else {
                break;
            };
            if drain(&mut c, now, &mut read) {
                self.closing.push_back(c);
            }
        }
        read
    }

    /// Hands an admitted request's connection to a thread of its own, or refuses it.
    fn admit(&mut self, a: Arriving, request: Request) {
        let head_only = request.method == "HEAD";
        let pass = match self.handler.admit(&request) {
            Ok(pass) => pass,
            Err(refusal) => return self.refuse(a.stream, &refusal, head_only),
        };
        let Some(turn) = Turn::take(&self.served, &a.stream) else {
            let busy = http::text(503, "Too many open connections: try again.");
            return self.refuse(a.stream, &busy, head_only);
        };
        if a.stream.set_nonblocking(false).is_err() {
            return;
        }
        let handler = Arc::clone(&self.handler);
        let Arriving { stream, buf, .. } = a;
        // A thread that cannot start drops the connection and its turn.
        let _ = std::thread::Builder::new()
            .name("nagger-ui".into())
            .spawn(move || {
                let _ = stream.set_nodelay(true);
                conn::serve_admitted(stream, buf, request, pass, &handler, &|waiting| {
                    turn.waiting(waiting);
                });
            });
    }

    /// Sends `answer` as the connection's only one (what fits in the socket's buffer:
    /// the reception never waits on a client), then keeps it to drop its input a moment.
    fn refuse(&mut self, mut stream: TcpStream, answer: &http::Answer, head_only: bool) {
        let _ = stream.write(&conn::render(answer, head_only, true));
        if stream.shutdown(Shutdown::Write).is_err() {
            return;
        }
        if self.closing.len() >= self.most_closing {
            self.closing.pop_front();
        }
        self.closing.push_back(Closing {
            stream,
            until: Instant::now() + conn::LINGER_TIME,
            dropped: 0,
        });
    }
}

/// One read of an arriving connection, and what its head then is.
fn look(a: &mut Arriving, now: Instant, read: &mut bool) -> Step {
    let mut chunk = [0u8; conn::CHUNK];
    match a.stream.read(&mut chunk) {
        Ok(0) => return Step::Drop,
        Ok(n) => {
            *read = true;
            a.buf.extend_from_slice(&chunk[..n]);
        }
        Err(e) if conn::timed_out(&e) || e.kind() == io::ErrorKind::Interrupted => {}
        Err(_) => return Step::Drop,
    }
    conn::skip_blank_lines(&mut a.buf);
    if let Some(head) = conn::take_head(&mut a.buf, &mut a.scanned) {
        return Step::Head(head);
    }
    if now >= a.by {
        return Step::Head(if a.buf.is_empty() {
            Head::Gone
        } else {
            conn::too_slow()
        });
    }
    Step::Wait
}

/// Drops what a refused connection still sends; false once it is to be closed.
fn drain(c: &mut Closing, now: Instant, read: &mut bool) -> bool {
    let mut chunk = [0u8; conn::CHUNK];
    let open = match c.stream.read(&mut chunk) {
        Ok(0) => false,
        Ok(n) => {
            *read = true;
            c.dropped += n;
            true
        }
        Err(e) => conn::timed_out(&e) || e.kind() == io::ErrorKind::Interrupted,
    };
    open && now < c.until && c.dropped < conn::LINGER_BYTES
}

/// The connections being served, each on its thread: how many there are and which one
/// makes room for a new one.
#[derive(Default)]
struct Seats {
    next: u64,
    taken: Vec<Seat>,
}

/// One served connection's place.
struct Seat {
    id: u64,
    /// A handle of its socket, to end it when it must make room.
    stream: TcpStream,
    admitted: Instant,
    /// Since when it waits for its client's next request; `None` while it serves one.
    idle_since: Option<Instant>,
    /// Ended to make room; its thread is on its way out.
    ended: bool,
}

/// A served connection's place among the [`MAX_SERVED`], given back when dropped.
struct Turn {
    id: u64,
    seats: Arc<Mutex<Seats>>,
}

impl Turn {
    /// A place for the connection on `stream`. At [`MAX_SERVED`], the served connection
    /// that has waited longest for its next request makes room, or, with none waiting,
    /// the one served longest: whoever holds many connections open (the token's holder
    /// too) cannot keep a new request of the user's out. `None` only while
    /// [`MAX_SERVED`] more are still on their way out.
    fn take(seats: &Arc<Mutex<Seats>>, stream: &TcpStream) -> Option<Turn> {
        let handle = stream.try_clone().ok()?;
        let mut table = seats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if table.taken.len() >= 2 * MAX_SERVED {
            return None;
        }
        if table.taken.iter().filter(|s| !s.ended).count() >= MAX_SERVED {
            let victim = table
                .taken
                .iter_mut()
                .filter(|s| !s.ended)
                .min_by_key(|s| (s.idle_since.is_none(), s.idle_since.unwrap_or(s.admitted)))?;
            victim.ended = true;
            let _ = victim.stream.shutdown(Shutdown::Both);
        }
        table.next += 1;
        let id = table.next;
        table.taken.push(Seat {
            id,
            stream: handle,
            admitted: Instant::now(),
            idle_since: None,
            ended: false,
        });
        Some(Turn {
            id,
            seats: Arc::clone(seats),
        })
    }

    /// Marks the connection waiting for its client's next request, or serving one.
    fn waiting(&self, waiting: bool) {
        let mut table = self
            .seats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(seat) = table.taken.iter_mut().find(|s| s.id == self.id) {
            seat.idle_since = waiting.then(Instant::now);
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        let mut table = self
            .seats
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        table.taken.retain(|s| s.id != self.id);
    }
}
