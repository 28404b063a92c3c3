//! A program's command-line arguments, filled into its code where it reads them: Python's
//! `sys.argv[1]`, `sys.argv[1:]` and the values `argparse` gives (`args.out` for `--out
//! build`, or its `default=`), Node's `process.argv[2]` and `process.argv.slice(2)`,
//! Ruby's `ARGV[0]`, Perl's `$ARGV[0]`, PHP's `$argv[1]`. `python3 split.py data/x.csv
//! build/parts` writes below `build/parts`, as the line says, rather than to names the
//! code computes. Only arguments the line spells out are filled in.

/// Most arguments filled in.
const MAX_ARGS: usize = 32;

/// `code`, run by `runner` with `args` (the program's own arguments, after its file),
/// with what it reads of them written out.
pub(super) fn filled(code: &str, runner: &str, args: &[String]) -> String {
    if args.iter().any(|a| a.contains(['$', '`'])) || args.len() > MAX_ARGS {
        return code.to_owned();
    }
    let name = runner.rsplit('/').next().unwrap_or(runner);
    if name.starts_with("python") || name.starts_with("pypy") {
        python(code, args)
    } else if matches!(name, "node" | "nodejs" | "bun" | "tsx" | "ts-node") {
        let mut out = code.to_owned();
        if out.contains("process.argv.slice(2)") {
            out = out.replace("process.argv.slice(2)", &list(args));
        }
        indexed(&out, "process.argv[", args, 2)
    } else if name == "ruby" {
        indexed(code, "ARGV[", args, 0)
    } else if name == "perl" {
        indexed(code, "$ARGV[", args, 0)
    } else if name == "php" {
        indexed(code, "$argv[", args, 1)
    } else {
        code.to_owned()
    }
}

/// `s` as a single-quoted string literal.
fn literal(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
}

fn list(args: &[String]) -> String {
    format!(
        "[{}]",
        args.iter()
            .map(|a| literal(a))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// `code` with `PREFIX N]` (the argument at `N - first`) written out.
fn indexed(code: &str, prefix: &str, args: &[String], first: usize) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        out.push_str(&rest[..at]);
        let after = &rest[at + prefix.len()..];
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        let value = after[digits.len()..]
            .starts_with(']')
            .then(|| digits.parse::<usize>().ok())
            .flatten()
            .and_then(|n| n.checked_sub(first))
            .and_then(|k| args.get(k));
        if let Some(v) = value {
            out.push_str(&literal(v));
            rest = &after[digits.len() + 1..];
        } else {
            out.push_str(prefix);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn python(code: &str, args: &[String]) -> String {
    let mut out = code.replace("sys.argv[1:]", &list(args));
    out = indexed(&out, "sys.argv[", args, 1);
    argparse(&out, args)
}

/// One `add_argument` of an `argparse` parser.
struct Argument {
    /// The attribute it is read by (`out` for `--out`, `dest=`).
    dest: String,
    /// A positional argument, rather than an option.
    positional: bool,
    /// An option that takes no value (`action='store_true'`).
    flag: bool,
    default: Option<String>,
}

/// `code` with `NS.dest` (where `NS = parser.parse_args()`) written out as the value the
/// command line gives, or the argument's `default=` string.
fn argparse(code: &str, args: &[String]) -> String {
    let Some(namespace) = parsed_namespace(code) else {
        return code.to_owned();
    };
    let declared = declared_arguments(code);
    if declared.is_empty() {
        return code.to_owned();
    }
    // What the command line gives each.
    let mut given: Vec<(String, String)> = Vec::new();
    let positionals: Vec<&Argument> = declared.iter().filter(|a| a.positional).collect();
    let mut next_positional = 0;
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        k += 1;
        if let Some(long) = arg.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            let dest = name.replace('-', "_");
            let Some(found) = declared.iter().find(|a| !a.positional && a.dest == dest) else {
                // An option the parser does not declare: the words after it are not known.
                return code.to_owned();
            };
            if found.flag {
                continue;
            }
            let value = if let Some(v) = inline {
                v
            } else {
                k += 1;
                match args.get(k - 1) {
                    Some(v) => v.clone(),
                    None => return code.to_owned(),
                }
            };
            given.push((dest, value));
        } else if arg.starts_with('-') && arg.len() > 1 {
            // Short options are not matched to their declarations: left as they are.
            return code.to_owned();
        } else if let Some(p) = positionals.get(next_positional) {
            given.push((p.dest.clone(), arg.clone()));
            next_positional += 1;
        } else {
            return code.to_owned();
        }
    }
    let mut out = code.to_owned();
    for a in &declared {
        let value = given
            .iter()
            .rev()
            .find(|(d, _)| *d == a.dest)
            .map(|(_, v)| v.clone())
            .or_else(|| a.default.clone());
        let Some(value) = value else { continue };
        let attribute = format!("{namespace}.{}", a.dest);
        out = replace_word(&out, &attribute, &literal(&value));
    }
    out
}

/// The name `parse_args()` is assigned to (`args = p.parse_args()`).
fn parsed_namespace(code: &str) -> Option<String> {
    let at = code.find(".parse_args(")?;
    let line_start = code[..at].rfind('\n').map_or(0, |n| n + 1);
    let (name, _) = code[line_start..at].split_once('=')?;
    let name = name.trim();
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| name.to_owned())
}

