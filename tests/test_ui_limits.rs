//! `nagger ui` cannot be held up by another local process: slow, idle, pipelining,
//! oversized and token-less clients are cut off within bounded time while the token
//! holder's requests keep being answered promptly. Everything talks to 127.0.0.1 only.

use crate::common::ui_client::{UiServer, request};
use crate::common::*;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Misbehaving connections of each kind at once.
const N: usize = 8;

fn start() -> (Project, UiServer) {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    let mut cmd = p.command(&["ui"]);
    cmd.current_dir(&p.root);
    let ui = UiServer::start(cmd);
    (p, ui)
}

fn connect(ui: &UiServer) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", ui.port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    s
}

/// The token holder's request, answered correctly.
fn prompt_get(ui: &UiServer, path: &str) {
    let reply = ui.get(path);
    assert_eq!(reply.status, 200, "{path}: {reply:?}");
}

/// Whether the server still holds `s` open (nothing to read yet, or an answer waiting):
/// checked after the token holder was served, it shows the two were served side by side.
fn still_open(s: &TcpStream) -> bool {
    s.set_nonblocking(true).expect("nonblocking");
    let mut byte = [0u8; 1];
    let open = match s.peek(&mut byte) {
        Ok(n) => n > 0,
        Err(e) => e.kind() == ErrorKind::WouldBlock,
    };
    s.set_nonblocking(false).expect("blocking");
    open
}

/// Keeps the token holder asking for `period`, every answer served.
fn keep_asking(ui: &UiServer, period: Duration) {
    let started = Instant::now();
    let mut asked = 0;
    while started.elapsed() < period {
        prompt_get(ui, "/api/changes");
        prompt_get(ui, "/api/sessions");
        asked += 1;
        thread::sleep(Duration::from_millis(100));
    }
    assert!(asked >= 3, "only {asked} rounds in {period:?}");
}

/// Reads until the server closes; what came, and when it closed relative to `since`.
fn until_closed(mut s: TcpStream, since: Instant) -> (String, Duration) {
    let mut got = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                panic!("still open after {:?}", since.elapsed())
            }
            // A reset is a close too.
            Err(_) => break,
        }
    }
    (String::from_utf8_lossy(&got).into_owned(), since.elapsed())
}

fn status_of(raw: &str) -> Option<u16> {
    raw.split_whitespace().nth(1)?.parse().ok()
}

