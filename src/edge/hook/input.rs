//! Stdin's JSON read into a [`HookInput`] field by field. A field of the wrong type is
//! named as a problem and read as absent, so that what the rest of the input says is
//! still acted on (above all: a tool call is still checked by the guard). Fields nagger
//! does not know are skipped unread, whatever they hold.

use super::wire::HookInput;
use crate::base::text::{json_kind, unseen};
use serde::de::{self, DeserializeSeed, Deserializer as _, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::{self, Write as _};

/// An input as read, and what was wrong with its fields.
#[derive(Debug, Default)]
pub struct ReadInput {
    pub input: HookInput,
    /// One sentence per field that could not be read as it is; empty when all could.
    pub problems: Vec<String>,
    /// What makes the tool call it carries mean two things (a key given twice, a second
    /// object after it): the guard's answer to it is never a silent pass.
    pub ambiguous: Vec<String>,
}

/// The tools whose calls the guard reads, as Claude Code names them: a name that differs
/// from one of these only in case, white space or characters of no width is read as it.
const TOOL_NAMES: [&str; 16] = [
    "Bash",
    "PowerShell",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Read",
    "Glob",
    "Grep",
    "Skill",
    "Task",
    "Agent",
    "WebFetch",
    "WebSearch",
    "BashOutput",
    "KillShell",
];

/// Fields whose value decides what a tool call does: given twice, the call is ambiguous.
pub(super) const DECIDING: [&str; 3] = ["hook_event_name", "tool_name", "tool_input"];

/// The fields of [`HookInput`], as Claude Code names them.
pub(super) const FIELDS: [&str; 26] = [
    "session_id",
    "transcript_path",
    "cwd",
    "hook_event_name",
    "permission_mode",
    "agent_id",
    "agent_type",
    "source",
    "reason",
    "trigger",
    "compact_summary",
    "tool_name",
    "tool_input",
    "tool_use_id",
    "tool_response",
    "agent_transcript_path",
    "stop_hook_active",
    "last_assistant_message",
    "prompt",
    "error",
    "is_interrupt",
    "expansion_type",
    "command_name",
    "command_args",
    "command_source",
    "invoked_by",
];

/// Arrays and objects nested deeper than this are read as null when the input is too
/// deep to be read as it is (serde_json stops at 128 levels).
const MAX_DEPTH: usize = 100;

/// Reads one JSON object into the input. An error only when the text is no JSON object
/// at all (with what is wrong with it); wrong-typed fields are problems of the result.
pub fn parse(text: &str) -> Result<ReadInput, String> {
    if !text.trim_start().starts_with('{') {
        return Err(not_an_object(text));
    }
    let mut repaired: Option<String> = None;
    let mut notes: Vec<&str> = Vec::new();
    // Valid JSON that serde_json cannot hold as it is (each kind of it once): read again
    // with what it cannot hold made readable, and said so.
    let (known, mut problems, ambiguous) = loop {
        let current = repaired.as_deref().unwrap_or(text);
        let e = match known_fields(current) {
            Ok(read) => break read,
            Err(e) => e,
        };
        let retry = if too_large_or_deep(&e) && !notes.contains(&NOTE_TOO_LARGE) {
            defused(current).map(|text| (text, NOTE_TOO_LARGE))
        } else if unpaired_surrogate(&e) && !notes.contains(&NOTE_SURROGATES) {
            unpaired_surrogates_replaced(current).map(|text| (text, NOTE_SURROGATES))
        } else if raw_control(&e) && !notes.contains(&NOTE_CONTROLS) {
            controls_escaped(current).map(|text| (text, NOTE_CONTROLS))
        } else {
            None
        };
        let Some((text, note)) = retry else {
            break salvaged(current, &e)?;
        };
        repaired = Some(text);
        notes.push(note);
    };
    for (i, note) in notes.into_iter().enumerate() {
        problems.insert(i, note.to_string());
    }
    let input = fields(known, &mut problems);
    if let Some(name) = input.tool_name.as_deref()
        && let Some(canonical) = canonical_tool(name)
    {
        problems.push(format!(
            "tool_name {name:?} read as {canonical:?} (differs in case, white space or \
             characters of no width)"
        ));
    }
    let mut input = input;
    if let Some(name) = input.tool_name.as_deref().and_then(canonical_tool) {
        input.tool_name = Some(name.to_string());
    }
    Ok(ReadInput {
        input,
        problems,
        ambiguous,
    })
}

/// The tool `name` can only mean when it is not spelled as Claude Code spells it.
fn canonical_tool(name: &str) -> Option<&'static str> {
    if TOOL_NAMES.contains(&name) {
        return None;
    }
    let bare: String = name
        .chars()
        .filter(|c| !c.is_whitespace() && !unseen(*c))
        .collect();
    TOOL_NAMES
        .into_iter()
        .find(|t| t.eq_ignore_ascii_case(&bare))
}

