//! Paths as the guard reads them: lexically normalised, and relative to the project root
//! when inside it.

use std::path::Path;

/// A path as the guard and file rules match it: lexically normalised (`./`, `..`, `//`), relative to
/// `project_root` when inside it, otherwise as given. Relative paths are taken as relative
/// to the project root already.
pub fn relative_path(path: &str, project_root: &Path) -> String {
    let path = normalize(path);
    let root = normalize(&project_root.to_string_lossy());
    if !path.starts_with('/') || !root.starts_with('/') {
        return path;
    }
    if path == root {
        return ".".to_owned();
    }
    let inside = if root == "/" {
        path.strip_prefix('/')
    } else {
        path.strip_prefix(root.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
    };
    inside.map_or(path.clone(), str::to_owned)
}

/// A path with `.`, empty parts and `..` resolved lexically: nothing is looked up on disk.
pub fn normalize(path: &str) -> String {
    // `~/..`: climbing out of the home leaves it, so the home's own path is needed.
    if let Some(rest) = path.strip_prefix('~')
        && (rest.is_empty() || rest.starts_with('/'))
    {
        let mut depth = 0usize;
        let mut leaves = false;
        for part in rest.split('/') {
            match part {
                "" | "." => {}
                ".." if depth == 0 => leaves = true,
                ".." => depth -= 1,
                _ => depth += 1,
            }
        }
        if leaves && let Some(home) = std::env::var("HOME").ok().filter(|h| h.starts_with('/')) {
            return normalize(&format!("{home}{rest}"));
        }
    }
    // `$CLAUDE_PROJECT_DIR/../bin`, `${TMPDIR}/..`: climbing out of a folder a variable
    // of the environment names needs that folder's own path.
    if path.starts_with('$') && path.contains("/..") {
        let first = path.split('/').next().unwrap_or("");
        let name = first
            .strip_prefix("${")
            .and_then(|n| n.strip_suffix('}'))
            .or_else(|| first.strip_prefix('$'))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        if let Some(value) = name
            .and_then(|n| std::env::var(n).ok())
            .filter(|v| v.starts_with('/') && !v.contains('$'))
        {
            return normalize(&format!("{value}{}", &path[first.len()..]));
        }
    }
    // `"$(mktemp -d)"/../..`: a new folder in the temporary folder, climbed out of.
    let (after, close) = match path.strip_prefix("$(mktemp") {
        Some(after) => (Some(after), ')'),
        None => (path.strip_prefix("`mktemp"), '`'),
    };
    if let Some(after) = after
        && let Some(end) = after.find(close)
        && !after[..end].contains(['/', '$', '`', '('])
        && after[end + 1..].starts_with("/..")
    {
        let base = std::env::var("TMPDIR")
            .ok()
            .filter(|t| t.starts_with('/') && !t.contains('$'))
            .unwrap_or_else(|| "/tmp".to_owned());
        return normalize(&format!("{base}/tmp.mktemp{}", &after[end + 1..]));
    }
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            // A folder only known as the line runs (`$X/..`, `$(mktemp -d)/..`) is not
            // left by `..` on paper: the climb is kept.
            ".." if parts.last().is_some_and(|l| l.contains(['$', '`'])) => parts.push(".."),
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            _ => parts.push(part),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

/// `path` with a leading `$PWD`, `${PWD}`, `$(pwd)` or `` `pwd` `` as `.`, and `$HOME` or
/// `${HOME}` as `~`: the spellings of the current folder and the home a command line
/// uses, as paths the guard can look up.
pub(super) fn here_and_home(path: &str) -> String {
    if let Some(trimmed) = trimmed_here_or_home(path) {
        return trimmed;
    }
    for (word, with) in [
        ("$PWD", "."),
        ("${PWD}", "."),
        ("$(pwd)", "."),
        ("`pwd`", "."),
        ("$HOME", "~"),
        ("${HOME}", "~"),
    ] {
        if let Some(rest) = path.strip_prefix(word)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return format!("{with}{rest}");
        }
    }
    path.to_owned()
}

/// `${HOME%/*}/bin`, `${PWD%/}/x`, `${PWD%/*}/y`: the home's value with a pattern taken
/// off either end, and the current folder's parents, as paths the guard can look up.
fn trimmed_here_or_home(path: &str) -> Option<String> {
    let inner = path.strip_prefix("${")?;
    let close = inner.find('}')?;
    let (body, rest) = (&inner[..close], &inner[close + 1..]);
    if !(rest.is_empty() || rest.starts_with('/')) {
        return None;
    }
    if let Some(op) = body.strip_prefix("PWD") {
        // The current folder never ends with `/`; each `/*` taken off is a parent.
        let parents = if op == "%/" {
            0
        } else {
            let pattern = op.strip_prefix('%')?;
            if pattern.is_empty() || pattern.len() % 2 != 0 || pattern.starts_with('%') {
                return None;
            }
            let ups = pattern.len() / 2;
            (pattern == "/*".repeat(ups)).then_some(ups)?
        };
        let base = if parents == 0 {
            ".".to_owned()
        } else {
            vec![".."; parents].join("/")
        };
        return Some(format!("{base}{rest}"));
    }
    let op = body.strip_prefix("HOME")?;
    let home = std::env::var("HOME").ok().filter(|h| h.starts_with('/'))?;
    let value = trim_value(&home, op)?;
    value.starts_with('/').then(|| format!("{value}{rest}"))
}

/// `value` with the shortest (`%`, `#`) or longest (`%%`, `##`) end or start matching
/// `pattern` taken off, as the shell's `${v%p}` does; `None` for any other operator.
fn trim_value(value: &str, op: &str) -> Option<String> {
    let (suffix, longest, pattern) = if let Some(p) = op.strip_prefix("%%") {
        (true, true, p)
    } else if let Some(p) = op.strip_prefix('%') {
        (true, false, p)
    } else if let Some(p) = op.strip_prefix("##") {
        (false, true, p)
    } else if let Some(p) = op.strip_prefix('#') {
        (false, false, p)
    } else {
        return None;
    };
    if pattern.contains(['$', '`', '\\', '"', '\'']) {
        return None;
    }
    let matches = |piece: &str| {
        if pattern.contains(['*', '?', '[']) {
            wildcard(pattern, piece)
        } else {
            piece == pattern
        }
    };
    let cuts: Vec<usize> = (0..=value.len())
        .filter(|&k| value.is_char_boundary(k))
        .collect();
    let found = if suffix {
        let mut starts: Vec<usize> = cuts.clone();
        if !longest {
            starts.reverse();
        }
        starts
            .into_iter()
            .find(|&k| matches(&value[k..]))
            .map(|k| value[..k].to_owned())
    } else {
        let mut ends = cuts;
        if longest {
            ends.reverse();
        }
        ends.into_iter()
            .find(|&k| matches(&value[..k]))
            .map(|k| value[k..].to_owned())
    };
    Some(found.unwrap_or_else(|| value.to_owned()))
}

/// Whether a one-part glob (`*`, `?`, `[…]` as one character) matches `name`.
pub(super) fn wildcard(pattern: &str, name: &str) -> bool {
    fn go(p: &[u8], n: &[u8], budget: &mut usize) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some(b'*'), _) => go(&p[1..], n, budget) || (!n.is_empty() && go(p, &n[1..], budget)),
            (Some(b'?'), Some(_)) => go(&p[1..], &n[1..], budget),
            (Some(b'['), Some(c)) => match p.iter().position(|&x| x == b']') {
                Some(end) => {
                    let class = &p[1..end];
                    let negated = class.first().is_some_and(|b| *b == b'!' || *b == b'^');
                    let set = if negated { &class[1..] } else { class };
                    (in_class(set, *c) != negated) && go(&p[end + 1..], &n[1..], budget)
                }
                None => false,
            },
            (Some(a), Some(b)) if a == b => go(&p[1..], &n[1..], budget),
            _ => false,
        }
    }
    let mut budget = 10_000;
    pattern.contains(['*', '?', '[']) && go(pattern.as_bytes(), name.as_bytes(), &mut budget)
}

