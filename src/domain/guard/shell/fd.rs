//! `fd … --exec CMD` and `fd … --exec-batch CMD` read as the `find` command that runs CMD
//! on the same files, so the guard judges what it reaches the way it judges `find -exec`.
//!
//! fd searches below its search paths (`.` when none is given) for names matching a
//! regular expression (smart case: case-blind unless the pattern holds a capital), a glob
//! with `--glob`, or a fixed string with `--fixed-strings`, skipping hidden entries unless
//! `--hidden`/`--unrestricted`. What cannot be told exactly leaves the search wider, never
//! narrower: ignore files, `--exclude` and size or owner tests are not applied, so the
//! find command reaches at least what fd reaches.

use super::words::{basename, short_cluster};

/// fd's options that take a value, short and long.
const SHORT_VALUES: &str = "edtEjScoxX";
const LONG_VALUES: &[&str] = &[
    "extension",
    "max-depth",
    "min-depth",
    "exact-depth",
    "type",
    "exclude",
    "threads",
    "size",
    "changed-within",
    "changed-before",
    "change-newer-than",
    "change-older-than",
    "newer",
    "older",
    "owner",
    "color",
    "base-directory",
    "path-separator",
    "search-path",
    "ignore-file",
    "max-results",
    "format",
    "batch-size",
    "max-buffer-time",
    "and",
    "hyperlink",
];

/// How fd's pattern is matched.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Kind {
    #[default]
    Regex,
    Glob,
    Fixed,
}

/// What one fd command line asks for.
#[derive(Default)]
struct Search {
    pattern: Option<String>,
    paths: Vec<String>,
    base: Option<String>,
    kind: Kind,
    full_path: bool,
    case: Option<bool>,
    hidden: bool,
    extensions: Vec<String>,
    types: Vec<String>,
    min_depth: Option<String>,
    max_depth: Option<String>,
    changed: bool,
    /// The program and its words, and whether all files go to one run (`--exec-batch`).
    exec: Option<(Vec<String>, bool)>,
}

/// The `find` command that runs what `argv` (an `fd` command) runs on the files it finds,
/// or `None` when it runs nothing.
pub(super) fn as_find(argv: &[String]) -> Option<Vec<String>> {
    let search = read(argv)?;
    let (program, batch) = search.exec.clone()?;
    let starts: Vec<String> = if search.paths.is_empty() {
        vec![".".to_owned()]
    } else {
        search.paths.clone()
    };
    let starts: Vec<String> = match &search.base {
        Some(base) => starts
            .iter()
            .map(|s| {
                let base = base.trim_end_matches('/');
                if s.starts_with('/') || s.starts_with('~') {
                    s.clone()
                } else if s == "." {
                    if base.is_empty() { "/" } else { base }.to_owned()
                } else {
                    format!("{base}/{s}")
                }
            })
            .collect(),
        None => starts,
    };
    let mut globals: Vec<String> = Vec::new();
    let mut tests: Vec<String> = Vec::new();
    if let Some(min) = &search.min_depth {
        globals.extend(["-mindepth".to_owned(), min.clone()]);
    }
    if let Some(max) = &search.max_depth {
        globals.extend(["-maxdepth".to_owned(), max.clone()]);
    }
    if !search.hidden {
        // Hidden entries below a search path are skipped; the search path itself is not.
        for start in &starts {
            let below = start.trim_end_matches('/');
            tests.extend([
                "-not".to_owned(),
                "-path".to_owned(),
                format!("{below}/.*"),
                "-not".to_owned(),
                "-path".to_owned(),
                format!("{below}/*/.*"),
            ]);
        }
    }
    let types: Vec<&str> = search
        .types
        .iter()
        .filter_map(|t| match t.as_str() {
            "f" | "file" => Some("f"),
            "d" | "dir" | "directory" => Some("d"),
            "l" | "symlink" => Some("l"),
            "s" | "socket" => Some("s"),
            "p" | "pipe" => Some("p"),
            // Executable, empty: files or folders, told apart only when run.
            _ => None,
        })
        .collect();
    if types.len() == search.types.len() && !types.is_empty() {
        push_either(
            &mut tests,
            types
                .iter()
                .map(|t| vec!["-type".to_owned(), (*t).to_owned()]),
        );
    }
    if !search.extensions.is_empty() {
        push_either(
            &mut tests,
            search.extensions.iter().map(|e| {
                let e = e.trim_start_matches('.');
                vec!["-iname".to_owned(), format!("*.{e}")]
            }),
        );
    }
    if let Some(pattern) = search.pattern.as_deref().filter(|p| !p.is_empty()) {
        let blind = search
            .case
            .unwrap_or_else(|| !pattern.chars().any(char::is_uppercase));
        let pick =
            |plain: &str, blind_test: &str| if blind { blind_test } else { plain }.to_owned();
        let (name, path) = (pick("-name", "-iname"), pick("-path", "-ipath"));
        let by_name = if search.full_path { path } else { name };
        if search.kind == Kind::Glob {
            tests.extend([by_name, pattern.to_owned()]);
        } else if search.kind == Kind::Fixed {
            let escaped: String = pattern
                .chars()
                .flat_map(|c| {
                    let special = matches!(c, '*' | '?' | '[' | ']' | '\\');
                    special.then_some('\\').into_iter().chain([c])
                })
                .collect();
            tests.extend([by_name, format!("*{escaped}*")]);
        } else {
            let whole = if search.full_path {
                format!(".*({pattern}).*")
            } else {
                format!("(.*/)?[^/]*({pattern})[^/]*")
            };
            globals.extend(["-regextype".to_owned(), "posix-extended".to_owned()]);
            tests.extend([pick("-regex", "-iregex"), whole]);
        }
    }
    if search.changed {
        // `--changed-within 2d`: a test of time, known only when it runs.
        tests.extend(["-mtime".to_owned(), "-1".to_owned()]);
    }
    let mut find = vec!["find".to_owned()];
    find.extend(starts);
    find.extend(globals);
    find.extend(tests);
    find.push("-exec".to_owned());
    let mut placed = false;
    for word in program {
        let (word, had) = placeholders(&word);
        placed |= had;
        find.push(word);
    }
    if !placed {
        find.push("{}".to_owned());
    }
    find.push(if batch { "+" } else { ";" }.to_owned());
    Some(find)
}

