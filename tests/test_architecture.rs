//! The shape of the house, checked on the source itself: no two files of `src/` import
//! each other in a circle (directly or round several files), and every import runs
//! down the floors: `base` ← `storage` ← `domain` ← `edge`, with the guard importing only
//! the ground floor. An import is a `use` or a `crate::`/`super::`/`self::` path; a path
//! through a re-export counts as an import of the file that defines the item.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A module path from the crate root: `["domain", "rules", "kind"]`.
type ModPath = Vec<String>;

struct Crate {
    /// Module path → the file that holds it.
    files: BTreeMap<ModPath, PathBuf>,
    /// Module path → its source with comments and literals blanked out.
    texts: BTreeMap<ModPath, String>,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

impl Crate {
    fn load() -> Crate {
        let root = src_dir();
        let mut files = BTreeMap::new();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                if path.extension().is_none_or(|e| e != "rs") {
                    continue;
                }
                let rel = path.strip_prefix(&root).unwrap().with_extension("");
                let mut parts: ModPath = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                match parts.as_slice() {
                    [only] if only == "lib" => parts.clear(),
                    [only] if only == "main" => parts = vec!["<main>".into()],
                    _ if parts.last().is_some_and(|p| p == "mod") => {
                        parts.pop();
                    }
                    _ => {}
                }
                files.insert(parts, path);
            }
        }
        let texts = files
            .iter()
            .map(|(m, p)| (m.clone(), blank(&std::fs::read_to_string(p).unwrap())))
            .collect();
        Crate { files, texts }
    }

    fn children(&self, module: &[String]) -> BTreeSet<&str> {
        self.files
            .keys()
            .filter(|m| m.len() == module.len() + 1 && m[..module.len()] == *module)
            .map(|m| m[module.len()].as_str())
            .collect()
    }

    /// The file that defines what `segments` names, seen from `module`; `None` for a
    /// path outside the crate.
    fn resolve(
        &self,
        module: &[String],
        segments: &[String],
        seen: &mut HashSet<(ModPath, String)>,
    ) -> Option<PathBuf> {
        let mut current: ModPath = module.to_vec();
        let mut rest = segments;
        match rest.first().map(String::as_str) {
            None => return None,
            Some("crate") => {
                current.clear();
                rest = &rest[1..];
            }
            Some("super" | "self") => {
                while let Some(first) = rest.first() {
                    match first.as_str() {
                        "super" => {
                            current.pop();
                        }
                        "self" => {}
                        _ => break,
                    }
                    rest = &rest[1..];
                }
            }
            Some(first) if self.children(&current).contains(first) => {}
            Some(_) => return None,
        }
        for segment in rest {
            if self.children(&current).contains(segment.as_str()) {
                current.push(segment.clone());
                continue;
            }
            if segment == "*" {
                break;
            }
            let text = &self.texts[&current];
            if defines(text, segment) || !seen.insert((current.clone(), segment.clone())) {
                break;
            }
            if let Some(found) = self.reexport(&current, segment, seen) {
                return Some(found);
            }
            break;
        }
        Some(self.files[&current].clone())
    }

    /// Where a `pub use` of `module` that brings in `name` leads.
    fn reexport(
        &self,
        module: &[String],
        name: &str,
        seen: &mut HashSet<(ModPath, String)>,
    ) -> Option<PathBuf> {
        for (public, leaf) in use_leaves(&self.texts[module]) {
            if !public {
                continue;
            }
            match leaf.last().map(String::as_str) {
                Some(last) if last == name => return self.resolve(module, &leaf, seen),
                Some("*") => {
                    let found = self.resolve(module, &leaf, seen)?;
                    if found != self.files[module] {
                        return Some(found);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Every file → the files it imports.
    fn imports(&self) -> BTreeMap<PathBuf, BTreeMap<PathBuf, String>> {
        let mut edges: BTreeMap<PathBuf, BTreeMap<PathBuf, String>> = BTreeMap::new();
        for (module, file) in &self.files {
            let text = &self.texts[module];
            let inline = inline_modules(text);
            let mut paths: Vec<(usize, Vec<String>)> = use_statements(text)
                .into_iter()
                .flat_map(|(at, _, leaves)| leaves.into_iter().map(move |l| (at, l)))
                .collect();
            paths.extend(qualified_paths(text));
            paths.extend(child_paths(text, &self.children(module)));
            for (at, segments) in paths {
                // Inside `mod tests { … }` a `super::` names the file's own module.
                let mut depth = inline.iter().filter(|(a, b)| *a < at && at < *b).count();
                let mut segments = segments.as_slice();
                let self_path: Vec<String>;
                if depth > 0 {
                    let mut climbed = 0;
                    while depth > 0 && segments.first().is_some_and(|s| s == "super") {
                        segments = &segments[1..];
                        depth -= 1;
                        climbed += 1;
                    }
                    if depth > 0 {
                        continue;
                    }
                    if climbed > 0 {
                        self_path = std::iter::once("self".to_string())
                            .chain(segments.iter().cloned())
                            .collect();
                        segments = &self_path;
                    }
                }
                let Some(target) = self.resolve(module, segments, &mut HashSet::new()) else {
                    continue;
                };
                if target != *file {
                    edges
                        .entry(file.clone())
                        .or_default()
                        .entry(target)
                        .or_insert_with(|| segments.join("::"));
                }
            }
        }
        edges
    }
}

/// Whether `text` defines an item called `name` (not counting `use … as name`).
fn defines(text: &str, name: &str) -> bool {
    const KEYWORDS: [&str; 9] = [
        "struct", "enum", "fn", "trait", "type", "const", "static", "union", "mod",
    ];
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = text[from..].find(name) {
        let at = from + found;
        from = at + name.len();
        let end = at + name.len();
        if bytes
            .get(end)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            continue;
        }
        let before = text[..at].trim_end();
        if before.ends_with("macro_rules!") {
            return true;
        }
        let word_start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        if KEYWORDS.contains(&&before[word_start..]) {
            return true;
        }
    }
    false
}

/// The source with comments removed and string and char literals emptied, so that
/// only code is searched for paths.
fn blank(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    let starts = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while i < chars.len() {
        let c = chars[i];
        if starts(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if starts(i, "/*") {
            let mut depth = 1;
            i += 2;
            while i < chars.len() && depth > 0 {
                if starts(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if starts(i, "*/") {
                    depth -= 1;
                    i += 2;
                } else {
                    i += 1;
                }
            }
            continue;
        }
        let after_ident = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == 'r' && !after_ident {
            let mut j = i + 1;
            while chars.get(j) == Some(&'#') {
                j += 1;
            }
            if chars.get(j) == Some(&'"') {
                let hashes = j - i - 1;
                let mut k = j + 1;
                loop {
                    if k >= chars.len() {
                        break;
                    }
                    if chars[k] == '"' && (1..=hashes).all(|h| chars.get(k + h) == Some(&'#')) {
                        k += 1 + hashes;
                        break;
                    }
                    k += 1;
                }
                out.push_str("\"\"");
                i = k;
                continue;
            }
        }
        if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
            continue;
        }
        if c == '\'' {
            // A char literal ('x', '\n', '\u{…}'), not a lifetime.
            let close = if chars.get(i + 1) == Some(&'\\') {
                (i + 3..chars.len().min(i + 12)).find(|&k| chars[k] == '\'')
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            if let Some(close) = close {
                out.push_str("' '");
                i = close + 1;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// `(offset, public, leaves)` of every `use` declaration: each leaf a full path.
fn use_statements(text: &str) -> Vec<(usize, bool, Vec<Vec<String>>)> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(rel) = text[from..].find("use ") {
        let at = from + rel;
        from = at + 4;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let Some(end) = text[at..].find(';') else {
            break;
        };
        let body = &text[at + 4..at + end];
        let line_start = text[..at].rfind(['\n', ';', '{', '}']).map_or(0, |i| i + 1);
        let public = text[line_start..at].contains("pub");
        found.push((at, public, expand(body)));
    }
    found
}

fn use_leaves(text: &str) -> Vec<(bool, Vec<String>)> {
    use_statements(text)
        .into_iter()
        .flat_map(|(_, public, leaves)| leaves.into_iter().map(move |l| (public, l)))
        .collect()
}

/// `a::{b, c::{d as e, self}}` → `a::b`, `a::c::d`, `a::c`.
fn expand(body: &str) -> Vec<Vec<String>> {
    let compact: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut cleaned = String::new();
    let mut words = compact.split(' ').peekable();
    while let Some(word) = words.next() {
        if word == "as" {
            // Drop the alias, keep the separators after it.
            if let Some(alias) = words.next() {
                cleaned
                    .push_str(alias.trim_start_matches(|c: char| c.is_alphanumeric() || c == '_'));
            }
            continue;
        }
        cleaned.push_str(word);
    }
    expand_compact(&cleaned)
}

fn expand_compact(body: &str) -> Vec<Vec<String>> {
    let Some(open) = body.find('{') else {
        let parts: Vec<String> = body
            .trim_end_matches(',')
            .split("::")
            .filter(|s| !s.is_empty())
            .map(|s| s.trim_end_matches(['}', ',']).to_string())
            .collect();
        return if parts.is_empty() {
            vec![]
        } else {
            vec![parts]
        };
    };
    let close = body.rfind('}').unwrap_or(body.len());
    let prefix: Vec<String> = body[..open]
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let inner = &body[open + 1..close];
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    let mut leaves = Vec::new();
    for part in parts.into_iter().filter(|p| !p.is_empty()) {
        for leaf in expand_compact(part) {
            if leaf == ["self"] {
                leaves.push(prefix.clone());
            } else {
                leaves.push(prefix.iter().cloned().chain(leaf).collect());
            }
        }
    }
    leaves
}

/// `crate::…`, `super::…` and `self::…` paths written in code.
fn qualified_paths(text: &str) -> Vec<(usize, Vec<String>)> {
    paths_from(text, ["crate", "super", "self"])
}

/// Paths written from one of the module's own children, `child::item`.
fn child_paths(text: &str, children: &BTreeSet<&str>) -> Vec<(usize, Vec<String>)> {
    paths_from(text, children.iter().copied())
}

/// Every path in `text` that starts with one of `heads` followed by `::` (not itself
/// after `::` or inside a longer name), with its offset.
fn paths_from<'h>(
    text: &str,
    heads: impl IntoIterator<Item = &'h str>,
) -> Vec<(usize, Vec<String>)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for head in heads {
        let head = format!("{head}::");
        let mut from = 0;
        while let Some(rel) = text[from..].find(&head) {
            let at = from + rel;
            from = at + head.len();
            if at > 0 {
                let b = bytes[at - 1];
                if b.is_ascii_alphanumeric() || b == b'_' || b == b':' || b == b'$' {
                    continue;
                }
            }
            let end = text[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '*'))
                .map_or(text.len(), |e| at + e);
            let segments: Vec<String> = text[at..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            found.push((at, segments));
        }
    }
    found
}

/// The byte ranges of inline `mod name { … }` blocks.
fn inline_modules(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut ranges = Vec::new();
    let mut from = 0;
    while let Some(rel) = text[from..].find("mod ") {
        let at = from + rel;
        from = at + 4;
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        let rest = &text[at + 4..];
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let after = rest[name_end..].trim_start();
        if !after.starts_with('{') {
            continue;
        }
        let open = at + 4 + name_end + (rest.len() - name_end - after.len());
        let mut depth = 0;
        let mut close = text.len();
        for (i, b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        ranges.push((at, close));
    }
    ranges
}

/// Strongly connected components of more than one file.
fn circles(edges: &BTreeMap<PathBuf, BTreeMap<PathBuf, String>>) -> Vec<Vec<PathBuf>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<PathBuf, BTreeMap<PathBuf, String>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        on_stack: HashSet<&'a PathBuf>,
        found: Vec<Vec<PathBuf>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a PathBuf) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            if let Some(targets) = self.edges.get(v) {
                for w in targets.keys() {
                    if !self.index.contains_key(w) {
                        self.visit(w);
                        let low = self.low[v].min(self.low[w]);
                        self.low.insert(v, low);
                    } else if self.on_stack.contains(w) {
                        let low = self.low[v].min(self.index[w]);
                        self.low.insert(v, low);
                    }
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: HashSet::new(),
        found: Vec::new(),
    };
    for v in edges.keys() {
        if !tarjan.index.contains_key(v) {
            tarjan.visit(v);
        }
    }
    tarjan.found
}

fn short(path: &Path) -> String {
    path.strip_prefix(src_dir())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn no_two_files_import_each_other_in_a_circle() {
    let krate = Crate::load();
    let edges = krate.imports();
    let found = circles(&edges);
    let mut report = String::new();
    for circle in &found {
        writeln!(report, "circle of {} files:", circle.len()).unwrap();
        for a in circle {
            for (b, why) in &edges[a] {
                if circle.contains(b) {
                    writeln!(report, "  {} -> {} ({why})", short(a), short(b)).unwrap();
                }
            }
        }
    }
    assert!(found.is_empty(), "{report}");
}

/// The floor of a file under `src/`, and its room.
fn floor(path: &Path) -> (usize, String) {
    let rel = short(path);
    let mut parts = rel.split('/');
    let top = parts.next().unwrap_or_default();
    let room = parts
        .next()
        .unwrap_or_default()
        .trim_end_matches(".rs")
        .to_string();
    let floor = match top {
        "base" => 0,
        "storage" => 1,
        "domain" => 2,
        "edge" => 3,
        _ => 4,
    };
    (floor, room)
}

#[test]
fn every_import_runs_down_the_floors_and_the_guard_stands_alone() {
    let edges = Crate::load().imports();
    let mut wrong = Vec::new();
    for (from, targets) in &edges {
        let (from_floor, from_room) = floor(from);
        for (to, why) in targets {
            let (to_floor, to_room) = floor(to);
            let up = to_floor > from_floor;
            let guard_reaches_out =
                from_floor == 2 && from_room == "guard" && to_floor == 2 && to_room != "guard";
            if up || guard_reaches_out {
                wrong.push(format!("{} -> {} ({why})", short(from), short(to)));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that run up:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_checker_sees_circles_and_imports_through_re_exports() {
    let text = blank(
        "pub use a::{B, c::{D as E, self}};\nuse crate::x::Y; // crate::not::this\nlet s = \"crate::nor::this\";",
    );
    let leaves: Vec<Vec<String>> = use_leaves(&text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(
        leaves,
        vec![
            vec!["a".to_string(), "B".into()],
            vec!["a".to_string(), "c".into(), "D".into()],
            vec!["a".to_string(), "c".into()],
            vec!["crate".to_string(), "x".into(), "Y".into()],
        ]
    );
    assert_eq!(qualified_paths(&text).len(), 1);
    assert!(defines("pub(crate) struct Thing;", "Thing"));
    assert!(!defines("use x::Thing;", "Thing"));
    let mut edges = BTreeMap::new();
    let (a, b, c) = (PathBuf::from("a"), PathBuf::from("b"), PathBuf::from("c"));
    edges.insert(a.clone(), BTreeMap::from([(b.clone(), String::new())]));
    edges.insert(b.clone(), BTreeMap::from([(c.clone(), String::new())]));
    edges.insert(c.clone(), BTreeMap::from([(a.clone(), String::new())]));
    assert_eq!(circles(&edges), vec![vec![a, b, c]]);
}
