//! An input larger than nagger reads whole: read on to its end as a stream, keeping the
//! top-level fields nagger knows (each up to a size) and dropping everything else, so
//! that a tool call padded with a huge field (a long id, an unknown key) is still decided
//! on its tool and its input. What is kept is a smaller JSON object, read as any input.

/// Most bytes kept of a field's value other than `tool_input`: far more than any id,
/// path or name Claude Code sends.
const FIELD_CAP: usize = 1024 * 1024;
/// Most bytes of a key read to tell which field it is (nagger's are short).
const KEY_CAP: usize = 64;
/// Most bytes kept of what follows the object: enough to show that something does.
const TRAILING_CAP: usize = 64;

/// What a large input was read down to.
#[derive(Debug, Default)]
pub struct Compacted {
    /// A JSON object of the fields kept; it breaks off where the input did.
    pub text: Vec<u8>,
    /// The known fields dropped for their size, with their sizes.
    pub dropped: Vec<(String, usize)>,
    /// The input's object ended (`}` read) before the input did.
    pub whole: bool,
}

impl Compacted {
    /// Whether a field that decides what a tool call does was dropped: the call cannot
    /// be decided on what was kept.
    pub fn dropped_deciding(&self) -> bool {
        self.dropped
            .iter()
            .any(|(name, _)| super::input::DECIDING.contains(&name.as_str()))
    }

    /// One sentence on what was not read.
    pub fn note(&self, limit_mib: u64) -> String {
        let mut note = format!("stdin is larger than {limit_mib} MiB; read as a stream");
        if !self.dropped.is_empty() {
            let fields: Vec<String> = self
                .dropped
                .iter()
                .map(|(name, size)| format!("{name} ({size} bytes)"))
                .collect();
            note.push_str(", fields too large to read: ");
            note.push_str(&fields.join(", "));
        }
        if !self.whole {
            note.push_str(", its object does not end");
        }
        note
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    BeforeKey,
    Key,
    AfterKey,
    BeforeValue,
    Value,
    AfterValue,
    /// After the object: a few bytes of what follows are kept.
    Trailing,
    /// Not JSON nagger can follow: nothing more is read.
    Broken,
}

/// Reads an object byte by byte, chunk by chunk, in constant memory beyond what it keeps.
pub struct Compactor {
    state: State,
    out: Compacted,
    /// The raw key being read (quotes included), up to [`KEY_CAP`] bytes.
    key: Vec<u8>,
    key_long: bool,
    /// The current value's field, when it is one nagger knows, and the most bytes kept.
    field: Option<(String, usize)>,
    value: Vec<u8>,
    value_len: usize,
    /// Fields written to the kept object so far.
    fields: usize,
    /// Bytes kept of what follows the object.
    trailing: usize,
    scan: Scan,
    /// Most bytes of `tool_input` kept.
    input_cap: usize,
}

/// Where the scan stands in the current key or value.
#[derive(Debug, Default)]
struct Scan {
    /// Arrays and objects open.
    depth: usize,
    in_string: bool,
    /// The byte before was a backslash inside a string.
    escaped: bool,
    /// The value is a number, `true`, `false` or `null`.
    scalar: bool,
}

impl Compactor {
    /// A compactor that keeps a `tool_input` of up to `input_cap` bytes.
    pub fn new(input_cap: usize) -> Self {
        Compactor {
            input_cap,
            state: State::Start,
            out: Compacted::default(),
            key: Vec::new(),
            key_long: false,
            field: None,
            value: Vec::new(),
            value_len: 0,
            fields: 0,
            trailing: 0,
            scan: Scan::default(),
        }
    }
}

impl Compactor {
    /// Whether more bytes could still change what is kept.
    pub fn wants_more(&self) -> bool {
        match self.state {
            State::Broken => false,
            State::Trailing => self.trailing < TRAILING_CAP,
            _ => true,
        }
    }

    /// Reads the next bytes of the input.
    pub fn feed(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() && self.wants_more() {
            if self.step(bytes[i]) {
                i += 1;
            }
        }
    }

