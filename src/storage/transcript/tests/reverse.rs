//! Tests of the reverse line reader.

use super::*;

fn lines_backwards(content: &[u8], limits: Limits) -> Vec<Vec<u8>> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, content).expect("write");
    let mut lines =
        ReverseLines::with_limits(File::open(&path).expect("open"), limits).expect("reader");
    let mut out = Vec::new();
    while let Some(line) = lines.next_line().expect("read") {
        out.push(line.to_vec());
    }
    out
}

/// Lines as a forward split sees them: a trailing `\n` ends the last line.
pub(super) fn lines_forward(content: &[u8]) -> Vec<Vec<u8>> {
    if content.is_empty() {
        return Vec::new();
    }
    let body = content.strip_suffix(b"\n").unwrap_or(content);
    body.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
}

#[test]
fn reverse_lines_yield_every_line_last_first() {
    let cases: [&[u8]; 7] = [
        b"",
        b"\n",
        b"a",
        b"a\n",
        b"a\n\nbc\n",
        b"\n\nx",
        b"one\ntwo\nthree",
    ];
    for content in cases {
        let mut expected = lines_forward(content);
        expected.reverse();
        for chunk in [1, 2, 3, 64] {
            let limits = Limits {
                chunk,
                max_line: 1024,
                budget: u64::MAX,
            };
            assert_eq!(
                lines_backwards(content, limits),
                expected,
                "{content:?} / {chunk}"
            );
        }
    }
}

#[test]
fn reverse_lines_skip_lines_over_the_limit() {
    let content = format!("first\n{}\nlast\n{}", "L".repeat(100), "M".repeat(100));
    let limits = Limits {
        chunk: 8,
        max_line: 50,
        budget: u64::MAX,
    };
    assert_eq!(
        lines_backwards(content.as_bytes(), limits),
        [b"last".to_vec(), b"first".to_vec()]
    );
    let starts_long = format!("{}\nlast", "L".repeat(100));
    assert_eq!(
        lines_backwards(starts_long.as_bytes(), limits),
        [b"last".to_vec()]
    );
}