const NOTE_CONTROLS: &str =
    "input holds raw control characters inside strings (read as if escaped)";

const NOTE_TOO_LARGE: &str = "input holds numbers too large or nesting too deep (read as null)";
const NOTE_SURROGATES: &str =
    "input holds unpaired UTF-16 surrogate escapes (read as U+FFFD, as Claude Code runs them)";

/// The known fields of the object in `text` (the last one of a field given twice), and
/// one problem per field given more than once.
type Known = (Map<String, Value>, Vec<String>, Vec<String>);

/// The known fields of the object in `text` (the last one of a field given twice), one
/// problem per field given more than once, and what makes a tool call in it ambiguous.
fn known_fields(text: &str) -> Result<Known, serde_json::Error> {
    known_fields_into(text, &RefCell::default())
}

/// [`known_fields`], keeping in `read` the fields read whole before any error.
fn known_fields_into(text: &str, read: &RefCell<Known>) -> Result<Known, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    (&mut de).deserialize_map(KnownFields { read })?;
    let (known, mut problems, mut ambiguous) = read.take();
    if de.end().is_err() {
        // The object is whole: what follows it (a second object, a stray byte) is not
        // part of it.
        problems.push("text after the JSON object (ignored)".to_string());
        ambiguous.push("text follows its JSON object".to_string());
    }
    Ok((known, problems, ambiguous))
}

/// Reads the known fields of an object into `read`, one by one: what was read whole
/// stays there when the text breaks off later.
struct KnownFields<'a> {
    read: &'a RefCell<Known>,
}