    /// What was kept.
    pub fn finish(mut self) -> Compacted {
        if self.state == State::Value {
            if self.scan.scalar {
                // A number or word that ends the input.
                self.end_value();
            } else if let Some((name, _)) = &self.field
                && self.value.len() != self.value_len
            {
                // Cut off, and too large to keep already.
                self.out.dropped.push((name.clone(), self.value_len));
            }
        }
        self.out
    }

    /// Takes one byte; false when it was not used up (a number or word ended before it,
    /// and it is read again after the value).
    fn step(&mut self, b: u8) -> bool {
        let blank = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        match self.state {
            State::Start if blank => {}
            State::Start if b == b'{' => {
                self.out.text.push(b'{');
                self.state = State::BeforeKey;
            }
            State::BeforeKey | State::AfterKey | State::BeforeValue | State::AfterValue
                if blank => {}
            State::BeforeKey if b == b'"' => {
                self.key.clear();
                self.key.push(b);
                self.key_long = false;
                self.scan.escaped = false;
                self.state = State::Key;
            }
            State::BeforeKey | State::AfterValue if b == b'}' => {
                self.out.text.push(b'}');
                self.out.whole = true;
                self.state = State::Trailing;
            }
            State::Key => {
                if self.key.len() < KEY_CAP {
                    self.key.push(b);
                } else {
                    self.key_long = true;
                }
                if self.scan.escaped {
                    self.scan.escaped = false;
                } else if b == b'\\' {
                    self.scan.escaped = true;
                } else if b == b'"' {
                    self.state = State::AfterKey;
                }
            }
            State::AfterKey if b == b':' => {
                self.field = self.known_field();
                self.value.clear();
                self.value_len = 0;
                self.state = State::BeforeValue;
            }
            State::BeforeValue => {
                self.scan.depth = usize::from(matches!(b, b'{' | b'['));
                self.scan.in_string = b == b'"';
                self.scan.escaped = false;
                self.scan.scalar = !self.scan.in_string && self.scan.depth == 0;
                self.keep(b);
                self.state = State::Value;
            }
            State::Value => return self.value_byte(b),
            State::AfterValue if b == b',' => self.state = State::BeforeKey,
            State::Trailing => {
                if !blank {
                    self.out.text.push(b);
                    self.trailing += 1;
                }
            }
            _ => self.state = State::Broken,
        }
        true
    }

    /// One byte inside a value; false when it ends a number or word without being part
    /// of it.
    fn value_byte(&mut self, b: u8) -> bool {
        if self.scan.scalar {
            if matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                self.end_value();
                return false;
            }
            self.keep(b);
            return true;
        }
        self.keep(b);
        if self.scan.in_string {
            if self.scan.escaped {
                self.scan.escaped = false;
            } else if b == b'\\' {
                self.scan.escaped = true;
            } else if b == b'"' {
                self.scan.in_string = false;
                if self.scan.depth == 0 {
                    self.end_value();
                }
            }
            return true;
        }
        match b {
            b'"' => self.scan.in_string = true,
            b'{' | b'[' => self.scan.depth += 1,
            b'}' | b']' => {
                self.scan.depth -= 1;
                if self.scan.depth == 0 {
                    self.end_value();
                }
            }
            _ => {}
        }
        true
    }

    /// The field the key just read names, with the most bytes of its value kept; None for
    /// a key nagger does not know.
    fn known_field(&self) -> Option<(String, usize)> {
        if self.key_long {
            return None;
        }
        let name: String = serde_json::from_slice(&self.key).ok()?;
        let cap = match name.as_str() {
            "tool_input" => self.input_cap,
            known if super::input::FIELDS.contains(&known) => FIELD_CAP,
            _ => return None,
        };
        Some((name, cap))
    }