/// Whether `c` is one of a bracket class's characters or ranges (`a-z0-9_`).
fn in_class(set: &[u8], c: u8) -> bool {
    let mut k = 0;
    while k < set.len() {
        if k + 2 < set.len() && set[k + 1] == b'-' {
            if (set[k]..=set[k + 2]).contains(&c) {
                return true;
            }
            k += 3;
        } else {
            if set[k] == c {
                return true;
            }
            k += 1;
        }
    }
    false
}

/// The folder a command line's commands run in, as far as it can be followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Cwd {
    /// A path relative to where the line starts (`""` for there), or absolute, or `~/…`.
    Known(String),
    /// A `cd` to a variable, a command substitution or `-`.
    Unknown,
}

impl Cwd {
    /// Where a call's command line starts: the folder the call is made from (`cwd`, which
    /// Claude Code keeps from one shell call to the next), relative to the project root
    /// when inside it, else absolute; the project root itself when not given.
    pub(super) fn start(project_root: &Path, cwd: Option<&Path>) -> Cwd {
        let Some(cwd) = cwd.map(|c| c.to_string_lossy()) else {
            return Cwd::Known(String::new());
        };
        match relative_path(&cwd, project_root) {
            here if here == "." => Cwd::Known(String::new()),
            there => Cwd::Known(there),
        }
    }
}