/// `( A -o B … )` of the tests given, or the test itself when there is one.
fn push_either(find: &mut Vec<String>, tests: impl Iterator<Item = Vec<String>>) {
    let tests: Vec<Vec<String>> = tests.collect();
    if tests.len() == 1 {
        find.extend(tests.into_iter().flatten());
        return;
    }
    find.push("(".to_owned());
    for (k, test) in tests.into_iter().enumerate() {
        if k > 0 {
            find.push("-o".to_owned());
        }
        find.extend(test);
    }
    find.push(")".to_owned());
}

/// fd's placeholders (`{}`, `{/}`, `{//}`, `{.}`, `{/.}`) in `word` made find's `{}`, and
/// whether there was one. The parent folder or the name without its extension stand for
/// the path found as well: they name it, or a neighbour of it.
fn placeholders(word: &str) -> (String, bool) {
    let mut out = word.to_owned();
    let mut had = false;
    for p in ["{//}", "{/.}", "{/}", "{.}", "{}"] {
        if out.contains(p) {
            had = true;
            out = out.replace(p, "{}");
        }
    }
    (out, had)
}

/// Reads an fd command line.
fn read(argv: &[String]) -> Option<Search> {
    if !matches!(basename(argv.first()?), "fd" | "fdfind") {
        return None;
    }
    let mut s = Search::default();
    let mut positional: Vec<String> = Vec::new();
    let mut k = 1;
    let mut options_done = false;
    while k < argv.len() {
        let word = argv[k].as_str();
        k += 1;
        if options_done || !word.starts_with('-') || word == "-" {
            positional.push(word.to_owned());
            continue;
        }
        if word == "--" {
            options_done = true;
            continue;
        }
        let (name, inline): (String, Option<String>) = if let Some(long) = word.strip_prefix("--") {
            match long.split_once('=') {
                Some((n, v)) => (n.to_owned(), Some(v.to_owned())),
                None => (long.to_owned(), None),
            }
        } else {
            // A cluster of short flags, the last of which may take a value (`-He rs`).
            let flags = short_cluster(word).unwrap_or(&word[1..]);
            let mut chars = flags.char_indices();
            let mut found: Option<(String, Option<String>)> = None;
            for (at, c) in chars.by_ref() {
                if SHORT_VALUES.contains(c) {
                    let rest = &flags[at + c.len_utf8()..];
                    found = Some((c.to_string(), (!rest.is_empty()).then(|| rest.to_owned())));
                    break;
                }
                flag(&mut s, &c.to_string());
            }
            match found {
                Some(f) => f,
                None => continue,
            }
        };
        let short_value = name.len() == 1 && SHORT_VALUES.contains(name.as_str());
        if !(short_value || LONG_VALUES.contains(&name.as_str()) || is_exec(&name)) {
            flag(&mut s, &name);
            continue;
        }
        if is_exec(&name) {
            // The command runs to a `;` or to the end of the line.
            let mut program: Vec<String> = inline.into_iter().collect();
            while k < argv.len() && argv[k] != ";" {
                program.push(argv[k].clone());
                k += 1;
            }
            k += 1;
            if !program.is_empty() {
                s.exec = Some((program, matches!(name.as_str(), "X" | "exec-batch")));
            }
            continue;
        }
        let value = if let Some(v) = inline {
            v
        } else {
            let Some(v) = argv.get(k) else { break };
            k += 1;
            v.clone()
        };
        match name.as_str() {
            "e" | "extension" => s.extensions.push(value),
            "t" | "type" => s.types.push(value),
            "d" | "max-depth" => s.max_depth = Some(value),
            "min-depth" => s.min_depth = Some(value),
            "exact-depth" => {
                s.min_depth = Some(value.clone());
                s.max_depth = Some(value);
            }
            "search-path" => s.paths.push(value),
            "base-directory" => s.base = Some(value),
            "changed-within" | "changed-before" | "change-newer-than" | "change-older-than"
            | "newer" | "older" => s.changed = true,
            _ => {}
        }
    }
    let mut positional = positional.into_iter();
    s.pattern = positional.next();
    s.paths.extend(positional);
    Some(s)
}