/// Reads one answer off a kept-alive connection: its status and body.
fn read_answer(r: &mut BufReader<TcpStream>) -> (u16, String, String) {
    let mut head = String::new();
    loop {
        let mut line = String::new();
        assert!(r.read_line(&mut line).expect("read") > 0, "closed: {head}");
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .expect("a length")
        .trim()
        .parse()
        .expect("number");
    let mut body = vec![0; len];
    r.read_exact(&mut body).expect("body");
    (
        status_of(&head).expect("status"),
        head,
        String::from_utf8_lossy(&body).into_owned(),
    )
}

#[test]
fn ui_answers_the_token_holder_while_slow_and_idle_clients_hold_connections() {
    let (_p, ui) = start();
    let host = ui.host();
    let started = Instant::now();
    let mut slow = Vec::new();
    for i in 0..N {
        // A large body announced, one byte sent: without the token, with the token and
        // too large, with the token and small enough to be waited for.
        let token = if i % 3 == 0 {
            String::new()
        } else {
            format!("?token={}", ui.token)
        };
        let length = if i % 3 == 2 { 60_000 } else { 1_000_000 };
        let mut s = connect(&ui);
        write!(
            s,
            "POST /api/sessions{token} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {length}\r\n\r\nx"
        )
        .expect("send");
        slow.push(s);
        // Nothing sent.
        slow.push(connect(&ui));
        // A head one byte a second.
        let s = connect(&ui);
        let mut drip = s.try_clone().expect("clone");
        let head = format!(
            "GET /api/changes?token={} HTTP/1.1\r\nHost: {host}\r\n\r\n",
            ui.token
        );
        thread::spawn(move || {
            for b in head.bytes() {
                if drip.write_all(&[b]).is_err() {
                    break;
                }
                thread::sleep(Duration::from_secs(1));
            }
        });
        slow.push(s);
    }
    keep_asking(&ui, Duration::from_secs(3));
    assert!(
        slow.iter().any(still_open),
        "the token holder was only served once the slow clients were gone"
    );
    for s in slow {
        let (raw, _) = until_closed(s, started);
        if let Some(status) = status_of(&raw) {
            assert!(
                [403, 408, 413].contains(&status),
                "a misbehaving client is not served: {raw}"
            );
        }
    }
    prompt_get(&ui, "/api/changes");
}

#[test]
fn ui_answers_others_while_clients_pipeline_without_reading() {
    let (_p, ui) = start();
    let host = ui.host();
    let started = Instant::now();
    let mut pipelines = Vec::new();
    for target in [
        "/x".to_string(),
        format!("/x?token={}", ui.token),
        // Large answers: the server's writes block on a client that never reads.
        format!("/assets/app.js?token={}", ui.token),
    ] {
        let s = connect(&ui);
        let mut w = s.try_clone().expect("clone");
        let one = format!("GET {target} HTTP/1.1\r\nHost: {host}\r\n\r\n");
        let writer = thread::spawn(move || {
            let all = one.repeat(20_000);
            // Fails once the server has had enough and closed.
            let _ = w.write_all(all.as_bytes());
        });
        pipelines.push((s, writer));
    }
    keep_asking(&ui, Duration::from_secs(3));
    assert!(
        pipelines.iter().any(|(s, _)| still_open(s)),
        "the token holder was only served once the pipelining clients were gone"
    );
    for (s, writer) in pipelines {
        let (raw, _) = until_closed(s, started);
        let answers = raw.matches("HTTP/1.1 ").count();
        assert!(
            answers <= 100,
            "{answers} answers on one connection (at most 100)"
        );
        writer.join().expect("writer");
    }
    prompt_get(&ui, "/api/changes");
}

#[test]
fn ui_closes_connections_without_the_token_at_once() {
    let (_p, ui) = start();
    let host = ui.host();
    let port = ui.port;
    for head in [
        format!("GET /api/sessions HTTP/1.1\r\nHost: {host}\r\n\r\n"),
        format!("GET /api/sessions?token=0 HTTP/1.1\r\nHost: {host}\r\n\r\n"),
        format!("POST /api/sessions HTTP/1.1\r\nHost: {host}\r\nContent-Length: 1000000\r\n\r\nx"),
        format!(
            "POST /api/sessions HTTP/1.1\r\nHost: {host}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n"
        ),
        format!(
            "GET /api/sessions?token={} HTTP/1.1\r\nHost: evil.example:{port}\r\n\r\n",
            ui.token
        ),
    ] {
        let mut s = connect(&ui);
        let sent = Instant::now();
        s.write_all(head.as_bytes()).expect("send");
        // Refused at once (403), not cut after waiting for the rest (408).
        let (raw, _) = until_closed(s, sent);
        assert_eq!(status_of(&raw), Some(403), "{head:?}: {raw}");
        assert!(raw.contains("Connection: close"), "{raw}");
    }
    // The token holder's own connection is kept for the next request.
    let mut s = connect(&ui);
    let mut r = BufReader::new(s.try_clone().expect("clone"));
    for path in ["/api/changes", "/api/sessions", "/nowhere"] {
        write!(
            s,
            "GET {path}?token={} HTTP/1.1\r\nHost: {host}\r\n\r\n",
            ui.token
        )
        .expect("send");
        let (status, head, _) = read_answer(&mut r);
        let expected = if path == "/nowhere" { 404 } else { 200 };
        assert_eq!(status, expected, "{path}: {head}");
        assert!(!head.contains("Connection: close"), "{head}");
    }
    // HEAD: the head alone.
    write!(
        s,
        "HEAD /api/changes?token={} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n",
        ui.token
    )
    .expect("send");
    let (raw, _) = until_closed(s, Instant::now());
    assert_eq!(status_of(&raw), Some(200), "{raw}");
    assert!(raw.ends_with("\r\n\r\n"), "no body after a HEAD: {raw}");
}

#[test]
fn ui_refuses_oversized_heads_and_bodies() {
    let (_p, ui) = start();
    let host = ui.host();
    let with_token = format!("/api/sessions?token={}", ui.token);
    let big = format!("Cookie: a={}", "x".repeat(20_000));
    let reply = request(ui.port, "GET", &with_token, &host, &[&big]);
    assert_eq!(reply.status, 431, "{reply:?}");
    let many: Vec<String> = (0..150).map(|i| format!("X-Filler-{i}: y")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    assert_eq!(
        request(ui.port, "GET", &with_token, &host, &many).status,
        431
    );
    // A huge body announced with the token: refused without waiting for it.
    let mut s = connect(&ui);
    let sent = Instant::now();
    write!(
        s,
        "POST {with_token} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 1000000000\r\n\r\nx"
    )
    .expect("send");
    let (raw, _) = until_closed(s, sent);
    assert_eq!(status_of(&raw), Some(413), "{raw}");
    // A small body is read and dropped; the connection goes on.
    let mut s = connect(&ui);
    let mut r = BufReader::new(s.try_clone().expect("clone"));
    write!(
        s,
        "POST {with_token} HTTP/1.1\r\nHost: {host}\r\nContent-Length: 5\r\n\r\nhello\
         GET {with_token} HTTP/1.1\r\nHost: {host}\r\n\r\n"
    )
    .expect("send");
    assert_eq!(read_answer(&mut r).0, 405);
    let (status, _, body) = read_answer(&mut r);
    assert_eq!(status, 200);
    assert!(body.contains("\"sessions\""), "{body}");
    // A head that is not HTTP.
    let mut s = connect(&ui);
    s.write_all(b"HELLO\r\n\r\n").expect("send");
    let (raw, _) = until_closed(s, Instant::now());
    assert_eq!(status_of(&raw), Some(400), "{raw}");
}

#[test]
fn ui_keeps_serving_the_token_holder_through_a_flood_of_connections() {
    let (_p, ui) = start();
    // Far more idle connections than the server serves at once: the oldest without the
    // token make room for new ones.
    let flood: Vec<TcpStream> = (0..150).map(|_| connect(&ui)).collect();
    for _ in 0..5 {
        prompt_get(&ui, "/api/changes");
    }
    let more: Vec<TcpStream> = (0..100).map(|_| connect(&ui)).collect();
    prompt_get(&ui, "/api/sessions");
    drop((flood, more));
    prompt_get(&ui, "/api/changes");
}

/// Keeps `clients` connections open that send nothing, each opened again as soon as
/// the server closes it, until the returned flag is set; each thread counts its opens.
fn churn(ui: &UiServer, clients: usize) -> (Arc<AtomicBool>, Vec<thread::JoinHandle<usize>>) {
    let stop = Arc::new(AtomicBool::new(false));
    let port = ui.port;
    let threads = (0..clients)
        .map(|_| {
            let stop = Arc::clone(&stop);
            thread::Builder::new()
                .stack_size(64 * 1024)
                .spawn(move || {
                    let mut opened = 0;
                    let mut byte = [0u8; 1];
                    while !stop.load(Ordering::Relaxed) {
                        let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
                            continue;
                        };
                        opened += 1;
                        let _ = s.set_read_timeout(Some(Duration::from_millis(200)));
                        // Until the server closes it (or the test is over).
                        while !stop.load(Ordering::Relaxed) {
                            match s.read(&mut byte) {
                                Err(e)
                                    if matches!(
                                        e.kind(),
                                        ErrorKind::WouldBlock | ErrorKind::TimedOut
                                    ) => {}
                                _ => break,
                            }
                        }
                    }
                    opened
                })
                .expect("thread")
        })
        .collect();
    (stop, threads)
}

#[test]
fn ui_answers_every_request_of_the_token_holder_while_connections_churn() {
    let (_p, ui) = start();
    // More idle connections than the server keeps waiting for a head, each opened again
    // as soon as it is closed: the server must close some to make room, and the token
    // holder's new connections are never among them.
    let clients = 600;
    let (stop, threads) = churn(&ui, clients);
    thread::sleep(Duration::from_millis(500));
    for round in 0..30 {
        for path in ["/api/changes", "/api/sessions", "/"] {
            let reply = ui.get(path);
            assert_eq!(reply.status, 200, "round {round}, {path}: {reply:?}");
        }
    }
    stop.store(true, Ordering::Relaxed);
    let opened: usize = threads.into_iter().map(|t| t.join().expect("churn")).sum();
    assert!(
        opened > clients,
        "no connection was closed to make room ({opened} opened)"
    );
}

#[test]
fn ui_refuses_what_cannot_be_an_http_request_on_its_first_bytes() {
    let (_p, ui) = start();
    // A TLS greeting and binary noise: refused as they come, not waited on until the
    // head's deadline (which would answer 408).
    for greeting in [
        &[
            0x16, 0x03, 0x01, 0x00, 0x2e, 0x01, 0x00, 0x00, 0x2a, 0x03, 0x03,
        ][..],
        b"\x00\x01\x02",
        b"(GET / HTTP/1.1",
    ] {
        let mut s = connect(&ui);
        s.write_all(greeting).expect("send");
        let (raw, _) = until_closed(s, Instant::now());
        assert_eq!(status_of(&raw), Some(400), "{greeting:?}: {raw}");
    }
    // The HTTP/2 greeting names a version this server does not speak.
    let mut s = connect(&ui);
    s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .expect("send");
    let (raw, _) = until_closed(s, Instant::now());
    assert_eq!(status_of(&raw), Some(505), "{raw}");
}

#[test]
fn ui_refuses_requests_of_other_origins_pages_even_with_the_token() {
    let (_p, ui) = start();
    let host = ui.host();
    let port = ui.port;
    let target = format!("/api/sessions?token={}", ui.token);
    let status = |extra: &[&str]| request(ui.port, "GET", &target, &host, extra).status;
    // Another site's page, or another port's on this host (whose requests carry the
    // dashboard's cookie): refused.
    assert_eq!(status(&["Origin: http://evil.example"]), 403);
    assert_eq!(status(&["Origin: http://127.0.0.1:1"]), 403);
    assert_eq!(status(&["Origin: null"]), 403);
    assert_eq!(
        status(&["Sec-Fetch-Site: same-site", "Sec-Fetch-Mode: no-cors"]),
        403
    );
    assert_eq!(
        status(&["Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: cors"]),
        403
    );
    // Its own pages, a typed address, a link followed from elsewhere: served.
    assert_eq!(status(&[&format!("Origin: http://127.0.0.1:{port}")]), 200);
    assert_eq!(status(&[&format!("Origin: http://localhost:{port}")]), 200);
    assert_eq!(
        status(&["Sec-Fetch-Site: same-origin", "Sec-Fetch-Mode: cors"]),
        200
    );
    assert_eq!(status(&["Sec-Fetch-Site: none"]), 200);
    assert_eq!(
        status(&["Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: navigate"]),
        200
    );
}

/// Holds, from this process, write locks on every reader and writer byte of the WAL
/// index (`-shm`) while alive, as a stuck process could.
struct WalIndexLocked {
    _shm: std::fs::File,
}

impl WalIndexLocked {
    fn take(db: &std::path::Path) -> WalIndexLocked {
        use std::os::unix::io::AsRawFd;
        let shm = format!("{}-shm", db.display());
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&shm)
            .unwrap_or_else(|e| panic!("{shm}: {e}"));
        // SAFETY: a zeroed flock filled in and passed by pointer to fcntl on an open file.
        let mut lock: libc::flock = unsafe { std::mem::zeroed() };
        lock.l_type = libc::F_WRLCK.try_into().expect("F_WRLCK fits l_type");
        lock.l_whence = libc::SEEK_SET.try_into().expect("SEEK_SET fits l_whence");
        lock.l_start = 120;
        lock.l_len = 8;
        // The server's own reads hold read locks on these bytes for a moment: taken as
        // soon as they are free, as a process that then sticks would.
        let until = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            // SAFETY: a valid descriptor and a filled-in flock, as above.
            let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &lock) };
            if rc == 0 {
                break;
            }
            let e = std::io::Error::last_os_error();
            let busy = matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::EACCES));
            assert!(busy && std::time::Instant::now() < until, "lock {shm}: {e}");
            thread::sleep(Duration::from_millis(5));
        }
        WalIndexLocked { _shm: file }
    }
}