impl<'de> Visitor<'de> for KnownFields<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            let mut read = self.read.borrow_mut();
            let (known, problems, ambiguous) = &mut *read;
            if FIELDS.contains(&key.as_str()) {
                let twice = RefCell::new(None);
                let value: Value = if key == "tool_input" {
                    map.next_value_seed(Checked { twice: &twice })?
                } else {
                    map.next_value()?
                };
                if let Some(inner) = twice.into_inner() {
                    ambiguous.push(format!("key {inner:?} of its {key} is given twice"));
                }
                // An event named twice, once as a tool call about to run: read as that
                // call, so the guard checks it (and asks, the input being ambiguous).
                let checked = key == "hook_event_name"
                    && known.get(&key).and_then(Value::as_str) == Some("PreToolUse");
                let value = if checked {
                    Value::String("PreToolUse".into())
                } else {
                    value
                };
                if known.insert(key.clone(), value).is_some() {
                    problems.push(format!(
                        "field {key} is given more than once (the last one is read)"
                    ));
                    if DECIDING.contains(&key.as_str()) {
                        ambiguous.push(format!("its {key} is given twice"));
                    }
                }
            } else {
                // Skipped without building it: no depth or number limit applies.
                drop(read);
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// A text that breaks off or goes wrong after the fields that decide a tool call were
/// read whole (`tool_name` and `tool_input`): read as that call, ambiguous, so that the
/// guard still refuses what it refuses and asks about the rest. Anything else is the
/// error `e`.
fn salvaged(text: &str, e: &serde_json::Error) -> Result<Known, String> {
    let read = RefCell::default();
    if known_fields_into(text, &read).is_ok() {
        return Err(json_error(e));
    }
    let (known, mut problems, mut ambiguous) = read.take();
    let whole_call = known.get("tool_input").is_some_and(Value::is_object)
        && known.get("tool_name").is_some_and(Value::is_string);
    if !whole_call {
        return Err(json_error(e));
    }
    let why = json_error(e);
    problems.insert(0, format!("{why} (read up to there)"));
    ambiguous.push(format!("its text breaks off after the call: {why}"));
    Ok((known, problems, ambiguous))
}

/// A JSON value read whole, noting the first key given twice in any object of it.
struct Checked<'a> {
    twice: &'a RefCell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for Checked<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Checked<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::from(n))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Checked { twice: self.twice })? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Checked { twice: self.twice })?;
            if object.contains_key(&key) && self.twice.borrow().is_none() {
                *self.twice.borrow_mut() = Some(key.clone());
            }
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// The input from its known fields; a field of the wrong type is left out and named in
/// `problems`. Null reads as absent, as Claude Code leaves fields out.
fn fields(mut known: Map<String, Value>, problems: &mut Vec<String>) -> HookInput {
    let mut string = |name: &str| match known.remove(name) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            problems.push(wrong_type(name, "a string", &other));
            None
        }
    };
    let session_id = string("session_id");
    let transcript_path = string("transcript_path");
    let cwd = string("cwd");
    let hook_event_name = string("hook_event_name");
    let permission_mode = string("permission_mode");
    let agent_id = string("agent_id");
    let agent_type = string("agent_type");
    let source = string("source");
    let reason = string("reason");
    let trigger = string("trigger");
    let compact_summary = string("compact_summary");
    let tool_name = string("tool_name");
    let tool_use_id = string("tool_use_id");
    let agent_transcript_path = string("agent_transcript_path");
    let last_assistant_message = string("last_assistant_message");
    let prompt = string("prompt");
    let error = string("error");
    let expansion_type = string("expansion_type");
    let command_name = string("command_name");
    let command_args = string("command_args");
    let command_source = string("command_source");
    let invoked_by = string("invoked_by");
    let mut boolean = |name: &str| match known.remove(name) {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(b),
        Some(other) => {
            problems.push(wrong_type(name, "true or false", &other));
            None
        }
    };
    let stop_hook_active = boolean("stop_hook_active");
    let is_interrupt = boolean("is_interrupt");
    let tool_input = known.remove("tool_input").filter(|v| !v.is_null());
    if let Some(other) = tool_input.as_ref().filter(|v| !v.is_object()) {
        // Kept as it is: what can be checked in it still is.
        problems.push(wrong_type("tool_input", "an object", other));
    }
    let tool_response = known.remove("tool_response").filter(|v| !v.is_null());
    HookInput {
        session_id,
        transcript_path,
        cwd,
        hook_event_name,
        permission_mode,
        agent_id,
        agent_type,
        source,
        reason,
        trigger,
        compact_summary,
        tool_name,
        tool_input,
        tool_use_id,
        tool_response,
        agent_transcript_path,
        stop_hook_active,
        last_assistant_message,
        prompt,
        error,
        is_interrupt,
        expansion_type,
        command_name,
        command_args,
        command_source,
        invoked_by,
    }
}

fn wrong_type(name: &str, expected: &str, got: &Value) -> String {
    format!("field {name}: expected {expected}, got {}", json_kind(got))
}

/// What is wrong with a text that does not start an object.
fn not_an_object(text: &str) -> String {
    match serde_json::from_str::<IgnoredValue>(text) {
        Err(e) => json_error(&e),
        Ok(IgnoredValue(kind)) => format!("expected a JSON object, got {kind}"),
    }
}

/// The kind of a JSON value, its content skipped.
struct IgnoredValue(&'static str);

impl<'de> de::Deserialize<'de> for IgnoredValue {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Kind;
        impl<'de> Visitor<'de> for Kind {
            type Value = IgnoredValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_bool<E>(self, _: bool) -> Result<IgnoredValue, E> {
                Ok(IgnoredValue("a boolean"))
            }
            fn visit_i64<E>(self, _: i64) -> Result<IgnoredValue, E> {
                Ok(IgnoredValue("a number"))
            }
            fn visit_u64<E>(self, _: u64) -> Result<IgnoredValue, E> {
                Ok(IgnoredValue("a number"))
            }
            fn visit_f64<E>(self, _: f64) -> Result<IgnoredValue, E> {
                Ok(IgnoredValue("a number"))
            }
            fn visit_str<E>(self, _: &str) -> Result<IgnoredValue, E> {
                Ok(IgnoredValue("a string"))
            }
            fn visit_unit<E>(self) -> Result<IgnoredValue, E> {
                Ok(IgnoredValue("null"))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<IgnoredValue, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(IgnoredValue("an array"))
            }
        }
        deserializer.deserialize_any(Kind)
    }
}

