//! The small pieces of HTTP the dashboard speaks: a request's head, an answer, the request
//! target and its query, the loopback Host check, the token compared in constant time.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Read;

/// A request's head as the client sent it (its body, if any, is never kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// The request target as sent: path and query, still encoded.
    pub url: String,
    /// HTTP/1.0 (closes after one answer unless it asks to keep the connection).
    pub http_1_0: bool,
    /// Names and values in the order sent, values trimmed.
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// The values of every header called `name` (any case).
    pub fn headers_named<'r>(&'r self, name: &'r str) -> impl Iterator<Item = &'r str> + 'r {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A whole answer: status, headers, body. Framing headers (`Content-Length`, `Date`,
/// `Connection`) are added when it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn add_header(&mut self, name: &str, value: &str) {
        self.headers.push((name.to_string(), value.to_string()));
    }

    #[must_use]
    fn with_header(mut self, name: &str, value: &str) -> Answer {
        self.add_header(name, value);
        self
    }
}

/// The reason phrase of the statuses the dashboard answers with.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

/// A request's path and its decoded query parameters.
#[derive(Debug, Default)]
pub struct Target {
    pub path: String,
    params: BTreeMap<String, String>,
}

impl Target {
    /// The path and its parameters in one canonical spelling: two targets with the same
    /// key ask for the same answer.
    pub fn key(&self) -> String {
        let mut key = self.path.clone();
        for (k, v) in &self.params {
            key.push(if key.contains('?') { '&' } else { '?' });
            key.push_str(k);
            key.push('=');
            key.push_str(v);
        }
        key
    }

    pub fn parse(url: &str) -> Target {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let params = query
            .split('&')
            .filter(|kv| !kv.is_empty())
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                (percent_decode(k), percent_decode(v))
            })
            .collect();
        Target {
            path: percent_decode(path),
            params,
        }
    }

    /// A parameter's value; an empty value counts as absent.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// `%XX` and `+` decoded; invalid escapes and bytes are kept as they are.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len()
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit() =>
            {
                let hex = |c: u8| {
                    (c as char)
                        .to_digit(16)
                        .and_then(|d| u8::try_from(d).ok())
                        .unwrap_or(0)
                };
                out.push(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Whether the Host header names this server by a loopback name: `127.0.0.1` or
/// `localhost`, with this port or none. Anything else (a DNS name rebound to 127.0.0.1,
/// a LAN address) is refused.
pub fn host_is_loopback(request: &Request, port: u16) -> bool {
    let hosts: Vec<&str> = request.headers_named("Host").collect();
    let [host] = hosts[..] else {
        return false;
    };
    let name = match host.rsplit_once(':') {
        Some((name, p)) if p.parse::<u16>() == Ok(port) => name,
        Some(_) => return false,
        None => host,
    };
    name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost")
}

/// Whether the request does not come from another origin's page (another site, or
/// another port of this host): a browser names the
/// page's origin (`Origin`) and how it relates to this server (`Sec-Fetch-Site`). Such
/// a page could not read the answers, but could have the dashboard read the database
/// again and again. Opening the dashboard's address from elsewhere (a link followed,
/// `Sec-Fetch-Mode: navigate`) passes, and so does a request without either header (a
/// typed address, a client that is no browser); the token still has to come with them.
pub fn from_own_pages(request: &Request, port: u16) -> bool {
    let own_origin = |origin: &str| {
        origin
            .strip_prefix("http://")
            .and_then(|host| host.strip_suffix(&format!(":{port}")))
            .is_some_and(|name| name == "127.0.0.1" || name.eq_ignore_ascii_case("localhost"))
    };
    let own_site =
        |site: &str| site.eq_ignore_ascii_case("same-origin") || site.eq_ignore_ascii_case("none");
    let navigation = request
        .headers_named("Sec-Fetch-Mode")
        .any(|mode| mode.eq_ignore_ascii_case("navigate"));
    request.headers_named("Origin").all(own_origin)
        && (navigation || request.headers_named("Sec-Fetch-Site").all(own_site))
}

/// Compares a presented token with the secret in time independent of where they differ.
pub fn same_secret(presented: &str, secret: &str) -> bool {
    presented.len() == secret.len()
        && presented
            .bytes()
            .zip(secret.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// 128 random bits from the operating system, as 32 hex digits.
pub fn new_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| anyhow::anyhow!("cannot read random bytes for the access token: {e}"))?;
    Ok(bytes.iter().fold(String::with_capacity(32), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    }))
}

/// A response with the headers every answer carries: no caching, no framing, no
/// sniffing, and a policy that lets the page load nothing but its own files.
pub fn body(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Answer {
    Answer {
        status,
        headers: Vec::new(),
        body: body.into(),
    }
    .with_header("Content-Type", content_type)
    .with_header("Cache-Control", "no-store")
    .with_header("X-Content-Type-Options", "nosniff")
    .with_header("X-Frame-Options", "DENY")
    .with_header("Referrer-Policy", "no-referrer")
    .with_header(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    )
}

pub fn text(status: u16, message: &str) -> Answer {
    body(status, "text/plain; charset=utf-8", format!("{message}\n"))
}

pub fn json(status: u16, value: &impl serde::Serialize) -> Answer {
    match serde_json::to_vec(value) {
        Ok(bytes) => body(status, "application/json", bytes),
        Err(e) => text(500, &format!("cannot encode the answer: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_split_and_decoded() {
        let t = Target::parse("/api/context?session=a%20b&role=code+r&x=%zz&token=");
        assert_eq!(t.path, "/api/context");
        assert_eq!(t.param("session"), Some("a b"));
        assert_eq!(t.param("role"), Some("code r"));
        assert_eq!(t.param("x"), Some("%zz"));
        assert_eq!(t.param("token"), None);
        assert_eq!(percent_decode("%"), "%");
        assert_eq!(percent_decode("a%4"), "a%4");
        assert_eq!(percent_decode("%C3%A9"), "é");
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abd", "abc"));
        assert!(!same_secret("ab", "abc"));
        assert!(!same_secret("", "abc"));
        let t = new_token().unwrap();
        assert_eq!(t.len(), 32);
        assert_ne!(t, new_token().unwrap());
    }
}
