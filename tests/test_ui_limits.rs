//! `nagger ui` cannot be held up by another local process: slow, idle, pipelining,
//! oversized and token-less clients are cut off within bounded time while the token
//! holder's requests keep being answered promptly. Everything talks to 127.0.0.1 only.

use crate::common::ui_client::{UiServer, request};
use crate::common::*;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

/// What a token holder's request may take while others misbehave.
const PROMPT: Duration = Duration::from_secs(2);
/// Misbehaving connections of each kind at once.
const N: usize = 8;
/// How long the server may keep a misbehaving connection (its limits are 5 s, plus a
/// margin for a loaded machine).
const CUT_OFF: Duration = Duration::from_secs(9);

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

/// The token holder's request, answered correctly and promptly.
fn prompt_get(ui: &UiServer, path: &str) {
    let started = Instant::now();
    let reply = ui.get(path);
    let took = started.elapsed();
    assert_eq!(reply.status, 200, "{path}: {reply:?}");
    assert!(took < PROMPT, "{path} took {took:?}");
}

/// Keeps the token holder asking for `period`, every answer prompt.
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
    for s in slow {
        let (raw, closed) = until_closed(s, started);
        assert!(closed < CUT_OFF, "held for {closed:?}: {raw}");
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
    for (s, writer) in pipelines {
        let (raw, closed) = until_closed(s, started);
        assert!(closed < CUT_OFF, "held for {closed:?}");
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
        let (raw, closed) = until_closed(s, sent);
        assert!(closed < PROMPT, "open for {closed:?}: {head:?}");
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
    let (raw, closed) = until_closed(s, sent);
    assert_eq!(status_of(&raw), Some(413), "{raw}");
    assert!(closed < PROMPT, "{closed:?}");
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