fn json_error(e: &serde_json::Error) -> String {
    if e.is_eof() {
        format!("JSON ends early (line {}, column {})", e.line(), e.column())
    } else {
        format!("not valid JSON: {e}")
    }
}

/// Whether serde_json gave up on valid JSON it cannot hold: a number beyond a double's
/// range, or nesting past its depth limit.
fn too_large_or_deep(e: &serde_json::Error) -> bool {
    let text = e.to_string();
    text.starts_with("number out of range") || text.starts_with("recursion limit exceeded")
}

/// Whether serde_json gave up on a `\\u` escape of half a UTF-16 surrogate pair, which a
/// JavaScript string can hold and `JSON.stringify` writes as it is.
/// Whether serde_json stopped at a control character written raw inside a string.
fn raw_control(e: &serde_json::Error) -> bool {
    e.to_string().starts_with("control character")
}

/// `text` with the control characters written raw inside its strings escaped; None when
/// there are none.
fn controls_escaped(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 16);
    let (mut in_string, mut escaped, mut changed) = (false, false, false);
    for c in text.chars() {
        if !in_string {
            in_string = c == '"';
            out.push(c);
        } else if escaped {
            escaped = false;
            out.push(c);
        } else if u32::from(c) < 0x20 {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
            changed = true;
        } else {
            escaped = c == '\\';
            in_string = c != '"';
            out.push(c);
        }
    }
    changed.then_some(out)
}

/// Stdin's bytes as text, and what was done to read them: UTF-16 and UTF-32 (told by
/// their byte order mark or by where their zero bytes stand) decoded, byte order marks
/// and zero bytes before the object skipped, bytes that are not UTF-8 read as U+FFFD.
/// Each is named as a problem: such an input is checked, not recorded.
pub fn decode(bytes: &[u8]) -> (Cow<'_, str>, Vec<String>) {
    let mut problems = Vec::new();
    if let Some((text, encoding)) = wide(bytes) {
        problems.push(format!("stdin is {encoding} (read as such)"));
        return (Cow::Owned(text), problems);
    }
    let bom = b"\xef\xbb\xbf";
    let mut rest = bytes.strip_prefix(bom).unwrap_or(bytes);
    let start = rest.len();
    loop {
        if let Some(after) = rest.strip_prefix(bom) {
            rest = after;
        } else if let Some(after) = rest
            .strip_prefix(b"\xff\xfe")
            .or_else(|| rest.strip_prefix(b"\xfe\xff"))
        {
            rest = after;
        } else if let Some((0, after)) = rest.split_first() {
            rest = after;
        } else {
            break;
        }
    }
    if rest.len() < start {
        problems.push("stdin begins with zero bytes or byte order marks (skipped)".to_string());
    }
    match std::str::from_utf8(rest) {
        Ok(text) => (Cow::Borrowed(text), problems),
        Err(e) => {
            problems.push(format!(
                "stdin is not valid UTF-8 (at byte {}; read with replacement characters)",
                e.valid_up_to()
            ));
            (String::from_utf8_lossy(rest), problems)
        }
    }
}