#[test]
fn ui_answers_in_time_while_another_process_locks_the_database_and_serves_again_after() {
    let (p, ui) = start();
    let before = ui.get("/api/changes");
    assert_eq!(before.status, 200);
    let locked = WalIndexLocked::take(&p.db_path());
    // What was read before is served again, marked stale with its age.
    let reply = ui.get("/api/changes");
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.body, before.body);
    assert!(
        reply
            .head
            .to_ascii_lowercase()
            .contains("x-nagger-stale-ms:"),
        "{reply:?}"
    );
    // What was never read is unavailable, and says why.
    for path in ["/api/sessions", "/api/stats"] {
        let reply = ui.get(path);
        assert_eq!(reply.status, 503, "{path}: {reply:?}");
        assert!(reply.body.contains("database unavailable"), "{reply:?}");
    }
    // What needs no database is served meanwhile.
    assert_eq!(ui.get("/").status, 200);
    assert_eq!(ui.get("/assets/app.js").status, 200);
    drop(locked);
    // The reads cut off end by themselves; then the database is read again.
    let mut status = 0;
    for _ in 0..100 {
        status = ui.get("/api/changes").status;
        if status == 200 {
            break;
        }
        thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(status, 200);
}

fn mkfifo(path: &std::path::Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).expect("path");
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