fn is_exec(name: &str) -> bool {
    matches!(name, "x" | "X" | "exec" | "exec-batch")
}

/// One flag that takes no value.
fn flag(s: &mut Search, name: &str) {
    match name {
        "H" | "hidden" | "u" | "unrestricted" => s.hidden = true,
        "g" | "glob" => s.kind = Kind::Glob,
        "F" | "fixed-strings" => s.kind = Kind::Fixed,
        "p" | "full-path" => s.full_path = true,
        "s" | "case-sensitive" => s.case = Some(false),
        "i" | "ignore-case" => s.case = Some(true),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::as_find;

    fn find(line: &str) -> Option<String> {
        let argv: Vec<String> = line.split(' ').map(str::to_owned).collect();
        as_find(&argv).map(|f| f.join(" "))
    }

    #[test]
    fn a_search_without_a_command_runs_nothing() {
        assert_eq!(find("fd -e rs"), None);
        assert_eq!(find("fd pattern src"), None);
    }

    #[test]
    fn the_command_runs_on_what_the_search_reaches() {
        assert_eq!(
            find("fd -x rm -rf").as_deref(),
            Some("find . -not -path ./.* -not -path ./*/.* -exec rm -rf {} ;")
        );
        assert_eq!(
            find("fd -H . / -X rm").as_deref(),
            Some("find / -regextype posix-extended -iregex (.*/)?[^/]*(.)[^/]* -exec rm {} +")
        );
        assert_eq!(
            find("fd -u -e toml -x sed -i s/a/b/ {}").as_deref(),
            Some("find . -iname *.toml -exec sed -i s/a/b/ {} ;")
        );
        assert_eq!(
            find("fdfind -HI -t f -g *.db .claude-nagger --exec-batch shred -u {/}").as_deref(),
            Some("find .claude-nagger -type f -iname *.db -exec shred -u {} +")
        );
    }

    #[test]
    fn options_are_read_however_they_are_spelled() {
        assert_eq!(
            find("fd --hidden --extension=py --max-depth 2 --exec=black").as_deref(),
            Some("find . -maxdepth 2 -iname *.py -exec black {} ;")
        );
        assert_eq!(find("fd -Hx rm").as_deref(), Some("find . -exec rm {} ;"));
        assert_eq!(
            find("fd -H --base-directory /etc -x rm").as_deref(),
            Some("find /etc -exec rm {} ;")
        );
    }
}
