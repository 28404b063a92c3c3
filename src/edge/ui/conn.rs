//! One connection of the dashboard, bounded in time and size. The listener reads each
//! connection's first request head (within [`HEAD_TIME`] and [`MAX_HEAD`]) and admits or
//! refuses it on the head alone; an admitted connection is served here, on a thread of
//! its own: a small body is read and dropped within a deadline, an oversized or unsized
//! one refused or never read; later requests are admitted the same way, the wait for each
//! and their number capped; every answer is written within a deadline, so a client that
//! does not read its answers is cut off.

use super::http::{self, Answer, Request};
use std::fmt::Write as _;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Most bytes of a request's line and headers.
pub const MAX_HEAD: usize = 16 * 1024;
/// Most header lines of a request.
pub const MAX_HEADERS: usize = 100;
/// Time from a connection's opening to the end of its first request's head, and from
/// the first byte of a later request to the end of its head.
pub const HEAD_TIME: Duration = Duration::from_secs(5);
/// Time an open connection may wait for its next request.
pub const IDLE_TIME: Duration = Duration::from_secs(5);
/// Largest body an admitted request may announce (it is read and dropped: the dashboard
/// only reads).
pub const MAX_BODY: u64 = 64 * 1024;
/// Time to receive that body.
pub const BODY_TIME: Duration = Duration::from_secs(5);
/// Time to write one answer.
pub const WRITE_TIME: Duration = Duration::from_secs(5);
/// Requests answered on one connection before it is closed.
pub const MAX_REQUESTS: usize = 100;
/// After the last answer, the client's further input is read and dropped for this long
/// (and this much at most), so that closing does not reset the connection before the
/// client has read the answer.
pub const LINGER_TIME: Duration = Duration::from_millis(500);
pub const LINGER_BYTES: usize = 256 * 1024;
/// Bytes read from the socket at a time.
pub const CHUNK: usize = 4096;

/// What answers the requests of a connection.
pub trait Handler: Send + Sync + 'static {
    /// What an admitted request carries from its admission to its answer.
    type Pass: Send;
    /// Decides on the head alone whether the request is answered; the refusal is sent
    /// and the connection closed, its body never read.
    fn admit(&self, request: &Request) -> Result<Self::Pass, Answer>;
    /// The answer to an admitted request.
    fn answer(self: &Arc<Self>, request: &Request, pass: Self::Pass) -> Answer;
}

/// Serves an admitted connection until it closes, breaks a limit or idles: `request`
/// (admitted with `pass`) first, then those that follow. `buf`: what the client sent
/// after that request's head.
pub fn serve_admitted<H: Handler>(
    stream: TcpStream,
    buf: Vec<u8>,
    request: Request,
    pass: H::Pass,
    handler: &Arc<H>,
    waiting: &dyn Fn(bool),
) {
    let mut conn = Conn { stream, buf };
    // A client that went away or broke a limit is not the server's problem.
    let _ = conn.serve(handler, (request, pass), waiting);
}

/// What came in where a request's head was awaited.
pub enum Head {
    Request(Request),
    /// Closed, or nothing came in time.
    Gone,
    /// Answered with this, then the connection is closed.
    Refused(Answer),
}

/// How an admitted request's body is framed.
enum Body {
    None,
    Length(u64),
    /// `Transfer-Encoding`: never read; the connection is closed after the answer.
    Unsized,
}

struct Conn {
    stream: TcpStream,
    /// Bytes received and not yet used: the start of the next request's head, or more.
    buf: Vec<u8>,
}