/// Text in UTF-16 or UTF-32, decoded (unpaired halves as U+FFFD), and its encoding's name.
fn wide(bytes: &[u8]) -> Option<(String, &'static str)> {
    let head: Vec<bool> = bytes.iter().take(4).map(|b| *b == 0).collect();
    let (body, unit, big, name) = match (bytes, head.as_slice()) {
        ([0xff, 0xfe, 0, 0, rest @ ..], _) => (rest, 4, false, "UTF-32LE"),
        ([0, 0, 0xfe, 0xff, rest @ ..], _) => (rest, 4, true, "UTF-32BE"),
        ([0xff, 0xfe, rest @ ..], _) => (rest, 2, false, "UTF-16LE"),
        ([0xfe, 0xff, rest @ ..], _) => (rest, 2, true, "UTF-16BE"),
        (_, [false, true, true, true]) => (bytes, 4, false, "UTF-32LE"),
        (_, [true, true, true, false]) => (bytes, 4, true, "UTF-32BE"),
        (_, [false, true, false, true]) => (bytes, 2, false, "UTF-16LE"),
        (_, [true, false, true, false]) => (bytes, 2, true, "UTF-16BE"),
        _ => return None,
    };
    // A byte order mark before text with no zero bytes (`\xff\xfe{"…`) marks nothing:
    // what follows is read as UTF-8, the mark skipped.
    if !body.iter().take(8).any(|b| *b == 0) {
        return None;
    }
    let number = |chunk: &[u8]| {
        let mut n = 0u32;
        for k in 0..chunk.len() {
            let b = if big {
                chunk[k]
            } else {
                chunk[chunk.len() - 1 - k]
            };
            n = (n << 8) | u32::from(b);
        }
        n
    };
    let chunks = body.chunks_exact(unit);
    let text = if unit == 2 {
        let units = chunks.map(|c| u16::try_from(number(c)).unwrap_or(0xfffd));
        char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    } else {
        chunks
            .map(|c| char::from_u32(number(c)).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    };
    Some((text, name))
}

fn unpaired_surrogate(e: &serde_json::Error) -> bool {
    let text = e.to_string();
    text.starts_with("lone leading surrogate") || text.starts_with("unexpected end of hex escape")
}

/// `text` with every `\\u` escape of a surrogate that has no partner replaced by
/// `\\ufffd` (what Claude Code passes on when it encodes such a string as UTF-8); None
/// when there is none.
fn unpaired_surrogates_replaced(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'\\' if in_string => match surrogate_at(bytes, i) {
                Some(0xD800..=0xDBFF)
                    if matches!(surrogate_at(bytes, i + 6), Some(0xDC00..=0xDFFF)) =>
                {
                    i += 12;
                }
                Some(_) => {
                    out.push_str(&text[copied..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    copied = i;
                }
                None => i += 2,
            },
            _ => i += 1,
        }
    }
    (copied > 0).then(|| {
        out.push_str(&text[copied..]);
        out
    })
}

/// The surrogate a `\\uXXXX` escape at `at` names, if it names one.
fn surrogate_at(bytes: &[u8], at: usize) -> Option<u16> {
    let hex = bytes.get(at..at + 6)?.strip_prefix(b"\\u")?;
    let hex = std::str::from_utf8(hex).ok()?;
    u16::from_str_radix(hex, 16)
        .ok()
        .filter(|unit| (0xD800..=0xDFFF).contains(unit))
}

/// `text` with every number too large for a double, and every array or object nested
/// deeper than [`MAX_DEPTH`], replaced by null; None when nothing was replaced.
fn defused(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut depth = 0usize;
    let mut i = 0;
    let replace = |out: &mut String, copied: &mut usize, from: usize, to: usize| {
        out.push_str(&text[*copied..from]);
        out.push_str("null");
        *copied = to;
    };
    let mut changed = false;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(bytes, i),
            b'[' | b'{' if depth >= MAX_DEPTH => {
                let end = container_end(bytes, i);
                replace(&mut out, &mut copied, i, end);
                changed = true;
                i = end;
            }
            b'[' | b'{' => {
                depth += 1;
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let end = number_end(bytes, i);
                if text[i..end].parse::<f64>().is_ok_and(f64::is_infinite) {
                    replace(&mut out, &mut copied, i, end);
                    changed = true;
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    changed.then_some(out)
}

/// Just past the string that opens at `start` (the end of the text when it never closes).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Just past the array or object that opens at `start`.
fn container_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i = string_end(bytes, i);
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

fn number_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < bytes.len() && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_wide_byte_order_mark_before_utf8_text_is_skipped() {
        for input in [&b"\xff\xfe{\"a\":1}"[..], &b"\xfe\xff{\"a\":1}"[..]] {
            let (text, problems) = super::decode(input);
            assert_eq!(text, "{\"a\":1}");
            assert!(!problems.is_empty());
        }
    }

    use super::*;

    fn read(json: &str) -> ReadInput {
        parse(json).unwrap()
    }

    #[test]
    fn fields_of_the_wrong_type_are_problems_and_the_rest_is_read() {
        for wrong in ["1", "-2.5", "true", "{\"a\":1}", "[\"s\"]"] {
            let r = read(&format!(
                r#"{{"hook_event_name":"PreToolUse","session_id":{wrong},"cwd":{wrong},"tool_name":"Bash","tool_input":{{"command":"ls"}}}}"#
            ));
            assert_eq!(r.input.session_id, None, "{wrong}");
            assert_eq!(r.input.cwd, None, "{wrong}");
            assert_eq!(r.input.tool_name.as_deref(), Some("Bash"));
            assert_eq!(r.input.tool_input.as_ref().unwrap()["command"], "ls");
            assert_eq!(r.problems.len(), 2, "{wrong}: {:?}", r.problems);
            assert!(r.problems[0].starts_with("field session_id: expected a string, got "));
            assert!(r.problems[1].starts_with("field cwd: "));
        }
        let r = read(r#"{"session_id":null,"stop_hook_active":"yes","is_interrupt":false}"#);
        assert_eq!(r.input.session_id, None);
        assert_eq!(r.input.stop_hook_active, None);
        assert_eq!(r.input.is_interrupt, Some(false));
        assert_eq!(
            r.problems,
            ["field stop_hook_active: expected true or false, got a string"]
        );
    }

    #[test]
    fn unknown_fields_are_skipped_whatever_they_hold() {
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        let r = read(&format!(
            r#"{{"session_id":"s","new":{deep},"big":1e999,"n":{},"tool_name":"Bash"}}"#,
            "9".repeat(500)
        ));
        assert_eq!(r.input.session_id.as_deref(), Some("s"));
        assert_eq!(r.input.tool_name.as_deref(), Some("Bash"));
        assert!(r.problems.is_empty(), "{:?}", r.problems);
    }

    #[test]
    fn known_fields_too_large_or_too_deep_are_read_as_null() {
        let deep = format!("{}{}", "[".repeat(300), "]".repeat(300));
        let r = read(&format!(
            r#"{{"session_id":1e999,"tool_name":"Bash","tool_input":{{"command":"rm -rf /","x":{deep},"t":-1e400,"s":"[[[1e999"}}}}"#
        ));
        assert_eq!(r.input.session_id, None);
        let tool_input = r.input.tool_input.unwrap();
        assert_eq!(tool_input["command"], "rm -rf /");
        assert_eq!(tool_input["t"], Value::Null);
        assert_eq!(tool_input["s"], "[[[1e999", "strings are left alone");
        assert!(r.problems[0].contains("too large"), "{:?}", r.problems);
    }

    #[test]
    fn unpaired_surrogate_escapes_are_read_as_replacement_characters() {
        for (escape, command) in [
            (r"\ud800", "rm -rf / \u{fffd}"),
            (r"\udc00", "rm -rf / \u{fffd}"),
            (r"\ud800\u0041", "rm -rf / \u{fffd}A"),
            (r"\ud800\ud800", "rm -rf / \u{fffd}\u{fffd}"),
            (r"\ud83d\ude00\udc00", "rm -rf / \u{1f600}\u{fffd}"),
            (r"\\ud800\ud800", "rm -rf / \\ud800\u{fffd}"),
        ] {
            let r = read(&format!(
                r#"{{"tool_name":"Bash","tool_input":{{"command":"rm -rf / {escape}","description":"{escape}"}},"x":"\ud800"}}"#
            ));
            let tool_input = r.input.tool_input.unwrap();
            assert_eq!(tool_input["command"], command, "{escape}");
            assert_eq!(r.problems, [NOTE_SURROGATES], "{escape}");
        }
        // Outside strings and in a key, and with a number too large besides.
        let r = read(r#"{"tool_name":"Bash","tool_input":{"\udc00":1e999,"command":"rm -rf /"}}"#);
        assert_eq!(r.input.tool_input.unwrap()["command"], "rm -rf /");
        assert_eq!(r.problems, [NOTE_SURROGATES, NOTE_TOO_LARGE]);
        // A broken escape that is no surrogate stays an error.
        assert!(parse(r#"{"tool_name":"\u12"}"#).is_err());
        assert!(parse(r#"{"tool_name":"\ud800"#).is_err());
    }

    #[test]
    fn a_field_given_twice_is_read_last_and_named() {
        let r = read(r#"{"tool_name":"Read","tool_name":"Bash","x":1,"x":2}"#);
        assert_eq!(r.input.tool_name.as_deref(), Some("Bash"));
        assert_eq!(
            r.problems,
            ["field tool_name is given more than once (the last one is read)"]
        );
    }

    #[test]
    fn an_event_named_twice_once_as_a_tool_call_is_read_as_the_tool_call() {
        for text in [
            r#"{"hook_event_name":"PreToolUse","hook_event_name":"PostToolUse"}"#,
            r#"{"hook_event_name":"PreToolUse","hook_event_nam\u0065":"Stop"}"#,
            r#"{"hook_event_name":"PostToolUse","hook_event_name":"PreToolUse"}"#,
        ] {
            let r = read(text);
            assert_eq!(
                r.input.hook_event_name.as_deref(),
                Some("PreToolUse"),
                "{text}"
            );
        }
        let r = read(r#"{"hook_event_name":"Stop","hook_event_name":"SessionEnd"}"#);
        assert_eq!(r.input.hook_event_name.as_deref(), Some("SessionEnd"));
    }

    #[test]
    fn a_tool_input_that_is_no_object_is_kept_and_named() {
        let r = read(r#"{"tool_input":"rm -rf /","tool_response":"text"}"#);
        assert_eq!(r.input.tool_input, Some(Value::from("rm -rf /")));
        assert_eq!(r.input.tool_response, Some(Value::from("text")));
        assert_eq!(
            r.problems,
            ["field tool_input: expected an object, got a string"]
        );
    }

    #[test]
    fn what_is_no_object_says_what_it_is() {
        for (text, expected) in [
            ("[1,2]", "expected a JSON object, got an array"),
            ("\"PreToolUse\"", "expected a JSON object, got a string"),
            ("12", "expected a JSON object, got a number"),
            ("null", "expected a JSON object, got null"),
            ("hello", "not valid JSON"),
            ("{\"a\":", "JSON ends early"),
            ("{\"a\":1e999,", "JSON ends early"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.starts_with(expected), "{text}: {e}");
        }
    }

    #[test]
    fn what_follows_a_whole_object_is_ignored_and_named() {
        for tail in [" x", "{\"tool_name\":\"Read\"}", "\u{0}"] {
            let text = format!("{{\"tool_name\":\"Bash\"}}{tail}");
            let read = parse(&text).unwrap();
            assert_eq!(read.input.tool_name.as_deref(), Some("Bash"), "{text:?}");
            assert_eq!(
                read.problems,
                ["text after the JSON object (ignored)"],
                "{text:?}"
            );
        }
    }
    #[test]
    fn a_tool_name_spelled_another_way_is_read_as_the_tool_it_can_only_mean() {
        for name in [
            "bash",
            "BASH",
            " Bash",
            "Bash\n",
            "Bash\u{0}",
            "Bash\u{200b}",
            "\u{feff}bAsH",
        ] {
            let json = serde_json::json!({ "tool_name": name }).to_string();
            let r = read(&json);
            assert_eq!(r.input.tool_name.as_deref(), Some("Bash"), "{name:?}");
            assert!(
                r.problems[0].contains("read as \"Bash\""),
                "{name:?}: {:?}",
                r.problems
            );
        }
        for name in ["Bash", "mcp__x__bash_run", "Bashful", "Ba sh x"] {
            let json = serde_json::json!({ "tool_name": name }).to_string();
            let r = read(&json);
            assert_eq!(r.input.tool_name.as_deref(), Some(name), "{name:?}");
            assert!(r.problems.is_empty(), "{name:?}: {:?}", r.problems);
        }
    }

    #[test]
    fn a_tool_call_that_means_two_things_is_ambiguous() {
        for json in [
            r#"{"tool_name":"Bash","tool_input":{"command":"rm -rf /","command":"ls"}}"#,
            r#"{"tool_name":"Bash","tool_input":{"a":{"b":1,"b":2},"command":"ls"}}"#,
            r#"{"tool_name":"Bash","tool_input":{"edits":[{"x":1,"x":1}]}}"#,
            r#"{"tool_name":"Read","tool_name":"Bash","tool_input":{}}"#,
            r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}{"tool_input":{"command":"rm -rf /"}}"#,
        ] {
            assert!(!read(json).ambiguous.is_empty(), "{json}");
        }
        for json in [
            r#"{"tool_name":"Bash","tool_input":{"command":"ls","description":"ls"}}"#,
            r#"{"session_id":"a","session_id":"b","tool_input":{"command":"ls"}}"#,
            "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"}}\n",
        ] {
            assert!(read(json).ambiguous.is_empty(), "{json}");
        }
        // What is read is what the last key says, as before.
        let r = read(r#"{"tool_input":{"command":"rm -rf /","command":"ls"}}"#);
        assert_eq!(r.input.tool_input.unwrap()["command"], "ls");
    }

    #[test]
    fn control_characters_written_raw_in_strings_are_read_as_if_escaped() {
        let r = read(
            "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf /\tx\",\"d\":\"a\nb \\\" \u{1}\"}}",
        );
        let input = r.input.tool_input.unwrap();
        assert_eq!(input["command"], "rm -rf /\tx");
        assert_eq!(input["d"], "a\nb \" \u{1}");
        assert_eq!(r.problems, [NOTE_CONTROLS]);
        // Outside strings a control character is no JSON.
        assert!(parse("{\"a\":\u{1}1}").is_err());
        assert_eq!(controls_escaped("{\"a\":\"b\"}"), None);
    }

    #[test]
    fn stdin_in_other_encodings_or_behind_zero_bytes_is_decoded() {
        let json = r#"{"tool_name":"Bash","tool_input":{"command":"rm -rf / é"}}"#;
        let utf16 = |big: bool, bom: bool| -> Vec<u8> {
            let mut units: Vec<u16> = json.encode_utf16().collect();
            if bom {
                units.insert(0, 0xfeff);
            }
            units
                .iter()
                .flat_map(|u| {
                    if big {
                        u.to_be_bytes()
                    } else {
                        u.to_le_bytes()
                    }
                })
                .collect()
        };
        let utf32 = |big: bool, bom: bool| -> Vec<u8> {
            let bom = bom.then_some('\u{feff}');
            bom.into_iter()
                .chain(json.chars())
                .flat_map(|c| {
                    let n = u32::from(c);
                    if big {
                        n.to_be_bytes()
                    } else {
                        n.to_le_bytes()
                    }
                })
                .collect()
        };
        let mut cases = vec![
            ("UTF-16LE", utf16(false, false)),
            ("UTF-16BE", utf16(true, false)),
            ("UTF-16LE", utf16(false, true)),
            ("UTF-16BE", utf16(true, true)),
            ("UTF-32LE", utf32(false, false)),
            ("UTF-32BE", utf32(true, true)),
        ];
        let mut behind = b"\0\0\xef\xbb\xbf\xef\xbb\xbf\0".to_vec();
        behind.extend_from_slice(json.as_bytes());
        cases.push(("zero bytes", behind));
        for (what, bytes) in cases {
            let (text, problems) = decode(&bytes);
            assert_eq!(text, json, "{what}");
            assert!(problems[0].contains(what), "{what}: {problems:?}");
        }
        assert_eq!(decode(b"\xef\xbb\xbf{}"), ("{}".into(), vec![]));
        let (text, problems) = decode(b"{\"c\":\"rm -rf / \xff\"}");
        assert_eq!(text, "{\"c\":\"rm -rf / \u{fffd}\"}");
        assert!(problems[0].contains("not valid UTF-8 (at byte 15"));
    }
}