/// The arguments `add_argument(…)` calls declare, with a plain first name.
fn declared_arguments(code: &str) -> Vec<Argument> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices(".add_argument(").take(64) {
        let rest = &code[at + ".add_argument(".len()..];
        let Some(end) = rest.find(")\n").or_else(|| rest.find(')')) else {
            continue;
        };
        let call = &rest[..end];
        let strings = quoted_strings(call);
        let Some(first) = strings.first() else {
            continue;
        };
        // The long name (`'-o', '--out'`) names the attribute.
        let long = strings
            .iter()
            .find(|s| s.starts_with("--"))
            .or_else(|| strings.iter().find(|s| !s.starts_with('-')));
        let Some(name) = long else { continue };
        let positional = !first.starts_with('-');
        let dest =
            keyword(call, "dest").unwrap_or_else(|| name.trim_start_matches('-').replace('-', "_"));
        let flag = call.contains("store_true")
            || call.contains("store_false")
            || call.contains("store_const")
            || call.contains("'count'")
            || call.contains("\"count\"");
        out.push(Argument {
            dest,
            positional,
            flag,
            default: keyword(call, "default"),
        });
    }
    out
}

/// The string value of `name=` in a call's text, when it is a plain string.
fn keyword(call: &str, name: &str) -> Option<String> {
    let at = call.find(&format!("{name}="))?;
    let before = call[..at].chars().next_back();
    if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let value = call[at + name.len() + 1..].trim_start();
    let quote = value.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
    let end = value[1..].find(quote)?;
    let text = &value[1..=end];
    (!text.contains('\\')).then(|| text.to_owned())
}

/// The plain string literals in `text`, in order.
fn quoted_strings(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(['"', '\'']) {
        let q = rest[start..].chars().next().unwrap_or('"');
        let after = &rest[start + 1..];
        let Some(end) = after.find(q) else { break };
        // A keyword's value is no name (`help='…'`).
        let before = rest[..start].trim_end();
        if !before.ends_with('=') {
            out.push(after[..end].to_owned());
        }
        rest = &after[end + 1..];
    }
    out
}

/// `text` with `word` replaced where it stands whole (not `args.out_dir` for
/// `args.out`).
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        let whole = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..at]);
        out.push_str(if whole { with } else { word });
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn arguments_the_line_spells_out_are_filled_in() {
        assert_eq!(
            filled(
                "open(sys.argv[1], 'w')\n",
                "python3",
                &args(&["build/out.txt"])
            ),
            "open('build/out.txt', 'w')\n"
        );
        assert_eq!(
            filled(
                "for f in sys.argv[1:]:\n  os.remove(f)\n",
                "python3",
                &args(&["a", "b"])
            ),
            "for f in ['a', 'b']:\n  os.remove(f)\n"
        );
        assert_eq!(
            filled(
                "fs.writeFileSync(process.argv[2], x)\n",
                "node",
                &args(&["b/m.json"])
            ),
            "fs.writeFileSync('b/m.json', x)\n"
        );
        let parser = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--epochs', type=int, default=1)\np.add_argument('--out', default='checkpoints')\np.add_argument('--resume', action='store_true')\np.add_argument('data')\nargs = p.parse_args()\nos.makedirs(args.out)\nopen(args.data)\n";
        let got = filled(
            parser,
            "python3",
            &args(&["--epochs", "4", "--resume", "--out", "runs/x", "d.csv"]),
        );
        assert!(got.contains("os.makedirs('runs/x')"), "{got}");
        assert!(got.contains("open('d.csv')"), "{got}");
        let got = filled(parser, "python3", &args(&["d.csv"]));
        assert!(got.contains("os.makedirs('checkpoints')"), "{got}");
        // Computed, unknown options, short options: left as they are.
        for words in [&["$X"][..], &["--other", "x"], &["-o", "x"]] {
            let got = filled(parser, "python3", &args(words));
            assert!(got.contains("os.makedirs(args.out)"), "{words:?}: {got}");
        }
        assert_eq!(
            filled("x = sys.argv[3]\n", "python3", &args(&["a"])),
            "x = sys.argv[3]\n"
        );
    }
}