impl Conn {
    fn serve<H: Handler>(
        &mut self,
        handler: &Arc<H>,
        first: (Request, H::Pass),
        waiting: &dyn Fn(bool),
    ) -> io::Result<()> {
        let mut admitted = Some(first);
        for n in 1..=MAX_REQUESTS {
            let (request, pass) = if let Some(first) = admitted.take() {
                first
            } else {
                waiting(true);
                let head = self.read_head(Instant::now() + IDLE_TIME)?;
                waiting(false);
                let request = match head {
                    Head::Request(request) => request,
                    Head::Gone => return Ok(()),
                    Head::Refused(answer) => return self.last(&answer, false),
                };
                match handler.admit(&request) {
                    Ok(pass) => (request, pass),
                    Err(refusal) => return self.last(&refusal, request.method == "HEAD"),
                }
            };
            let head_only = request.method == "HEAD";
            let mut close = n == MAX_REQUESTS || wants_close(&request);
            match body_of(&request) {
                Err(bad) => return self.last(&bad, head_only),
                Ok(Body::None) => {}
                Ok(Body::Length(len)) if len > MAX_BODY => {
                    let refusal = http::text(
                        413,
                        &format!("A request body may hold {MAX_BODY} bytes at most."),
                    );
                    return self.last(&refusal, head_only);
                }
                // The client waits for a go-ahead it never gets: the body is never read.
                Ok(Body::Length(_)) if expects_continue(&request) => close = true,
                Ok(Body::Length(len)) => {
                    if !self.skip(len, Instant::now() + BODY_TIME)? {
                        return Ok(());
                    }
                }
                Ok(Body::Unsized) => close = true,
            }
            let answer = handler.answer(&request, pass);
            self.write(&answer, head_only, close)?;
            if close {
                return self.linger();
            }
        }
        Ok(())
    }

    /// Reads the next request's head. Its first byte must come by `first_byte_by`, the
    /// whole head within [`HEAD_TIME`] of its first byte.
    fn read_head(&mut self, first_byte_by: Instant) -> io::Result<Head> {
        let mut deadline = first_byte_by;
        let mut started = false;
        let mut scanned = 0;
        loop {
            if !started {
                skip_blank_lines(&mut self.buf);
                if !self.buf.is_empty() {
                    started = true;
                    deadline = Instant::now() + HEAD_TIME;
                }
            }
            if let Some(head) = take_head(&mut self.buf, &mut scanned) {
                return Ok(head);
            }
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return Ok(if started { too_slow() } else { Head::Gone });
            };
            if !self.fill(left)? {
                return Ok(Head::Gone);
            }
        }
    }

    /// Reads what comes within `left` into the buffer; false when the client closed.
    fn fill(&mut self, left: Duration) -> io::Result<bool> {
        let mut chunk = [0u8; CHUNK];
        match self.read_within(&mut chunk, left)? {
            Some(0) => Ok(false),
            Some(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(true)
            }
            None => Ok(true),
        }
    }

    /// One read waiting `left` at most: `None` when nothing came in time.
    fn read_within(&mut self, chunk: &mut [u8], left: Duration) -> io::Result<Option<usize>> {
        if left.is_zero() {
            return Ok(None);
        }
        self.stream.set_read_timeout(Some(left))?;
        match self.stream.read(chunk) {
            Ok(n) => Ok(Some(n)),
            Err(e) if timed_out(&e) || e.kind() == io::ErrorKind::Interrupted => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Reads and drops a body of `len` bytes by `deadline`; false when it did not come.
    fn skip(&mut self, len: u64, deadline: Instant) -> io::Result<bool> {
        let buffered = usize::try_from(len).map_or(self.buf.len(), |l| l.min(self.buf.len()));
        self.buf.drain(..buffered);
        let mut left = len - buffered as u64;
        let mut chunk = [0u8; CHUNK];
        while left > 0 {
            let Some(time) = deadline.checked_duration_since(Instant::now()) else {
                return Ok(false);
            };
            match self.read_within(&mut chunk, time)? {
                Some(0) => return Ok(false),
                Some(n) => {
                    let n = n as u64;
                    if n > left {
                        // The next request's start, pipelined behind the body.
                        let used = usize::try_from(left).unwrap_or(0);
                        self.buf
                            .extend_from_slice(&chunk[used..usize::try_from(n).unwrap_or(0)]);
                        left = 0;
                    } else {
                        left -= n;
                    }
                }
                None => {}
            }
        }
        Ok(true)
    }

    /// Writes `answer` (its head only for HEAD) within [`WRITE_TIME`].
    fn write(&mut self, answer: &Answer, head_only: bool, close: bool) -> io::Result<()> {
        let bytes = render(answer, head_only, close);
        let deadline = Instant::now() + WRITE_TIME;
        let mut rest = &bytes[..];
        while !rest.is_empty() {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return Err(io::ErrorKind::TimedOut.into());
            };
            if left.is_zero() {
                return Err(io::ErrorKind::TimedOut.into());
            }
            self.stream.set_write_timeout(Some(left))?;
            match self.stream.write(&rest[..rest.len().min(64 * 1024)]) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(n) => rest = &rest[n..],
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        self.stream.flush()
    }

    /// Sends `answer` as the connection's last.
    fn last(&mut self, answer: &Answer, head_only: bool) -> io::Result<()> {
        self.write(answer, head_only, true)?;
        self.linger()
    }

    /// Ends the sending side, then drops what the client still sends for a moment.
    fn linger(&mut self) -> io::Result<()> {
        self.stream.shutdown(Shutdown::Write)?;
        let deadline = Instant::now() + LINGER_TIME;
        let mut chunk = [0u8; CHUNK];
        let mut dropped = 0;
        while dropped < LINGER_BYTES {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break;
            };
            match self.read_within(&mut chunk, left)? {
                Some(0) | None => break,
                Some(n) => dropped += n,
            }
        }
        Ok(())
    }
}