/// `path` as seen from where the line starts, when the folder it is relative to is known.
pub(super) fn resolve(cwd: &Cwd, path: &str) -> Option<String> {
    // `$PWD/x`, `${HOME%/*}/y`: the current folder and the home as the guard looks them up.
    let spelled;
    let path = if path.starts_with(['$', '`']) {
        spelled = here_and_home(path);
        spelled.as_str()
    } else {
        path
    };
    if path.starts_with(['/', '~']) || path.starts_with("$HOME") || path.starts_with("${HOME}") {
        return Some(path.to_owned());
    }
    match cwd {
        Cwd::Known(dir) if dir.is_empty() => Some(path.to_owned()),
        Cwd::Known(dir) => Some(format!("{dir}/{path}")),
        Cwd::Unknown => None,
    }
}

/// The name a `$` refers to, given the text after it (`NAME…` or `{NAME}…`), with how
/// many bytes of that text the reference takes.
pub(super) fn reference_after_dollar(after: &str) -> Option<(&str, usize)> {
    if let Some(inner) = after.strip_prefix('{') {
        return inner.find('}').map(|end| (&inner[..end], end + 2));
    }
    let end = after
        .find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
        .unwrap_or(after.len());
    Some((&after[..end], end))
}

/// Python bytecode, or a folder of it: a `*.pyc`/`*.pyo` file, or anything in a
/// `__pycache__` folder.
pub(crate) fn python_bytecode(path: &str) -> bool {
    let lexical = normalize(path);
    let name = lexical.rsplit('/').next().unwrap_or(&lexical);
    let ext = std::path::Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    matches!(ext.as_deref(), Some("pyc" | "pyo"))
        || lexical.split('/').any(|part| part == "__pycache__")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn a_line_starts_in_the_folder_the_call_is_made_from() {
        let root = Path::new("/work/proj");
        let start = |cwd: Option<&str>| Cwd::start(root, cwd.map(Path::new));
        assert_eq!(start(None), Cwd::Known(String::new()));
        assert_eq!(start(Some("/work/proj")), Cwd::Known(String::new()));
        assert_eq!(start(Some("/work/proj/")), Cwd::Known(String::new()));
        assert_eq!(
            start(Some("/work/proj/.claude-nagger")),
            Cwd::Known(".claude-nagger".into())
        );
        assert_eq!(
            start(Some("/work/proj/a/../.claude")),
            Cwd::Known(".claude".into())
        );
        assert_eq!(
            start(Some("/root/.cargo/bin")),
            Cwd::Known("/root/.cargo/bin".into())
        );
        assert_eq!(start(Some("/")), Cwd::Known("/".into()));
        assert_eq!(start(Some("sub")), Cwd::Known("sub".into()));
    }

    #[test]
    fn paths_are_made_relative_lexically() {
        let root = Path::new("/work/proj/");
        let cases = BTreeMap::from([
            ("/work/proj/app/a.rb", "app/a.rb"),
            ("/work/proj/./app/../lib/b.rb", "lib/b.rb"),
            ("/work/proj", "."),
            ("/work/project/x", "/work/project/x"),
            ("/work/proj/../other/x", "/work/other/x"),
            ("/etc//passwd", "/etc/passwd"),
            ("./src//main.rs", "src/main.rs"),
            ("../sibling/x", "../sibling/x"),
            ("a/../../b", "../b"),
            ("/../..", "/"),
        ]);
        for (path, expected) in cases {
            assert_eq!(relative_path(path, root), expected, "{path}");
        }
        assert_eq!(relative_path("/x/y", Path::new("/")), "x/y");
    }

    #[test]
    fn one_part_globs_match_as_the_shell_matches_them() {
        for (pattern, name) in [
            ("nagger-s[0-9]*", "nagger-s39c"),
            ("[a-c]?t", "bat"),
            ("x[!0-9]", "xa"),
            ("[-a]b", "-b"),
            ("*.json", "settings.json"),
        ] {
            assert!(wildcard(pattern, name), "{pattern} {name}");
        }
        for (pattern, name) in [
            ("nagger-s[0-9]*", "nagger-sx"),
            ("x[!0-9]", "x5"),
            ("[a-c]?t", "dat"),
            ("plain", "plain"),
        ] {
            assert!(!wildcard(pattern, name), "{pattern} {name}");
        }
    }
}