    /// Keeps a byte of the current value while it is one of a known field and small
    /// enough.
    fn keep(&mut self, b: u8) {
        self.value_len += 1;
        let Some((_, cap)) = &self.field else {
            return;
        };
        if self.value.len() < *cap {
            self.value.push(b);
        } else if !self.value.is_empty() {
            // Too large: nothing of it is kept.
            self.value = Vec::new();
        }
    }

    fn end_value(&mut self) {
        self.state = State::AfterValue;
        let Some((name, _)) = self.field.take() else {
            return;
        };
        let value = std::mem::take(&mut self.value);
        let kept: &[u8] = if value.len() == self.value_len {
            &value
        } else {
            self.out.dropped.push((name.clone(), self.value_len));
            // A response stays a response: the input is not taken for a call still
            // to be made.
            if name != "tool_response" {
                return;
            }
            b"\"(too large to read)\""
        };
        if self.fields > 0 {
            self.out.text.push(b',');
        }
        self.fields += 1;
        self.out
            .text
            .extend_from_slice(&serde_json::to_vec(&name).unwrap_or_default());
        self.out.text.push(b':');
        self.out.text.extend_from_slice(kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compact(chunks: &[&[u8]]) -> Compacted {
        let mut c = Compactor::new(1 << 24);
        for chunk in chunks {
            c.feed(chunk);
        }
        c.finish()
    }

    fn text(c: &Compacted) -> &str {
        std::str::from_utf8(&c.text).unwrap()
    }

    #[test]
    fn known_fields_are_kept_and_huge_or_unknown_ones_dropped() {
        let huge = "x".repeat(FIELD_CAP + 10);
        let input = format!(
            r#"{{"session_id":"{huge}","pad":"{huge}","hook_event_name":"PreToolUse",
            "tool_name":"Bash","tool_input":{{"command":"rm -rf /","n":[1,{{"a":"}}\""}}]}},
            "stop_hook_active":true,"n":-1.5e3}}  "#
        );
        // Fed in small chunks: a field cut between two is still read.
        let chunks: Vec<&[u8]> = input.as_bytes().chunks(7).collect();
        let c = compact(&chunks);
        assert_eq!(
            text(&c),
            r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /","n":[1,{"a":"}\""}]},"stop_hook_active":true}"#
        );
        assert_eq!(c.dropped, vec![("session_id".to_string(), huge.len() + 2)]);
        assert!(c.whole && !c.dropped_deciding());
        let value: serde_json::Value = serde_json::from_slice(&c.text).unwrap();
        assert_eq!(value["tool_input"]["command"], "rm -rf /");
    }

    #[test]
    fn a_response_too_large_stays_a_response_and_a_dropped_input_is_said() {
        let huge = "y".repeat(FIELD_CAP + 1);
        let c =
            compact(&[format!(r#"{{"tool_name":"Read","tool_response":"{huge}"}}"#).as_bytes()]);
        assert_eq!(
            text(&c),
            r#"{"tool_name":"Read","tool_response":"(too large to read)"}"#
        );
        let c = compact(&[
            br#"{"hook_event_name":""#,
            "z".repeat(FIELD_CAP + 1).as_bytes(),
        ]);
        assert!(c.dropped_deciding() && !c.whole);
    }

    #[test]
    fn an_object_that_breaks_off_or_goes_wrong_keeps_what_came_before() {
        let c = compact(&[br#"{"tool_name":"Bash","tool_input":{"command":"rm -rf /"},"cwd":"/t"#]);
        assert_eq!(
            text(&c),
            r#"{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}"#
        );
        assert!(!c.whole);
        let c = compact(&[br#"{"tool_name":"Bash" x "tool_input":{}}"#]);
        assert_eq!(text(&c), r#"{"tool_name":"Bash""#);
        let c = compact(&[b"[1]"]);
        assert_eq!(text(&c), "");
        let c = compact(&[br#"{"tool_name":"Bash"} {"tool_name":"Write"}"#]);
        assert_eq!(text(&c), r#"{"tool_name":"Bash"}{"tool_name":"Write"}"#);
    }
}
