//! Globs as the guard and the rules use them: every glob nagger compiles goes through
//! [`build_glob`], and a list of globs is compiled lazily, one glob at a time, after a
//! literal prefilter has ruled most candidates out. A bad glob never matches; its problem
//! is handed back as plain data for each caller to report in its own words.

use std::borrow::Cow;
use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobMatcher};

/// Why a glob cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
pub enum GlobError {
    #[error(transparent)]
    Syntax(#[from] globset::Error),
    /// Braces nested so deep that compiling the glob would fail inside the glob
    /// library (a panic) or overflow the stack: refused as a config error instead.
    #[error("{0}")]
    TooDeep(String),
}

/// Deepest nesting of `{…}` alternatives a glob may have: globset turns each level into a
/// regex group, and past the regex nesting limit its compile panics.
pub const MAX_BRACE_DEPTH: usize = 32;

/// Why globset cannot be given `pattern` safely: `{…}` alternatives nested deeper than
/// [`MAX_BRACE_DEPTH`] (its parser recurses per level, and its regex has a nesting limit).
pub fn glob_nesting_problem(pattern: &str) -> Option<String> {
    let mut depth = 0usize;
    let mut deepest = 0usize;
    let mut escaped = false;
    for c in pattern.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    (deepest > MAX_BRACE_DEPTH)
        .then(|| format!("alternatives nested {deepest} deep, more than {MAX_BRACE_DEPTH}"))
}

/// Every glob nagger compiles, the hook's and `doctor`'s alike, goes through here.
pub fn build_glob(pattern: &str, literal_separator: bool) -> Result<Glob, GlobError> {
    if let Some(problem) = glob_nesting_problem(pattern) {
        return Err(GlobError::TooDeep(problem));
    }
    let pattern = posix_classes(pattern);
    Ok(GlobBuilder::new(&pattern)
        .literal_separator(literal_separator)
        .backslash_escape(true)
        .build()?)
}

/// `pattern` with the shell's character classes inside brackets (`[[:alpha:]]`,
/// `[[:digit:]_]`), equivalence classes (`[[=e=]]`) and collating symbols (`[[.a.]]`)
/// written as the plain ranges and characters they stand for in the C locale.
pub fn posix_classes(pattern: &str) -> Cow<'_, str> {
    if !pattern.contains("[:") && !pattern.contains("[=") && !pattern.contains("[.") {
        return Cow::Borrowed(pattern);
    }
    const CLASSES: &[(&str, &str)] = &[
        ("alpha", "a-zA-Z"),
        ("lower", "a-z"),
        ("upper", "A-Z"),
        ("digit", "0-9"),
        ("alnum", "a-zA-Z0-9"),
        ("xdigit", "0-9a-fA-F"),
        ("word", "a-zA-Z0-9_"),
        ("space", " \t\n\r\x0b\x0c"),
        ("blank", " \t"),
        ("punct", "!-/:-@[-`{-~"),
        ("graph", "!-~"),
        ("print", " -~"),
        ("cntrl", "\x00-\x1f\x7f"),
    ];
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut rest = pattern;
    let mut in_bracket = false;
    while let Some(c) = rest.chars().next() {
        if in_bracket && c == '[' {
            let kind = rest[1..].chars().next();
            if let Some(kind @ (':' | '=' | '.')) = kind {
                let close = format!("{kind}]");
                if let Some(end) = rest[2..].find(&close) {
                    let inner = &rest[2..2 + end];
                    let written = match kind {
                        ':' => CLASSES
                            .iter()
                            .find(|(name, _)| *name == inner)
                            .map(|(_, set)| (*set).to_owned()),
                        _ => Some(inner.to_owned()),
                    };
                    if let Some(written) = written {
                        out.push_str(&written);
                        rest = &rest[2 + end + 2..];
                        continue;
                    }
                }
            }
        }
        match c {
            '\\' if rest.len() > 1 => {
                let next = rest[1..].chars().next().map_or(0, char::len_utf8);
                out.push_str(&rest[..=next]);
                rest = &rest[1 + next..];
                continue;
            }
            '[' if !in_bracket => {
                in_bracket = true;
                out.push('[');
                rest = &rest[1..];
                // `[]…]` and `[!]…]`: a `]` first is one of the characters.
                for lead in ["!]", "^]", "]"] {
                    if let Some(after) = rest.strip_prefix(lead) {
                        out.push_str(lead);
                        rest = after;
                        break;
                    }
                }
                continue;
            }
            ']' if in_bracket => in_bracket = false,
            _ => {}
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// A glob of a list that could not be compiled.
#[derive(Debug, Clone)]
pub struct GlobProblem {
    /// Its place in the list.
    pub index: usize,
    pub pattern: String,
    pub error: GlobError,
}

/// A glob compiled on demand, or why it could not be.
type GlobCell = OnceLock<Result<GlobMatcher, GlobError>>;

/// A list of globs, each compiled the first time a candidate passes its literal
/// prefilter. Nothing is allocated until then.
pub struct LazyGlobs<'a> {
    patterns: Cow<'a, [String]>,
    literal_separator: bool,
    built: OnceLock<Box<[GlobCell]>>,
}

impl<'a> LazyGlobs<'a> {
    pub fn new(patterns: impl Into<Cow<'a, [String]>>, literal_separator: bool) -> LazyGlobs<'a> {
        LazyGlobs {
            patterns: patterns.into(),
            literal_separator,
            built: OnceLock::new(),
        }
    }

    /// Whether any glob could match some line of `haystack` (every candidate joined by
    /// newlines): a cheap test that rules a whole list out.
    pub fn could_match(&self, haystack: &str) -> bool {
        self.patterns.iter().any(|p| literals_present(p, haystack))
    }

    /// The first glob matching any of `candidates`.
    pub fn first_match(&self, candidates: &[String]) -> Option<&str> {
        self.first_index(candidates)
            .map(|i| self.patterns[i].as_str())
    }

    /// The index of the first glob matching any of `candidates`.
    pub fn first_index(&self, candidates: &[String]) -> Option<usize> {
        (0..self.patterns.len()).find(|&i| candidates.iter().any(|c| self.is_match(i, c)))
    }

    pub fn any_match(&self, candidates: &[String]) -> bool {
        self.first_match(candidates).is_some()
    }

    fn is_match(&self, index: usize, candidate: &str) -> bool {
        let pattern = &self.patterns[index];
        if !literals_present(pattern, candidate) {
            return false;
        }
        let cells = self
            .built
            .get_or_init(|| self.patterns.iter().map(|_| OnceLock::new()).collect());
        cells[index]
            .get_or_init(|| {
                build_glob(pattern, self.literal_separator).map(|g| g.compile_matcher())
            })
            .as_ref()
            .is_ok_and(|m| m.is_match(candidate))
    }

    /// Bad globs met so far, in list order.
    pub fn problems(&self) -> Vec<GlobProblem> {
        let Some(cells) = self.built.get() else {
            return Vec::new();
        };
        cells
            .iter()
            .enumerate()
            .filter_map(|(index, cell)| match cell.get() {
                Some(Err(error)) => Some(GlobProblem {
                    index,
                    pattern: self.patterns[index].clone(),
                    error: error.clone(),
                }),
                _ => None,
            })
            .collect()
    }
}

/// Whether every literal run of a glob occurs in `candidate`. A glob only matches text
/// that contains its literal characters, so `false` means "cannot match" and spares
/// building it. Runs end at `/` (`**/` may match nothing); alternations are skipped;
/// after a character class nothing more is checked.
fn literals_present(pattern: &str, candidate: &str) -> bool {
    let bytes = pattern.as_bytes();
    let present = |from: usize, to: usize| from >= to || candidate.contains(&pattern[from..to]);
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        let next = match bytes[i] {
            b'*' | b'?' | b'/' => i + 1,
            b'\\' => i + 1 + pattern[i + 1..].chars().next().map_or(0, char::len_utf8),
            b'[' => return present(run, i),
            b'{' => match alternation_end(bytes, i) {
                Some(end) => end,
                None => return present(run, i),
            },
            _ => {
                i += 1;
                continue;
            }
        };
        if !present(run, i) {
            return false;
        }
        i = next;
        run = i;
    }
    present(run, bytes.len())
}

/// Index after the `}` closing the `{` at `open`; `None` when unclosed or when a class
/// inside makes it uncertain.
fn alternation_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'[' => return None,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn the_shells_character_classes_match_as_it_does() {
        let hits = |pattern: &str, name: &str| {
            build_glob(pattern, true)
                .unwrap()
                .compile_matcher()
                .is_match(name)
        };
        for (pattern, name) in [
            (".claude-nagge[[:lower:]]", ".claude-nagger"),
            (".claude-nagge[[:alpha:][:digit:]]", ".claude-nagger"),
            ("settings.local.js[[:alnum:]]n", "settings.local.json"),
            ("[[:punct:]]claude", ".claude"),
            ("[[:print:]]claude", ".claude"),
            ("x[![:digit:]]", "xa"),
            ("[[=a=]]b", "ab"),
            ("[[.a.]]b", "ab"),
            ("[]x]", "]"),
        ] {
            assert!(hits(pattern, name), "{pattern} {name}");
        }
        for (pattern, name) in [
            (".claude-nagge[[:upper:]]", ".claude-nagger"),
            ("x[[:digit:]]", "xa"),
            ("x[![:alpha:]]", "xa"),
        ] {
            assert!(!hits(pattern, name), "{pattern} {name}");
        }
        assert_eq!(posix_classes("a[b]c"), "a[b]c");
    }

    #[test]
    fn literal_prefilter_examples() {
        assert!(literals_present("**/app/views/**/*.erb", "app/views/a.erb"));
        assert!(!literals_present(
            "**/app/views/**/*.erb",
            "app/models/a.rb"
        ));
        assert!(literals_present("git push*", "git push -f"));
        assert!(!literals_present("git push*", "git status"));
        assert!(literals_present("{git,hg} push", "hg push"));
        assert!(
            literals_present("x[a]y", "x"),
            "after a class: let the glob decide"
        );
        assert!(!literals_present("x[a]y", "y"));
        assert!(literals_present("\\é*x", "x"));
    }

    proptest! {
        // The prefilter never rejects a candidate that the glob matches.
        #[test]
        fn literal_prefilter_is_sound(
            pattern in "[ab/*?{},.\\[\\]!\\\\-]{0,12}",
            candidate in "[ab/.,!-]{0,12}",
            separator in any::<bool>(),
        ) {
            if let Ok(glob) = build_glob(&pattern, separator)
                && glob.compile_matcher().is_match(&candidate)
            {
                prop_assert!(literals_present(&pattern, &candidate));
            }
        }
    }
}