#[cfg(test)]
mod trim_tests {
    use super::*;

    #[test]
    fn trimmed_home_and_current_folder_are_paths() {
        assert_eq!(trim_value("/home/me", "%/*").as_deref(), Some("/home"));
        assert_eq!(trim_value("/home/me", "%%/*").as_deref(), Some(""));
        assert_eq!(trim_value("/home/me", "#/home").as_deref(), Some("/me"));
        assert_eq!(trim_value("/home/me", "##*/").as_deref(), Some("me"));
        assert_eq!(
            trim_value("/home/me", "%/nothing").as_deref(),
            Some("/home/me")
        );
        assert_eq!(trimmed_here_or_home("${PWD%/}/x").as_deref(), Some("./x"));
        assert_eq!(
            trimmed_here_or_home("${PWD%/*}/p/.claude").as_deref(),
            Some("../p/.claude")
        );
        assert_eq!(
            trimmed_here_or_home("${PWD%/*/*}").as_deref(),
            Some("../..")
        );
        assert_eq!(trimmed_here_or_home("${PWD#x}/y"), None);
    }
}

/// `word` with `$NAME` and `${NAME}` replaced by their values in the environment the hook
/// shares with the agent's shell, but for the names `kept` says to leave as written (those
/// the line sets, `PWD`) and names not set there.
pub(super) fn environment_filled(word: &str, kept: impl Fn(&str) -> bool) -> String {
    crate::base::text::replace_dollar(word, |after| {
        let (name, len) = reference_after_dollar(after)?;
        let plain =
            !name.is_empty() && name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric());
        if !plain || kept(name) {
            return None;
        }
        Some((len, std::env::var(name).ok().filter(|v| !v.is_empty())?))
    })
}

/// `word` with the command substitutions whose output is known from their text alone
/// worked out, innermost first: `$(dirname P)`, `$(basename P [SUFFIX])` and `$(cd D &&
/// pwd)` of literal paths (`$(cd scripts/.. && pwd)` is `.`, relative to where the line
/// runs). `None` when none is.
pub(super) fn pure_substitutions(word: &str) -> Option<String> {
    if !word.contains("$(") {
        return None;
    }
    let constants = line_constants(word);
    let mut out = word.to_owned();
    let mut changed = false;
    let mut k = 0;
    let mut left = 64;
    while left > 0
        && let Some(found) = out[k..].find("$(")
    {
        left -= 1;
        let start = k + found;
        let Some(end) = out[start + 2..].find(')').map(|e| start + 2 + e) else {
            break;
        };
        let inner = &out[start + 2..end];
        // `out=build/x; mkdir -p "$(dirname "$out")"`: a name the line set to a literal
        // before, once, is that literal.
        let filled = (!constants.is_empty())
            .then(|| {
                crate::base::text::replace_dollar(inner, |after| {
                    let (name, len) = reference_after_dollar(after)?;
                    let value = constants.iter().find(|(n, _)| n == name)?;
                    Some((len, value.1.clone()))
                })
            })
            .filter(|f| f != inner);
        let inner = filled.as_deref().unwrap_or(inner);
        let value = (!inner.contains("$(") && !inner.contains('`') && !inner.starts_with('('))
            .then(|| pure_output(inner))
            .flatten()
            .filter(|v| {
                // Put in as it is only where it reads the same quoted or not.
                !v.is_empty()
                    && !v.contains(|c: char| {
                        c.is_whitespace() || "'\"\\$`*?[]{}()<>|&;!#~".contains(c)
                    })
            });
        match value {
            Some(value) => {
                out.replace_range(start..=end, &value);
                changed = true;
                // What holds it may now be worked out too: from the start again.
                k = 0;
            }
            None => k = start + 2,
        }
    }
    changed.then_some(out)
}