#[test]
fn ui_never_opens_a_fifo_in_place_of_the_database() {
    // At start: the dashboard comes up (no process can keep it from starting), opens
    // nothing there, and its API says why it cannot read the database.
    let p = Project::new();
    let db = p.root.join("fifo.db");
    mkfifo(&db);
    let ui = UiServer::start(p.command(&["ui", "--db", &db.display().to_string()]));
    for path in ["/api/changes", "/api/sessions"] {
        let reply = ui.get(path);
        assert_eq!(reply.status, 503, "{path}: {reply:?}");
        assert!(reply.body.contains("FIFO"), "{reply:?}");
    }
    assert_eq!(ui.get("/").status, 200);
    drop(ui);
    // Appearing later, where the database will be: the API says so, the page is served.
    let p = Project::new();
    let db = p.root.join("later.db");
    let mut cmd = p.command(&["ui", "--db", &db.display().to_string()]);
    cmd.current_dir(&p.root);
    let ui = UiServer::start(cmd);
    assert_eq!(ui.get("/api/changes").status, 200);
    mkfifo(&db);
    for path in [
        "/api/changes",
        "/api/sessions",
        "/api/context",
        "/api/rules",
    ] {
        let reply = ui.get(path);
        assert_eq!(reply.status, 503, "{path}: {reply:?}");
        assert!(reply.body.contains("FIFO"), "{reply:?}");
    }
    assert_eq!(ui.get("/").status, 200);
}

