//! Code given on the command line to programs whose language the guard does not read
//! (`emacs --eval`, `julia -e`, `pwsh -c` …): asked about, since it can do anything its
//! language can. Some programs take their own commands, of which a marked one runs a
//! shell command line (`less +'!cmd'`, `psql -c '\! cmd'`): that line is checked as shell.
//! Languages the code analyser reads (`python3 -c`, `node -e`, `osascript -e` …) are
//! analysed there, not here.

use super::finding::Finding;
use super::programs::Program;
use super::protect;
use super::shell::SimpleCommand;

/// What the code given to a program is.
enum Kind {
    /// A language the guard does not read, by name, with the words of it that reach
    /// processes, files or code built at run time: code naming none of them
    /// (`julia -e 'using Pkg; Pkg.test()'`) passes, code naming one is asked about. No
    /// words: every piece of code is asked about.
    Language(&'static str, &'static [&'static str]),
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
    words: &'static [&'static str],
) -> Foreign {
    Foreign {
        programs,
        options,
        prefix: None,
        any_case: false,
        kind: Kind::Language(name, words),
    }
}

const ELISP: &[&str] = &[
    "delete-file",
    "delete-directory",
    "shell-command",
    "async-shell-command",
    "call-process",
    "call-process-shell-command",
    "process-file",
    "start-process",
    "make-process",
    "start-file-process",
    "write-region",
    "write-file",
    "with-temp-file",
    "save-buffer",
    "rename-file",
    "copy-file",
    "copy-directory",
    "make-symbolic-link",
    "set-file-modes",
    "eval",
    "funcall",
    "apply",
    "load",
    "load-file",
    "intern",
    "read",
    "dired",
];
const JULIA: &[&str] = &[
    "rm",
    "run",
    "cp",
    "mv",
    "write",
    "open",
    "touch",
    "chmod",
    "chown",
    "symlink",
    "mkpath",
    "pipeline",
    "spawn",
    "Cmd",
    "`",
    "ccall",
    "@ccall",
    "eval",
    "@eval",
    "include",
    "include_string",
    "parse",
    "getfield",
    "Symbol",
    "download",
    "Base.Filesystem",
];
const LISP: &[&str] = &[
    "delete-file",
    "delete-directory",
    "delete-directory-and-files",
    "rename-file",
    "run-program",
    "run-shell-command",
    "launch-program",
    "shell",
    "system",
    "sb-ext",
    "uiop",
    "ext:",
    "open",
    "with-open-file",
    "eval",
    "load",
    "funcall",
    "apply",
    "intern",
    "read-from-string",
    "symbol-function",
    "compile",
];
const SCHEME: &[&str] = &[
    "system",
    "system*",
    "process",
    "subprocess",
    "open-pipe",
    "open-input-pipe",
    "open-output-pipe",
    "shell",
    "delete-file",
    "delete-directory",
    "delete-directory/files",
    "rename-file",
    "rename-file-or-directory",
    "copy-file",
    "copy-directory/files",
    "open-output-file",
    "call-with-output-file",
    "with-output-to-file",
    "make-file-or-directory-link",
    "eval",
    "load",
    "primitive-load",
    "primitive-eval",
    "dynamic-require",
    "string->symbol",
];
const CLOJURE: &[&str] = &[
    "sh",
    "shell",
    "process",
    "exec",
    "ProcessBuilder",
    "Runtime",
    "delete",
    "delete-file",
    "delete-tree",
    "spit",
    "move",
    "copy",
    "eval",
    "load-file",
    "load-string",
    "read-string",
    "resolve",
    "requiring-resolve",
    "intern",
];
const ERLANG: &[&str] = &[
    "os:cmd",
    "open_port",
    "file:delete",
    "file:del_dir",
    "del_dir_r",
    "file:write_file",
    "file:rename",
    "file:copy",
    "file:change_mode",
    "apply",
    "spawn",
    "rpc",
    "code:",
    "erl_eval",
    "list_to_atom",
    "binary_to_atom",
];
const ELIXIR: &[&str] = &[
    "System.cmd",
    "System.shell",
    ":os.cmd",
    "Port.open",
    "File.rm",
    "File.rm_rf",
    "File.rmdir",
    "File.write",
    "File.rename",
    "File.cp",
    "File.cp_r",
    "File.ln_s",
    "File.chmod",
    "Code.eval_string",
    "Code.eval_file",
    "Code.require_file",
    "apply",
    "spawn",
    "String.to_atom",
    "Mix.Shell",
];
const HASKELL: &[&str] = &[
    "system",
    "rawSystem",
    "callCommand",
    "callProcess",
    "readProcess",
    "readCreateProcess",
    "spawnCommand",
    "spawnProcess",
    "createProcess",
    "proc",
    "shell",
    "removeFile",
    "removeDirectory",
    "removeDirectoryRecursive",
    "removePathForcibly",
    "renameFile",
    "renameDirectory",
    "writeFile",
    "appendFile",
    "copyFile",
    "unsafePerformIO",
];
const JVM: &[&str] = &[
    "execute",
    "Process",
    "ProcessBuilder",
    "Runtime",
    "sys.process",
    "!",
    "delete",
    "deleteDir",
    "deleteRecursively",
    "Files",
    "File",
    "FileUtils",
    "write",
    "renameTo",
    "evaluate",
    "Eval",
    "GroovyShell",
    "ScriptEngine",
    "Class.forName",
    "invoke",
];
const RAKU: &[&str] = &[
    "run", "shell", "qx", "qqx", "Proc", "unlink", "rmdir", "rename", "move", "copy", "spurt",
    "chmod", "symlink", "open", "EVAL", "EVALFILE", "::",
];
const PROLOG: &[&str] = &[
    "shell",
    "process_create",
    "delete_file",
    "delete_directory",
    "rename_file",
    "open",
    "tell",
    "consult",
    "load_files",
    "call",
    "assert",
    "asserta",
    "assertz",
    "atom_to_term",
    "term_to_atom",
];
const MATLAB: &[&str] = &[
    "system", "unix", "dos", "!", "delete", "rmdir", "movefile", "copyfile", "fopen", "save",
    "eval", "evalin", "evalc", "feval", "str2func", "builtin", "java", "py.",
];
const GNUPLOT: &[&str] = &[
    "system",
    "!",
    "`",
    "save",
    "set output",
    "load",
    "call",
    "eval",
];
const JS_ENGINES: &[&str] = &[
    "os",
    "std",
    "exec",
    "remove",
    "rmdir",
    "rename",
    "write",
    "eval",
    "Function",
    "import",
    "load",
    "runCommand",
    "java",
    "Packages",
    "Java.type",
    "require",
];

const FOREIGN: &[Foreign] = &[
    lang(
        &["emacs", "xemacs"],
        &["--eval", "-eval", "--execute", "-execute"],
        "Emacs Lisp",
        ELISP,
    ),
    lang(&["emacsclient"], &["--eval", "-e"], "Emacs Lisp", ELISP),
    lang(
        &["julia"],
        &["-e", "--eval", "-E", "--print"],
        "Julia",
        JULIA,
    ),
    lang(&["sbcl"], &["--eval"], "Common Lisp", LISP),
    lang(
        &["ccl", "ccl64", "lx86cl64"],
        &["--eval", "-e"],
        "Common Lisp",
        LISP,
    ),
    lang(&["clisp"], &["-x"], "Common Lisp", LISP),
    lang(&["ecl"], &["-eval", "--eval"], "Common Lisp", LISP),
    lang(&["guile"], &["-c"], "Scheme", SCHEME),
    lang(&["racket"], &["-e", "--eval"], "Racket", SCHEME),
    lang(&["csi"], &["-e", "-eval", "-p", "-print"], "Scheme", SCHEME),
    lang(&["mit-scheme"], &["--eval"], "Scheme", SCHEME),
    lang(&["clojure", "clj"], &["-e", "--eval"], "Clojure", CLOJURE),
    lang(&["bb"], &["-e", "--eval"], "Clojure", CLOJURE),
    lang(&["erl"], &["-eval"], "Erlang", ERLANG),
    lang(&["elixir"], &["-e", "--eval"], "Elixir", ELIXIR),
    lang(&["ghc", "ghci"], &["-e"], "Haskell", HASKELL),
    lang(&["scala"], &["-e"], "Scala", JVM),
    lang(&["groovy"], &["-e"], "Groovy", JVM),
    lang(&["raku", "rakudo", "perl6"], &["-e"], "Raku", RAKU),
    lang(&["swipl"], &["-g", "-t"], "Prolog", PROLOG),
    lang(&["octave"], &["--eval"], "Octave", MATLAB),
    lang(&["matlab"], &["-batch", "-r"], "MATLAB", MATLAB),
    lang(&["gnuplot"], &["-e"], "gnuplot", GNUPLOT),
    lang(
        &["qjs", "d8", "rhino", "jjs"],
        &["-e"],
        "JavaScript",
        JS_ENGINES,
    ),
    Foreign {
        programs: &[
            "pwsh",
            "powershell",
            "pwsh-preview",
            "pwsh.exe",
            "powershell.exe",
        ],
        // PowerShell takes any unique start of a parameter's name.
        options: &[
            "-c",
            "-co",
            "-com",
            "-comm",
            "-comma",
            "-comman",
            "-command",
            "-e",
            "-ec",
            "-en",
            "-enc",
            "-enco",
            "-encod",
            "-encode",
            "-encoded",
            "-encodedc",
            "-encodedcommand",
            "-f",
            "-file",
        ],
        prefix: None,
        any_case: true,
        kind: Kind::Language("PowerShell", &[]),
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
/// Code that names nagger's own files is refused, as in languages the guard reads.
/// `binary`: the running nagger program, when known.
pub(super) fn foreign_code(command: &SimpleCommand, binary: Option<&str>) -> Vec<Program> {
    let name = command.name();
    let Some(row) = FOREIGN.iter().find(|r| r.programs.contains(&name)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (code, option) in code_of(row, command) {
        match row.kind {
            Kind::Language(language, words) => {
                if !words.is_empty() && !words.iter().any(|w| mentions(code, w)) {
                    continue;
                }
                if protect::named_in_code(code, binary) {
                    out.push(Program::Finding(protect::named_finding(name)));
                    break;
                }
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

/// The first operand of `command` when its program is one whose code the guard does not
/// read and the operand is a program file it runs (`julia tool.jl`, `sbcl --script x`).
pub(super) fn program_file(command: &SimpleCommand) -> Option<&str> {
    let name = command.name();
    let row = FOREIGN.iter().find(|r| r.programs.contains(&name))?;
    if !matches!(row.kind, Kind::Language(..)) || !code_of(row, command).is_empty() {
        return None;
    }
    command
        .args()
        .iter()
        .find(|a| !a.starts_with('-') && !a.contains('=') && a.contains('.'))
        .map(String::as_str)
}

/// Whether `code` holds `word` as a whole word (names run on with letters, digits, `_`
/// or `-` are other names).
fn mentions(code: &str, word: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    let starts = word.starts_with(part);
    let ends = word.ends_with(part);
    code.match_indices(word).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let after = code[at + word.len()..].chars().next();
        (!starts || !before.is_some_and(part)) && (!ends || !after.is_some_and(part))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::guard::shell;

    fn programs(line: &str) -> Vec<Program> {
        let parsed = shell::parse(line);
        foreign_code(&parsed.commands[0], None)
    }

    #[test]
    fn code_in_unread_languages_is_asked_about() {
        for line in [
            "emacs -Q -batch '-eval=(shell-command \"rm -rf /\")'",
            "julia -e 'rm(\"build\"; recursive=true)'",
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
    fn code_naming_nagger_s_files_is_refused() {
        let found = programs("emacs --batch --eval '(delete-file \".claude/settings.json\")'");
        assert!(
            matches!(found.as_slice(), [Program::Finding(f)] if f.check == "guard:self-protect"),
            "not refused"
        );
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
            "julia --project=. -e 'using Pkg; Pkg.test()'",
            "emacs --batch --eval '(byte-compile-file \"x.el\")'",
            "elixir -e 'IO.puts(:hello)'",
        ] {
            assert!(programs(line).is_empty(), "{line}");
        }
    }
}