/// The names a line sets to a literal in its first, plain statements (`out=build/x;`,
/// `export D="dist"`), before any substitution, bracket, `&&` or control word, and sets
/// nowhere else: no other word names them (`read out`, `for out in`, `out+=x`,
/// `${out:=x}`), so each holds its literal wherever a later statement reads it.
fn line_constants(text: &str) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = Vec::new();
    for statement in text.split(['\n', ';']) {
        let statement = statement.trim();
        if statement.is_empty() || statement.starts_with('#') {
            continue;
        }
        if statement.contains(['(', ')', '{', '}', '`', '|', '&', '<', '>', '\\']) {
            break;
        }
        let mut words = statement.split_whitespace().peekable();
        if words
            .peek()
            .is_some_and(|w| matches!(*w, "export" | "readonly" | "declare" | "local" | "typeset"))
        {
            words.next();
        }
        for word in words {
            let Some((name, value)) = word.split_once('=') else {
                break;
            };
            let plain_name = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric());
            if !plain_name {
                break;
            }
            let value = match value.as_bytes().first() {
                Some(b'\'') if value.len() > 1 && value.ends_with('\'') => {
                    &value[1..value.len() - 1]
                }
                Some(b'"') if value.len() > 1 && value.ends_with('"') => &value[1..value.len() - 1],
                _ => value,
            };
            let literal = !value.is_empty()
                && value.chars().all(|c| {
                    c.is_ascii_alphanumeric()
                        || matches!(c, '/' | '.' | '_' | '-' | '+' | '@' | '%' | ':' | ',')
                });
            found.retain(|(n, _)| n != name);
            if literal {
                found.push((name.to_owned(), value.to_owned()));
            }
        }
    }
    // Set once: the name stands nowhere else but after `$`.
    found.retain(|(name, _)| {
        let mut bare = 0;
        for (at, _) in text.match_indices(name.as_str()) {
            let before = text[..at].chars().next_back();
            let after = text[at + name.len()..].chars().next();
            if before.is_some_and(|c| c == '_' || c.is_ascii_alphanumeric())
                || after.is_some_and(|c| c == '_' || c.is_ascii_alphanumeric())
            {
                continue;
            }
            let used = text[..at].ends_with('$')
                || text[..at].ends_with("${")
                    && after.is_some_and(|c| matches!(c, '}' | ':' | '-' | '#' | '%'))
                    && !text[at + name.len()..].starts_with(":=")
                    && !text[at + name.len()..].starts_with(":?");
            if !used {
                bare += 1;
            }
        }
        bare == 1
    });
    found
}

/// What the command line `inner` prints, when its text alone says.
fn pure_output(inner: &str) -> Option<String> {
    let words = plain_words(inner)?;
    let words: Vec<&str> = words
        .iter()
        .map(String::as_str)
        .filter(|w| {
            !matches!(
                *w,
                ">/dev/null" | "&>/dev/null" | "2>/dev/null" | "1>/dev/null"
            )
        })
        .collect();
    let literal = |p: &str| {
        !p.is_empty()
            && !p.starts_with('-')
            && !p.contains(['$', '`', '*', '?', '[', '~', '\\', '\n'])
    };
    match words.as_slice() {
        ["dirname", path] if literal(path) => Some(dirname(path)),
        ["basename", path] if literal(path) => Some(basename(path).to_owned()),
        ["basename", path, suffix] if literal(path) && !suffix.starts_with('-') => {
            let base = basename(path);
            Some(
                base.strip_suffix(suffix)
                    .filter(|b| !b.is_empty())
                    .unwrap_or(base)
                    .to_owned(),
            )
        }
        ["cd", dir, "&&" | ";", "pwd", rest @ ..]
            if literal(dir) && rest.iter().all(|r| matches!(*r, "-P" | "-L")) =>
        {
            let path = normalize(dir);
            Some(if path.is_empty() {
                ".".to_owned()
            } else {
                path
            })
        }
        _ => None,
    }
}

