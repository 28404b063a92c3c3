//! claude-nagger's globs as nagger's (globset with backslash escapes): file patterns were
//! wcmatch globs (GLOBSTAR, no BRACE, no DOTGLOB), command patterns Python's `fnmatch`.
//! What the two read differently is escaped so that it keeps its old meaning.

/// A wcmatch file glob: `{`/`}` are literal there (no BRACE flag), and `**` inside a path
/// segment is a plain `*`.
pub fn file_glob(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 4);
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                out.push(c);
                if let Some(&n) = chars.get(i + 1) {
                    out.push(n);
                }
                i += 2;
                continue;
            }
            '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '*' if chars.get(i + 1) == Some(&'*') => {
                let whole_segment =
                    (i == 0 || chars[i - 1] == '/') && matches!(chars.get(i + 2), None | Some('/'));
                out.push_str(if whole_segment { "**" } else { "*" });
                i += 2;
                // A run of stars is one.
                while chars.get(i) == Some(&'*') {
                    i += 1;
                }
                continue;
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// An `fnmatch` pattern: no escapes (a backslash is a literal), `{`/`}` literal, and in a
/// class only `!` negates.
pub fn command_glob(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut in_class = false;
    let mut class_start = false;
    for c in pattern.chars() {
        match c {
            '\\' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '[' if !in_class => {
                in_class = true;
                class_start = true;
                out.push(c);
                continue;
            }
            '^' if in_class && class_start => out.push_str(r"\^"),
            ']' if in_class && !class_start => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
        class_start = false;
    }
    if in_class {
        // fnmatch reads an unclosed `[` as a literal.
        return command_glob(&pattern.replace('[', "\u{0}")).replace('\u{0}', r"\[");
    }
    out
}

/// claude-nagger also matched a command pattern against the command's first word alone:
/// the extra glob that says so, when one is needed (a pattern with a space can never
/// match one word; one ending in `*` already matches whatever follows the word).
pub fn first_word_glob(pattern: &str) -> Option<String> {
    if pattern.contains(char::is_whitespace) || pattern.ends_with('*') {
        return None;
    }
    Some(format!("{} *", command_glob(pattern)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::glob::build_glob;

    fn matches(glob: &str, literal_separator: bool, text: &str) -> bool {
        build_glob(glob, literal_separator)
            .unwrap()
            .compile_matcher()
            .is_match(text)
    }

    #[test]
    fn file_globs_keep_wcmatch_meaning() {
        let g = file_glob("**/app/views/**/*.erb");
        assert_eq!(g, "**/app/views/**/*.erb");
        assert!(matches(&g, true, "app/views/a/b.erb"));
        assert!(matches(&g, true, "x/app/views/b.erb"));
        assert!(!matches(&g, true, "app/views/a/b.rb"));
        let g = file_glob("src/{a,b}.rs");
        assert!(matches(&g, true, "src/{a,b}.rs"));
        assert!(!matches(&g, true, "src/a.rs"));
        let g = file_glob("src/a**b");
        assert!(matches(&g, true, "src/axxb"));
        assert!(!matches(&g, true, "src/ax/xb"));
    }

    #[test]
    fn command_globs_keep_fnmatch_meaning() {
        let g = command_glob("git*");
        assert!(matches(&g, false, "git push origin main"));
        assert!(matches(&g, false, "git"));
        let g = command_glob(r"echo \n");
        assert!(matches(&g, false, r"echo \n"));
        let g = command_glob("ls [^a]");
        assert!(matches(&g, false, "ls ^"));
        let g = command_glob("ls [!a]");
        assert!(matches(&g, false, "ls b"));
        assert!(!matches(&g, false, "ls a"));
        let g = command_glob("echo [x");
        assert!(matches(&g, false, "echo [x"));
    }

    #[test]
    fn first_word_patterns_get_a_second_glob() {
        assert_eq!(first_word_glob("npm").as_deref(), Some("npm *"));
        assert_eq!(first_word_glob("git*"), None);
        assert_eq!(first_word_glob("rm -rf *"), None);
    }
}
