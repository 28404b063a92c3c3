//! The strings code builds from literals, neighbours joined as the code joins them: what
//! self-protection looks for names of protected files in.

use super::model::MAX_CODE;

/// The strings `code` builds from literals: neighbours joined as the code joins them
/// (`'.claude' + '-nagger'` → `.claude-nagger`; `join('.claude', 'x')` and
/// `'.claude' / 'x'` → `.claude/x`).
pub(crate) fn strings(code: &str) -> Vec<String> {
    let code = &code[..floor_char_boundary(code, MAX_CODE)];
    let bytes = code.as_bytes();
    let mut out: Vec<String> = Vec::new();
    let mut last_end: Option<usize> = None;
    let mut i = 0;
    while i < bytes.len() && out.len() < 1024 {
        let q = bytes[i];
        if !matches!(q, b'\'' | b'"' | b'`') {
            i += 1;
            continue;
        }
        let start = i;
        let mut text = Vec::new();
        i += 1;
        while i < bytes.len() && bytes[i] != q {
            if bytes[i] == b'\\' && i + 1 < bytes.len() {
                i += 1;
            }
            text.push(bytes[i]);
            i += 1;
        }
        i += 1;
        let text = String::from_utf8_lossy(&text).into_owned();
        let between = last_end.map(|end| code.get(end..start).unwrap_or("x").trim());
        match (between, out.last_mut()) {
            (Some("+" | "." | ""), Some(prev)) => prev.push_str(&text),
            (Some("," | "/"), Some(prev)) => {
                // `join('.claude', 'x')` names `.claude/x`; `rename('.claude', 'x')` names
                // both on their own.
                let joined = format!("{prev}/{text}");
                out.push(text);
                out.push(joined);
            }
            _ => out.push(text),
        }
        last_end = Some(i.min(bytes.len()));
    }
    out
}

fn floor_char_boundary(s: &str, max: usize) -> usize {
    if s.len() <= max {
        return s.len();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    end
}