/// An answer's bytes on the wire: status line, headers with the framing ones, and the
/// body unless `head_only`.
pub fn render(answer: &Answer, head_only: bool, close: bool) -> Vec<u8> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        answer.status,
        http::reason(answer.status)
    );
    for (name, value) in &answer.headers {
        head.push_str(name);
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
    }
    let _ = write!(
        head,
        "Content-Length: {}\r\nDate: {}\r\n",
        answer.body.len(),
        chrono::Utc::now().format("%a, %d %b %Y %H:%M:%S GMT")
    );
    if close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    if !head_only {
        bytes.extend_from_slice(&answer.body);
    }
    bytes
}

/// The refusal of a head that did not come whole in time.
pub fn too_slow() -> Head {
    Head::Refused(http::text(408, "The request came too slowly."))
}

pub fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// Drops the empty lines a client may send before a request line.
pub fn skip_blank_lines(buf: &mut Vec<u8>) {
    let blank = buf
        .iter()
        .take_while(|b| matches!(b, b'\r' | b'\n'))
        .count();
    buf.drain(..blank);
}

/// The head at the start of `buf`, taken out of it once it is whole (`scanned`: how far
/// earlier calls looked for its end); a refusal when it is too large or cannot be the
/// start of a request; `None` while more of it may come.
pub fn take_head(buf: &mut Vec<u8>, scanned: &mut usize) -> Option<Head> {
    if let Some(end) = head_end(buf, *scanned) {
        let head: Vec<u8> = buf.drain(..end).collect();
        *scanned = 0;
        return Some(parse_head(&head));
    }
    *scanned = buf.len().saturating_sub(2);
    if buf.len() >= MAX_HEAD {
        return Some(Head::Refused(http::text(
            431,
            &format!("A request's line and headers may hold {MAX_HEAD} bytes at most."),
        )));
    }
    if !could_start_a_request(buf) {
        return Some(bad_request(
            "the request line is not `METHOD target HTTP/1.1`",
        ));
    }
    None
}

/// Whether the bytes so far can still begin a request line: a method of token characters
/// up to the first space. A TLS or HTTP/2 greeting, or any binary noise, is refused on
/// its first bytes rather than waited on.
fn could_start_a_request(buf: &[u8]) -> bool {
    let method = buf.iter().position(|&b| b == b' ').unwrap_or(buf.len());
    buf[..method].iter().all(|&b| is_tchar(b)) && (method > 0 || buf.is_empty())
}

fn bad_request(what: &str) -> Head {
    Head::Refused(http::text(400, &format!("Bad request: {what}.")))
}

