//! Code given on the command line to programs whose language the guard does not read
//! (`emacs --eval`, `julia -e`, `pwsh -c` …): asked about, since it can do anything its
//! language can. Some programs take their own commands, of which a marked one runs a
//! shell command line (`less +'!cmd'`, `psql -c '\! cmd'`): that line is checked as shell.
//! Languages the code analyser reads (`python3 -c`, `node -e`, `osascript -e` …) are
//! analysed there, not here.

use super::finding::Finding;
use super::programs::Program;
use super::shell::SimpleCommand;

/// What the code given to a program is.
enum Kind {
    /// A language the guard does not read, by name.
    Language(&'static str),
    /// The program's own commands: after one of these markers comes a shell command line.
    ShellEscape(&'static [&'static str]),
}

/// Programs that run code given on their command line, and how it is given.
struct Foreign {
    programs: &'static [&'static str],
    /// Options whose value is code (`--eval CODE`, `--eval=CODE`).
    options: &'static [&'static str],
    /// A prefix that makes a word code by itself (`less +CMD`).
    prefix: Option<&'static str>,
    /// Options are matched whatever their case (PowerShell).
    any_case: bool,
    kind: Kind,
}

const fn lang(
    programs: &'static [&'static str],
    options: &'static [&'static str],
    name: &'static str,
) -> Foreign {
    Foreign {
        programs,
        options,
        prefix: None,
        any_case: false,
        kind: Kind::Language(name),
    }
}

const FOREIGN: &[Foreign] = &[
    lang(
        &["emacs", "xemacs"],
        &["--eval", "-eval", "--execute", "-execute"],
        "Emacs Lisp",
    ),
    lang(&["emacsclient"], &["--eval", "-e"], "Emacs Lisp"),
    lang(&["julia"], &["-e", "--eval", "-E", "--print"], "Julia"),
    lang(&["sbcl"], &["--eval"], "Common Lisp"),
    lang(
        &["ccl", "ccl64", "lx86cl64"],
        &["--eval", "-e"],
        "Common Lisp",
    ),
    lang(&["clisp"], &["-x"], "Common Lisp"),
    lang(&["ecl"], &["-eval", "--eval"], "Common Lisp"),
    lang(&["guile"], &["-c"], "Scheme"),
    lang(&["racket"], &["-e", "--eval"], "Racket"),
    lang(&["csi"], &["-e", "-eval", "-p", "-print"], "Scheme"),
    lang(&["mit-scheme"], &["--eval"], "Scheme"),
    lang(&["clojure", "clj"], &["-e", "--eval"], "Clojure"),
    lang(&["bb"], &["-e", "--eval"], "Clojure"),
    lang(&["erl"], &["-eval"], "Erlang"),
    lang(&["elixir"], &["-e", "--eval"], "Elixir"),
    lang(&["ghc", "ghci"], &["-e"], "Haskell"),
    lang(&["scala"], &["-e"], "Scala"),
    lang(&["groovy"], &["-e"], "Groovy"),
    lang(&["raku", "rakudo", "perl6"], &["-e"], "Raku"),
    lang(&["swipl"], &["-g", "-t"], "Prolog"),
    lang(&["octave"], &["--eval"], "Octave"),
    lang(&["matlab"], &["-batch", "-r"], "MATLAB"),
    lang(&["gnuplot"], &["-e"], "gnuplot"),
    lang(&["qjs", "d8", "rhino", "jjs"], &["-e"], "JavaScript"),
    Foreign {
        programs: &["pwsh", "powershell", "pwsh-preview"],
        options: &["-c", "-command", "-encodedcommand", "-ec", "-e"],
        prefix: None,
        any_case: true,
        kind: Kind::Language("PowerShell"),
    },
    Foreign {
        programs: &["less"],
        options: &[],
        prefix: Some("+"),
        any_case: false,
        kind: Kind::ShellEscape(&["!"]),
    },
    Foreign {
        programs: &["dc"],
        options: &["-e", "--expression"],
        prefix: None,
        any_case: false,
        kind: Kind::ShellEscape(&["!"]),
    },
    Foreign {
        programs: &["psql"],
        options: &["-c", "--command"],
        prefix: None,
        any_case: false,
        kind: Kind::ShellEscape(&["\\!"]),
    },
    Foreign {
        programs: &["mysql", "mariadb"],
        options: &["-e", "--execute"],
        prefix: None,
        any_case: false,
        kind: Kind::ShellEscape(&["\\!", "system "]),
    },
];