/// The threads of process `pid`.
fn threads_of(pid: u32) -> usize {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Threads:"))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// A lease another process holds on the database (which holds any other open of it for
/// the kernel's lease-break time) before the dashboard starts: its API says at once that
/// the database is unavailable, and polling it starts no thread that waits in `open`.
#[test]
fn a_lease_on_the_database_neither_holds_the_api_nor_piles_up_threads() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    // Leases are refused where another process has the file open, or on some file
    // systems: nothing to test there.
    let Some(lease) = write_lease(&p.db_path()) else {
        return;
    };
    let mut cmd = p.command(&["ui"]);
    cmd.current_dir(&p.root);
    let ui = UiServer::start(cmd);
    let started = threads_of(ui.pid());
    for _ in 0..40 {
        let asked = Instant::now();
        let reply = ui.get("/api/changes");
        assert_eq!(reply.status, 503, "{reply:?}");
        assert!(asked.elapsed() < Duration::from_secs(1));
    }
    assert_eq!(ui.get("/").status, 200);
    let now = threads_of(ui.pid());
    assert!(
        now <= started + 4,
        "threads: {started} at start, {now} after"
    );
    drop(lease);
}

/// The status of `GET path` with the token, or `None` when the connection failed.
fn try_get(ui: &UiServer, path: &str) -> Option<u16> {
    let mut s = TcpStream::connect(("127.0.0.1", ui.port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let req = format!(
        "GET {path}?token={} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
        ui.token, ui.port
    );
    s.write_all(req.as_bytes()).ok()?;
    let mut raw = String::new();
    s.read_to_string(&mut raw).ok()?;
    status_of(&raw)
}

/// Another process truncating the database's shared-memory file (which SQLite maps)
/// ends the process reading it on its next read (`SIGBUS`): the dashboard's server is
/// started again at once on the same address and token, and the page keeps working.
#[test]
fn a_truncated_shared_memory_file_does_not_end_the_dashboard() {
    let (p, ui) = start();
    assert_eq!(try_get(&ui, "/api/sessions"), Some(200));
    let shm = p.root.join(".claude-nagger/state.db-shm");
    for _ in 0..3 {
        if let Ok(f) = std::fs::OpenOptions::new().write(true).open(&shm) {
            f.set_len(0).expect("truncate");
        }
        // A request or two may be lost while the server starts again.
        let until = Instant::now() + Duration::from_secs(10);
        let mut in_a_row = 0;
        while in_a_row < 3 && Instant::now() < until {
            p.hook(&p.pre_tool_use("Bash", serde_json::json!({"command": "ls"})));
            match try_get(&ui, "/api/sessions") {
                Some(200) => in_a_row += 1,
                _ => in_a_row = 0,
            }
        }
        assert_eq!(in_a_row, 3, "the dashboard did not come back");
    }
    // SAFETY: asks whether the started process is still there.
    assert_eq!(unsafe { libc::kill(ui.started_pid().cast_signed(), 0) }, 0);
}

/// The process holding a lock that conflicts with a write lock on byte 128 of `shm`
/// (the WAL index's "DMS" byte every open connection holds a read lock on), if any.
fn dms_holder(shm: &std::path::Path) -> Option<i32> {
    use std::os::fd::AsRawFd;
    let file = std::fs::File::open(shm).ok()?;
    // SAFETY: a plain flock struct passed by pointer to fcntl on an open descriptor.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = libc::F_WRLCK.try_into().expect("fits");
    lock.l_whence = libc::SEEK_SET.try_into().expect("fits");
    lock.l_start = 128;
    lock.l_len = 1;
    // SAFETY: as above.
    let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLK, &raw mut lock) };
    (rc == 0 && i32::from(lock.l_type) != libc::F_UNLCK).then_some(lock.l_pid)
}