fn head_end(buf: &[u8], from: usize) -> Option<usize> {
    (from..buf.len()).find_map(|i| {
        if buf[i] != b'\n' {
            return None;
        }
        match (buf.get(i + 1), buf.get(i + 2)) {
            (Some(b'\n'), _) => Some(i + 2),
            (Some(b'\r'), Some(b'\n')) => Some(i + 3),
            _ => None,
        }
    })
}

/// The characters allowed in methods and header names (RFC 9110 `tchar`).
fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(is_tchar)
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn parse_head(head: &[u8]) -> Head {
    let bad = bad_request;
    let Ok(text) = std::str::from_utf8(head) else {
        return bad("the head is not text");
    };
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (Some(method), Some(url), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return bad("the request line is not `METHOD target HTTP/1.1`");
    };
    if !is_token(method) || url.is_empty() || url.bytes().any(|b| b.is_ascii_control()) {
        return bad("the request line is not `METHOD target HTTP/1.1`");
    }
    let http_1_0 = match version {
        "HTTP/1.1" => false,
        "HTTP/1.0" => true,
        v if v.starts_with("HTTP/") => {
            return Head::Refused(http::text(505, "Only HTTP/1.1 and HTTP/1.0."));
        }
        _ => return bad("the request line is not `METHOD target HTTP/1.1`"),
    };
    let mut headers = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        if line.starts_with([' ', '\t']) {
            return bad("folded header lines are not accepted");
        }
        let Some((name, value)) = line.split_once(':') else {
            return bad("a header line has no colon");
        };
        if !is_token(name) {
            return bad("a header name is not a token");
        }
        if headers.len() == MAX_HEADERS {
            return Head::Refused(http::text(
                431,
                &format!("A request may carry {MAX_HEADERS} headers at most."),
            ));
        }
        headers.push((name.to_string(), value.trim().to_string()));
    }
    Head::Request(Request {
        method: method.to_string(),
        url: url.to_string(),
        http_1_0,
        headers,
    })
}

fn has_token(request: &Request, header: &str, token: &str) -> bool {
    request
        .headers_named(header)
        .flat_map(|v| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case(token))
}

fn wants_close(request: &Request) -> bool {
    has_token(request, "Connection", "close")
        || (request.http_1_0 && !has_token(request, "Connection", "keep-alive"))
}

fn expects_continue(request: &Request) -> bool {
    has_token(request, "Expect", "100-continue")
}