/// The words of a simple command line without expansions: quotes read, `&&` and `;`
/// kept as words. `None` when it holds anything more.
fn plain_words(text: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    let push = |word: &mut String, quoted: &mut bool, words: &mut Vec<String>| {
        if !word.is_empty() || *quoted {
            words.push(std::mem::take(word));
        }
        *quoted = false;
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => push(&mut word, &mut quoted, &mut words),
            '\'' | '"' => {
                quoted = true;
                loop {
                    let inner = chars.next()?;
                    if inner == c {
                        break;
                    }
                    if c == '"' && matches!(inner, '$' | '`' | '\\') {
                        return None;
                    }
                    word.push(inner);
                }
            }
            ';' => {
                push(&mut word, &mut quoted, &mut words);
                words.push(";".to_owned());
            }
            '&' if chars.peek() == Some(&'&') => {
                chars.next();
                push(&mut word, &mut quoted, &mut words);
                words.push("&&".to_owned());
            }
            '|' | '<' | '(' | ')' | '\\' | '$' | '`' => return None,
            _ => word.push(c),
        }
    }
    push(&mut word, &mut quoted, &mut words);
    Some(words)
}

/// What `dirname` prints for `path`.
fn dirname(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".to_owned();
    }
    match trimmed.rsplit_once('/') {
        None => ".".to_owned(),
        Some((dir, _)) => {
            let dir = dir.trim_end_matches('/');
            if dir.is_empty() {
                "/".to_owned()
            } else {
                dir.to_owned()
            }
        }
    }
}

/// What `basename` prints for `path`.
fn basename(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/";
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

#[cfg(test)]
mod substitution_tests {
    use super::pure_substitutions;

    #[test]
    fn substitutions_whose_output_the_text_says_are_worked_out() {
        let worked = |w: &str| pure_substitutions(w);
        assert_eq!(
            worked("mkdir -p \"$(dirname build/a/b.txt)\"").as_deref(),
            Some("mkdir -p \"build/a\"")
        );
        assert_eq!(
            worked("rm -rf $(dirname $(dirname .claude/a/b))").as_deref(),
            Some("rm -rf .claude")
        );
        assert_eq!(
            worked("cp x \"$(basename /a/b/c.tar.gz .gz)\"").as_deref(),
            Some("cp x \"c.tar\"")
        );
        assert_eq!(
            worked("ROOT=\"$(cd \"scripts/..\" && pwd)\"; rm -rf \"$ROOT/dist\"").as_deref(),
            Some("ROOT=\".\"; rm -rf \"$ROOT/dist\"")
        );
        assert_eq!(
            worked("x=$(cd tools >/dev/null && pwd -P)").as_deref(),
            Some("x=tools")
        );
        assert_eq!(worked("d=$(dirname /x)").as_deref(), Some("d=/"));
        // A name the line set to a literal, once, before.
        assert_eq!(
            worked(
                "out=build/report/index.html; mkdir -p \"$(dirname \"$out\")\" && echo x > \"$out\""
            )
            .as_deref(),
            Some("out=build/report/index.html; mkdir -p \"build/report\" && echo x > \"$out\"")
        );
        assert_eq!(
            worked("set -eu\nexport OUT='.claude/x'\nrm -rf \"$(dirname ${OUT})\"").as_deref(),
            Some("set -eu\nexport OUT='.claude/x'\nrm -rf \".claude\"")
        );
        for kept in [
            "out=build/x; read -r out; mkdir -p \"$(dirname \"$out\")\"",
            "out=build/x; for out in a b; do mkdir -p \"$(dirname \"$out\")\"; done",
            "true && out=build/x; mkdir -p \"$(dirname \"$out\")\"",
            "out=build/x; out+=/y; mkdir -p \"$(dirname \"$out\")\"",
            "out=build/x; : ${out:=z}; mkdir -p \"$(dirname \"$out\")\"",
            "out=$HOME/x; mkdir -p \"$(dirname \"$out\")\"",
            "f() { out=.claude/x; }; out=build/x; f; mkdir -p \"$(dirname \"$out\")\"",
        ] {
            assert!(
                !worked(kept).is_some_and(|w| w.contains("\"build\"")),
                "{kept}"
            );
        }
        // What depends on the line's variables, the file system or the shell is left.
        for kept in [
            "mkdir -p \"$(dirname \"$out\")\"",
            "rm -rf $(ls -d .c*)",
            "cd $(mktemp -d)",
            "x=$(dirname \"a b/c\")",
            "x=$(dirname ~/x)",
            "x=$(cd a | pwd)",
            "echo hi",
        ] {
            assert_eq!(worked(kept), None, "{kept}");
        }
        // The later of two is worked out though the first is not.
        assert_eq!(
            worked("rm -rf $(ls x) $(dirname .claude/s.json)").as_deref(),
            Some("rm -rf $(ls x) .claude")
        );
    }
}