/// The dashboard's open connections keep their read lock on the database's index from
/// one request to the next (a descriptor it closed in between would give up every lock
/// the process holds on the file), so a hook never takes itself for the index's only user
/// and truncates it under the dashboard's mapping.
#[test]
fn the_dashboard_keeps_its_lock_on_the_database_index_between_requests() {
    let (p, ui) = start();
    let shm = p.root.join(".claude-nagger/state.db-shm");
    let server = i32::try_from(ui.pid()).expect("a pid");
    for k in 0..5 {
        assert_eq!(try_get(&ui, "/api/sessions"), Some(200), "request {k}");
        p.hook(&p.pre_tool_use("Bash", serde_json::json!({"command": "ls"})));
        assert_eq!(dms_holder(&shm), Some(server), "after request {k}");
    }
}

/// Opens a connection that sends the token holder's keep-alive request for `path`.
fn ask_kept_alive(ui: &UiServer, path: &str) -> Option<BufReader<TcpStream>> {
    let mut s = TcpStream::connect(("127.0.0.1", ui.port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        s,
        "GET {path}?token={} HTTP/1.1\r\nHost: {}\r\n\r\n",
        ui.token,
        ui.host()
    )
    .ok()?;
    Some(BufReader::new(s))
}

/// A process that holds the token and more kept-alive connections than the dashboard
/// serves at once, each asking again and again (and opened again once closed), cannot
/// lock the user's own requests out: a connection that waits longest for its next
/// request makes room. Nor does it pile up threads.
#[test]
fn a_token_holder_with_many_busy_connections_cannot_lock_the_user_out() {
    let (_p, ui) = start();
    let stop = Arc::new(AtomicBool::new(false));
    let held = 100;
    let chatter = {
        let stop = Arc::clone(&stop);
        let (port, token, host) = (ui.port, ui.token.clone(), ui.host());
        thread::spawn(move || {
            let request =
                format!("GET /api/changes?token={token} HTTP/1.1\r\nHost: {host}\r\n\r\n");
            let open = || {
                let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
                s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
                s.write_all(request.as_bytes()).ok()?;
                Some(BufReader::new(s))
            };
            let mut conns: Vec<Option<BufReader<TcpStream>>> = (0..held).map(|_| open()).collect();
            let mut reopened = 0;
            while !stop.load(Ordering::Relaxed) {
                for conn in &mut conns {
                    let alive = conn.as_mut().is_some_and(|r| {
                        let mut head = String::new();
                        let mut line = String::new();
                        while r.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                            head.push_str(&line);
                            line.clear();
                        }
                        let len = head
                            .lines()
                            .find_map(|l| l.strip_prefix("Content-Length: "))
                            .and_then(|n| n.trim().parse::<usize>().ok());
                        let mut body = vec![0; len.unwrap_or(0)];
                        len.is_some()
                            && r.read_exact(&mut body).is_ok()
                            && r.get_mut().write_all(request.as_bytes()).is_ok()
                    });
                    if !alive {
                        reopened += 1;
                        *conn = open();
                    }
                }
            }
            reopened
        })
    };
    thread::sleep(Duration::from_millis(500));
    let threads_before = threads_of(ui.pid());
    for round in 0..20 {
        let mut r = ask_kept_alive(&ui, "/api/changes").expect("connect");
        let (status, head, _) = read_answer(&mut r);
        assert_eq!(status, 200, "round {round}: {head}");
        thread::sleep(Duration::from_millis(50));
    }
    let threads_after = threads_of(ui.pid());
    stop.store(true, Ordering::Relaxed);
    let reopened = chatter.join().expect("chatter");
    assert!(
        reopened > 0,
        "no connection of the holder's was closed to make room"
    );
    assert!(
        threads_before.max(threads_after) < 2 * 64 + 16,
        "threads: {threads_before}, {threads_after}"
    );
}

