//! A client of `nagger ui` for the tests and the benches: starts the server, reads the
//! address it prints, and speaks plain HTTP/1.1 over `TcpStream`.

#![allow(dead_code)]

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `nagger ui`, stopped when dropped.
pub struct UiServer {
    child: Child,
    /// Kept open: the server may still be printing.
    _stdout: BufReader<std::process::ChildStdout>,
    pub port: u16,
    pub token: String,
}

impl UiServer {
    /// The id of the process that serves: the child the started process runs the
    /// server in (it stays to start it again after a fault), or that process itself.
    pub fn pid(&self) -> u32 {
        let parent = self.child.id();
        for _ in 0..200 {
            let children =
                std::fs::read_to_string(format!("/proc/{parent}/task/{parent}/children"))
                    .unwrap_or_default();
            if let Some(pid) = children
                .split_whitespace()
                .next()
                .and_then(|p| p.parse().ok())
            {
                return pid;
            }
            if !Path::new("/proc/self/task").exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        parent
    }

    /// The id of the process started, which serves through its child.
    pub fn started_pid(&self) -> u32 {
        self.child.id()
    }

    /// Starts `nagger ui` (`cmd`, its arguments given) and reads the address it prints.
    pub fn start(mut cmd: Command) -> UiServer {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start nagger ui");
        let mut line = String::new();
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        stdout.read_line(&mut line).expect("read the address");
        let url = line
            .trim()
            .strip_prefix("nagger ui: http://127.0.0.1:")
            .unwrap_or_else(|| panic!("address line: {line:?}"));
        let (port, token) = url.split_once("/#token=").expect("port and token");
        UiServer {
            child,
            _stdout: stdout,
            port: port.parse().expect("port"),
            token: token.to_string(),
        }
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The address of a page as a person opens it: the token in the fragment.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}#token={}", self.host(), self.token)
    }

    /// GET `path` with the token in the query.
    pub fn get(&self, path: &str) -> Reply {
        let sep = if path.contains('?') { '&' } else { '?' };
        let target = format!("{path}{sep}token={}", self.token);
        request(self.port, "GET", &target, &self.host(), &[])
    }

    pub fn json(&self, path: &str) -> Value {
        let reply = self.get(path);
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
        serde_json::from_str(&reply.body).unwrap_or_else(|e| panic!("{path}: {e}: {}", reply.body))
    }
}

impl Drop for UiServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub head: String,
    pub body: String,
}

/// One HTTP/1.1 request on a fresh connection, read to the end.
pub fn request(port: u16, method: &str, target: &str, host: &str, extra: &[&str]) -> Reply {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut req = format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for h in extra {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    stream.write_all(req.as_bytes()).expect("send");
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .unwrap_or_else(|e| panic!("{method} {target} (Host {host:?}): {e}"));
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").expect("a response head");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("status line: {head}"));
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        unchunk(body)
    } else {
        body.to_string()
    };
    Reply {
        status,
        head: head.to_string(),
        body,
    }
}

fn unchunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).expect("chunk size");
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

/// Runs `nagger demo --keep` (`cmd`: nagger, with its environment) and returns the kept
/// project's root and database: a whole multi-agent session played by real hook runs.
pub fn kept_demo(mut cmd: Command) -> (PathBuf, PathBuf) {
    let out = cmd
        .args(["demo", "--keep"])
        .output()
        .expect("run nagger demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let kept = stdout
        .lines()
        .find_map(|l| l.strip_prefix("project kept at "))
        .expect("the kept path is printed");
    let root = Path::new(kept).to_path_buf();
    let db = root.join(".claude-nagger/state.db");
    assert!(db.is_file(), "{stdout}");
    (root, db)
}