/// The code `command` is given, by its row of the table.
fn code_of<'c>(row: &Foreign, command: &'c SimpleCommand) -> Vec<(&'c str, String)> {
    let args = command.args();
    let same = |a: &str, b: &str| {
        if row.any_case {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    };
    let mut out = Vec::new();
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        k += 1;
        if arg == "--" {
            break;
        }
        if let Some(prefix) = row.prefix
            && let Some(code) = arg.strip_prefix(prefix)
            && !code.is_empty()
        {
            // `less ++cmd` applies to every file.
            out.push((code.trim_start_matches(prefix), arg.clone()));
            continue;
        }
        for option in row.options {
            if same(arg, option) {
                if let Some(code) = args.get(k) {
                    out.push((code.as_str(), (*option).to_owned()));
                    k += 1;
                }
                break;
            }
            if let Some((name, code)) = arg.split_once('=')
                && same(name, option)
            {
                out.push((code, (*option).to_owned()));
                break;
            }
        }
    }
    out
}

/// What `command` runs as code the guard does not read, or as its own shell escapes.
pub(super) fn foreign_code(command: &SimpleCommand) -> Vec<Program> {
    let name = command.name();
    let Some(row) = FOREIGN.iter().find(|r| r.programs.contains(&name)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (code, option) in code_of(row, command) {
        match row.kind {
            Kind::Language(language) => {
                out.push(Program::Finding(Finding::ask(
                    "guard:foreign-code",
                    format!(
                        "runs {language} code given to `{name}` with `{option}`, a language \
                         nagger's guard does not read"
                    ),
                    "Ask the user to run it, or do the same with commands the guard can check.",
                )));
                break;
            }
            Kind::ShellEscape(markers) => {
                for marker in markers {
                    for (at, _) in code.match_indices(marker) {
                        let script = code[at + marker.len()..].lines().next().unwrap_or("");
                        if !script.trim().is_empty() {
                            out.push(Program::Script(
                                script.to_owned(),
                                format!("`{marker}` in `{name}`'s `{option}`"),
                            ));
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::guard::shell;

    fn programs(line: &str) -> Vec<Program> {
        let parsed = shell::parse(line);
        foreign_code(&parsed.commands[0])
    }

    #[test]
    fn code_in_unread_languages_is_asked_about() {
        for line in [
            "emacs --batch --eval '(delete-file \".claude/settings.json\")'",
            "emacs -Q -batch '-eval=(x)'",
            "julia -e 'rm(\".claude\"; recursive=true)'",
            "sbcl --non-interactive --eval '(sb-ext:run-program \"/bin/rm\" nil)'",
            "guile -c '(system \"rm -rf /\")'",
            "erl -noshell -eval 'os:cmd(\"rm -rf /\")'",
            "elixir -e 'File.rm_rf!(\"/\")'",
            "pwsh -Command 'Remove-Item -Recurse ~'",
        ] {
            let found = programs(line);
            assert!(
                matches!(found.as_slice(), [Program::Finding(f)] if f.check == "guard:foreign-code"),
                "{line}"
            );
        }
    }

    #[test]
    fn shell_escapes_are_handed_on_as_shell() {
        for (line, script) in [
            ("less +'!rm -rf /' README", "rm -rf /"),
            ("psql -c '\\! rm -rf ~' db", " rm -rf ~"),
            ("mysql -e 'system rm -rf /'", "rm -rf /"),
        ] {
            let found = programs(line);
            assert!(
                matches!(found.as_slice(), [Program::Script(s, _)] if s == script),
                "{line}"
            );
        }
    }

    #[test]
    fn everyday_uses_run_no_code() {
        for line in [
            "emacs README.md",
            "julia script.jl",
            "less +F app.log",
            "less +G README",
            "psql -c 'select 1' db",
            "mysql -e 'show tables'",
            "pwsh ./build.ps1",
        ] {
            assert!(programs(line).is_empty(), "{line}");
        }
    }
}