/// The `tasks` table put aside and a view that never ends in its place.
const ENDLESS_TASKS: &str = "ALTER TABLE tasks RENAME TO tasks_kept; CREATE VIEW tasks AS \
     WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x AS id, 'r' AS \
     role, 't' AS title, NULL AS description, 'open' AS status, 0 AS created_at, NULL AS \
     done_at FROM r;";

/// A table swapped for a view that never ends holds no connection for ever: the read
/// that outlives its time is ended, and once the table is back the page reads it again.
#[test]
fn a_read_that_never_ends_is_stopped_and_the_dashboard_reads_again_after() {
    let (p, ui) = start();
    assert_eq!(ui.get("/api/tasks").status, 200);
    p.db()
        .execute_batch(ENDLESS_TASKS)
        .expect("swap in the view");
    let fresh = |reply: &crate::common::ui_client::Reply| {
        reply.status == 200
            && !reply
                .head
                .to_ascii_lowercase()
                .contains("x-nagger-stale-ms")
    };
    // More reads than run at once, each ending in time: none holds a connection for ever.
    for _ in 0..12 {
        let reply = ui.get("/api/tasks");
        assert!(!fresh(&reply), "{reply:?}");
    }
    p.db()
        .execute_batch("DROP VIEW tasks; ALTER TABLE tasks_kept RENAME TO tasks;")
        .expect("put the table back");
    // The reads cut off end by themselves within their time; then the page reads again.
    let mut read_again = false;
    for _ in 0..100 {
        if fresh(&ui.get("/api/tasks")) {
            read_again = true;
            break;
        }
        thread::sleep(Duration::from_millis(200));
    }
    assert!(read_again, "the dashboard never read the table again");
}