fn body_of(request: &Request) -> Result<Body, Answer> {
    if request.headers_named("Transfer-Encoding").next().is_some() {
        return Ok(Body::Unsized);
    }
    let mut len = None;
    for value in request.headers_named("Content-Length") {
        let n = value
            .parse::<u64>()
            .ok()
            .filter(|_| value.bytes().all(|b| b.is_ascii_digit()))
            .filter(|n| len.is_none_or(|l| l == *n))
            .ok_or_else(|| http::text(400, "Bad request: an invalid Content-Length."))?;
        len = Some(n);
    }
    Ok(match len {
        None | Some(0) => Body::None,
        Some(n) => Body::Length(n),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(head: &str) -> Request {
        match parse_head(head.as_bytes()) {
            Head::Request(r) => r,
            Head::Gone => panic!("gone"),
            Head::Refused(a) => panic!("refused {}", a.status),
        }
    }

    fn refused(head: &[u8]) -> u16 {
        match parse_head(head) {
            Head::Refused(a) => a.status,
            _ => 0,
        }
    }

    #[test]
    fn heads_end_at_their_blank_line() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\n\r\nGET", 0), Some(18));
        assert_eq!(head_end(b"GET / HTTP/1.1\n\nx", 0), Some(16));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: a\r\n", 0), None);
        assert_eq!(head_end(b"GET / HTTP/1.1\r\n\r", 0), None);
    }

    #[test]
    fn heads_are_taken_whole_and_non_http_refused_on_its_first_bytes() {
        let status = |bytes: &[u8]| {
            let mut buf = bytes.to_vec();
            match take_head(&mut buf, &mut 0) {
                None => 0,
                Some(Head::Refused(a)) => a.status,
                Some(_) => 200,
            }
        };
        assert_eq!(status(b""), 0);
        assert_eq!(status(b"GE"), 0);
        assert_eq!(status(b"GET /a HTTP/1.1\r\nHost: x\r\n"), 0);
        assert_eq!(status(b"GET /a HTTP/1.1\r\n\r\n"), 200);
        assert_eq!(status(b"\x16\x03\x01"), 400);
        assert_eq!(status(b"G(ET"), 400);
        assert_eq!(status(b" GET"), 400);
        assert_eq!(status(&vec![b'A'; MAX_HEAD]), 431);
        let mut buf = b"GET / HTTP/1.1\r\n\r\nGET /next".to_vec();
        assert!(matches!(
            take_head(&mut buf, &mut 0),
            Some(Head::Request(_))
        ));
        assert_eq!(buf, b"GET /next");
    }

    #[test]
    fn heads_are_parsed_and_bad_ones_refused() {
        let r = parsed("GET /a?b=c HTTP/1.1\r\nHost: x\r\nCookie:  k=v \r\n\r\n");
        assert_eq!(r.method, "GET");
        assert_eq!(r.url, "/a?b=c");
        assert!(!r.http_1_0);
        assert_eq!(r.headers_named("host").collect::<Vec<_>>(), ["x"]);
        assert_eq!(r.headers_named("COOKIE").collect::<Vec<_>>(), ["k=v"]);
        assert!(parsed("GET / HTTP/1.0\r\n\r\n").http_1_0);
        assert_eq!(refused(b"GET /\r\n\r\n"), 400);
        assert_eq!(refused(b"GET  / HTTP/1.1\r\n\r\n"), 400);
        assert_eq!(refused(b"GET / HTTP/2.0\r\n\r\n"), 505);
        assert_eq!(refused(b"GET / HTTP/1.1\r\nHost\r\n\r\n"), 400);
        assert_eq!(refused(b"GET / HTTP/1.1\r\n folded\r\n\r\n"), 400);
        assert_eq!(refused(b"GET / HTTP/1.1\r\nHo st: x\r\n\r\n"), 400);
        assert_eq!(refused(b"GET /\xff HTTP/1.1\r\n\r\n"), 400);
        let many = format!(
            "GET / HTTP/1.1\r\n{}\r\n",
            "A: b\r\n".repeat(MAX_HEADERS + 1)
        );
        assert_eq!(refused(many.as_bytes()), 431);
    }

    #[test]
    fn bodies_and_connection_wishes_are_read_from_the_head() {
        let body = |h: &str| body_of(&parsed(h));
        assert!(matches!(body("POST / HTTP/1.1\r\n\r\n"), Ok(Body::None)));
        assert!(matches!(
            body("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n"),
            Ok(Body::None)
        ));
        assert!(matches!(
            body("POST / HTTP/1.1\r\nContent-Length: 12\r\nContent-Length: 12\r\n\r\n"),
            Ok(Body::Length(12))
        ));
        assert!(matches!(
            body("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"),
            Ok(Body::Unsized)
        ));
        for bad in ["-1", "+5", "1 2", "", "99999999999999999999999"] {
            let head = format!("POST / HTTP/1.1\r\nContent-Length: {bad}\r\n\r\n");
            assert!(body(&head).is_err(), "{bad:?}");
        }
        assert!(body("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n").is_err());
        assert!(wants_close(&parsed(
            "GET / HTTP/1.1\r\nConnection: Close\r\n\r\n"
        )));
        assert!(!wants_close(&parsed("GET / HTTP/1.1\r\n\r\n")));
        assert!(wants_close(&parsed("GET / HTTP/1.0\r\n\r\n")));
        assert!(!wants_close(&parsed(
            "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
        )));
        assert!(expects_continue(&parsed(
            "POST / HTTP/1.1\r\nExpect: 100-Continue\r\n\r\n"
        )));
    }
}