/// Every table put aside and a view that never ends in its place, column for column.
fn endless_tables(p: &Project) {
    let db = p.db();
    let tables: Vec<String> = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .expect("tables")
        .query_map([], |r| r.get(0))
        .expect("query")
        .map(|r| r.expect("name"))
        .collect();
    for table in tables {
        let columns: Vec<String> = db
            .prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
            .expect("columns")
            .query_map([], |r| r.get(0))
            .expect("query")
            .map(|r| r.expect("column"))
            .collect();
        let select: Vec<String> = columns.iter().map(|c| format!("x AS \"{c}\"")).collect();
        db.execute_batch(&format!(
            "ALTER TABLE \"{table}\" RENAME TO \"{table}_kept\"; CREATE VIEW \"{table}\" AS \
             WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT {} FROM r;",
            select.join(", ")
        ))
        .expect("swap in the view");
    }
}

/// The commands a user runs when something is wrong (`doctor`) and those that list what
/// the database holds end on a database whose every table is a view that never ends,
/// instead of hanging.
#[test]
fn commands_end_on_a_database_whose_tables_never_end() {
    let (p, _ui) = start();
    endless_tables(&p);
    for args in [
        &["doctor"][..],
        &["sessions"],
        &["task", "list"],
        &["stats"],
    ] {
        let mut child = p
            .command(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("nagger");
        let mut ended = None;
        for _ in 0..600 {
            if let Some(status) = child.try_wait().expect("wait") {
                ended = Some(status);
                break;
            }
            thread::sleep(Duration::from_millis(100));
        }
        if ended.is_none() {
            let _ = child.kill();
        }
        assert!(ended.is_some(), "{args:?} still runs after a minute");
    }
}

/// Raises this test process's own limit of open files, for the connections it holds.
fn raise_own_open_files(to: u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit with a valid pointer to a local struct.
    unsafe {
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit), 0);
        limit.rlim_cur = limit.rlim_max.min(to).max(limit.rlim_cur);
        libc::setrlimit(libc::RLIMIT_NOFILE, &raw const limit);
    }
}

#[test]
fn connections_without_the_token_cannot_use_up_a_low_limit_of_open_files() {
    use std::os::unix::process::CommandExt as _;
    raise_own_open_files(8192);
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    let mut cmd = p.command(&["ui"]);
    cmd.current_dir(&p.root);
    // `ulimit -n 256` in the user's shell: the soft limit low, the hard one not.
    // SAFETY: only setrlimit, async-signal-safe, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let mut limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit);
            limit.rlim_cur = 256.min(limit.rlim_max);
            libc::setrlimit(libc::RLIMIT_NOFILE, &raw const limit);
            Ok(())
        });
    }
    let ui = UiServer::start(cmd);
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", ui.pid())).expect("limits");
    let soft: u64 = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|v| v.parse().ok())
        .expect("the open files limit");
    assert!(soft > 256, "the dashboard raises its soft limit: {limits}");
    // Idle connections without the token, more than the low limit would have held,
    // kept open while the user asks.
    let mut idle = Vec::new();
    for _ in 0..1200 {
        match TcpStream::connect(("127.0.0.1", ui.port)) {
            Ok(s) => idle.push(s),
            Err(_) => break,
        }
    }
    assert!(idle.len() > 600, "the idle connections were made");
    for _ in 0..3 {
        prompt_get(&ui, "/api/sessions");
        prompt_get(&ui, "/api/changes");
    }
    drop(idle);
}
