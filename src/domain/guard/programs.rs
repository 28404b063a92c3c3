//! Programs a command runs that are not among its own words: a script piped into a shell
//! (`echo '…' | sh`, `curl … | bash`, `base64 -d | sh`), code given to an interpreter
//! (`python3 -c`, a here-document into `node`), and the words `xargs` receives.

use super::code::{self, Effect};
use super::finding::{Finding, operands};
use super::protect;
use super::shell::{self, Parsed, SimpleCommand};

/// Something run by a command, for the guard to check in turn.
pub(super) enum Program {
    /// A shell script, with how it reaches the shell (`echo … | sh`).
    Script(String, String),
    /// A check that already fired.
    Finding(Finding),
}

/// Programs that decode or unpack what they pass on: a script through them is hidden.
fn is_decoder(command: &SimpleCommand) -> bool {
    let args = command.args();
    match command.name() {
        "base64" | "base32" | "basenc" => shell::has_flag(args, "dD", &["decode"]),
        "xxd" => shell::has_flag(args, "r", &["revert"]),
        "openssl" => args
            .iter()
            .any(|a| a == "-d" || a == "base64" || a == "enc"),
        "gzip" | "bzip2" | "xz" | "zstd" | "lz4" => shell::has_flag(args, "d", &["decompress"]),
        "gunzip" | "zcat" | "bzcat" | "xzcat" | "zstdcat" | "uudecode" | "rev" | "tr" => true,
        _ => false,
    }
}

/// Most commands before a group piped into a shell that are taken as feeding it.
const MAX_GROUP_FEEDERS: usize = 64;

fn is_downloader(name: &str) -> bool {
    matches!(name, "curl" | "wget" | "fetch" | "http" | "https" | "xh")
}

/// The commands whose output reaches command `index` on its standard input: the stage
/// before it in its pipeline, or, when that stage is a group or subshell
/// (`{ curl x; } | sh`, `(curl x) | sh`), the commands before it on the line.
pub(super) fn feeders(parsed: &Parsed, index: usize) -> Vec<usize> {
    let Some(command) = parsed.commands.get(index) else {
        return Vec::new();
    };
    if command.stage == 0 {
        return Vec::new();
    }
    let same_pipeline: Vec<usize> = (0..index)
        .filter(|&j| {
            let c = &parsed.commands[j];
            c.pipeline == command.pipeline && c.stage + 1 == command.stage
        })
        .collect();
    if !same_pipeline.is_empty() {
        return same_pipeline;
    }
    let mut before: Vec<usize> = (0..index)
        .rev()
        .filter(|&j| parsed.commands[j].pipeline != command.pipeline)
        .take(MAX_GROUP_FEEDERS)
        .collect();
    before.reverse();
    before
}

/// What an `xargs` or `parallel` in front of command `index` hands it: the words `echo`,
/// `printf` and `ls` print and the start points of an unfiltered `find`.
pub(super) fn xargs_fed(parsed: &Parsed, index: usize) -> Vec<String> {
    let command = &parsed.commands[index];
    if !command
        .prefixes
        .iter()
        .any(|p| p == "xargs" || p == "parallel")
    {
        return Vec::new();
    }
    let mut fed = Vec::new();
    for j in feeders(parsed, index) {
        let feeder = &parsed.commands[j];
        let args = feeder.args();
        match feeder.name() {
            "echo" | "printf" | "ls" => fed.extend(
                operands(args)
                    .into_iter()
                    .flat_map(|a| a.split("\\n"))
                    .flat_map(str::split_whitespace)
                    .map(str::to_owned),
            ),
            "find"
                if !args.iter().any(|a| {
                    a.starts_with("-name")
                        || a.starts_with("-path")
                        || a.starts_with("-iname")
                        || a.starts_with("-regex")
                }) =>
            {
                fed.extend(
                    args.iter()
                        .take_while(|a| !a.starts_with('-') && !matches!(a.as_str(), "(" | "!"))
                        .cloned(),
                );
            }
            _ => {}
        }
    }
    fed
}

/// The text `echo` or `printf` prints, as a script would read it.
fn printed_text(command: &SimpleCommand) -> String {
    let args = command.args();
    let words: Vec<&str> = if command.name() == "echo" {
        args.iter()
            .map(String::as_str)
            .skip_while(|a| matches!(*a, "-n" | "-e" | "-E" | "-ne" | "-en"))
            .collect()
    } else {
        args.iter().map(String::as_str).collect()
    };
    words.join(" ").replace("\\n", "\n")
}

/// `$(curl …)`, `` `wget …` ``, `<(curl …)`: a word of `command` that is a substitution
/// running a command `wanted` picks. Names that command.
fn substituted(
    parsed: &Parsed,
    command: &SimpleCommand,
    word: &str,
    wanted: impl Fn(&SimpleCommand) -> bool,
) -> Option<String> {
    if !(word.starts_with("$(") || word.starts_with("<(") || word.starts_with('`')) {
        return None;
    }
    let (_, runs) = command.substitutions.iter().find(|(w, _)| w == word)?;
    let end = runs.end.min(parsed.commands.len());
    parsed
        .commands
        .get(runs.start.min(end)..end)?
        .iter()
        .find(|c| wanted(c))
        .map(|c| format!("`{}`", c.name()))
}

fn hidden(via: &str) -> Program {
    Program::Finding(Finding::deny(
        "guard:hidden-program",
        format!("runs a program hidden by {via}, which nobody can review"),
        "Decode it to a file, read it, and run it only if the user agrees.",
    ))
}

fn downloaded(source: &str) -> Program {
    Program::Finding(Finding::deny(
        "guard:pipe-to-shell",
        format!("runs a program downloaded by {source} without review"),
        "Download it to a file, read it, and run it only if the user agrees.",
    ))
}

/// Every program command `index` runs beyond its words. `allowed[j]`: command `j` is
/// exempted by `[guard] allow` (an allowed downloader exempts what it feeds).
pub(super) fn programs(
    parsed: &Parsed,
    index: usize,
    allowed: &[bool],
    binary: Option<&str>,
) -> Vec<Program> {
    let command = &parsed.commands[index];
    let mut out = Vec::new();
    let from_word = |word: &String| substituted(parsed, command, word, |c| is_downloader(c.name()));
    if let Some(source) = command.argv.first().and_then(from_word) {
        out.push(downloaded(&source));
        return out;
    }
    let name = command.name();
    if let Some(code) = shell::inline_program(&command.argv) {
        out.extend(code_programs(&code, name, binary));
    }
    let runs_code = shell::is_interpreter(name) || matches!(name, "source" | "." | "eval");
    if !runs_code {
        return out;
    }
    if let Some(source) = command.args().iter().find_map(from_word) {
        out.push(downloaded(&source));
        return out;
    }
    let decoded = |word: &String| substituted(parsed, command, word, is_decoder);
    if let Some(decoder) = command.args().iter().find_map(decoded) {
        out.push(hidden(&format!("{decoder} in `{name}`")));
        return out;
    }
    if !shell::reads_program_from_stdin(&command.argv) {
        return out;
    }
    if let Some(source) = command.reads_from.iter().find_map(from_word) {
        out.push(downloaded(&source));
        return out;
    }
    let is_shell = shell::is_shell(name);
    if !is_shell {
        for text in &command.stdin_texts {
            out.extend(code_programs(text, name, binary));
        }
    }
    let upstream_download = (0..index).find(|&j| {
        let earlier = &parsed.commands[j];
        earlier.pipeline == command.pipeline
            && earlier.stage < command.stage
            && is_downloader(earlier.name())
            && !allowed.get(j).copied().unwrap_or(false)
    });
    if let Some(j) = upstream_download {
        out.push(downloaded(&format!("`{}`", parsed.commands[j].name())));
        return out;
    }
    for j in feeders(parsed, index) {
        let feeder = &parsed.commands[j];
        if allowed.get(j).copied().unwrap_or(false) {
            continue;
        }
        let via = format!("`{}` piped into `{name}`", feeder.name());
        if is_downloader(feeder.name()) {
            out.push(downloaded(&format!("`{}`", feeder.name())));
        } else if is_decoder(feeder) {
            out.push(hidden(&via));
        } else if matches!(feeder.name(), "echo" | "printf") {
            if feeder.args().iter().any(|a| feeder.computed.contains(a)) {
                out.push(Program::Finding(Finding::ask(
                    "guard:computed-command",
                    format!("runs a program only known when the shell runs ({via})"),
                    "Spell the command out so it can be checked.",
                )));
            }
            let text = printed_text(feeder);
            if is_shell {
                out.push(Program::Script(text, via));
            } else {
                out.extend(code_programs(&text, name, binary));
            }
        } else {
            for text in &feeder.stdin_texts {
                if is_shell {
                    out.push(Program::Script(text.clone(), via.clone()));
                } else {
                    out.extend(code_programs(text, name, binary));
                }
            }
        }
    }
    out
}

/// The shell commands, deletions and writes of nagger's own files in interpreter code,
/// read in the language of `interpreter`; what the code does that cannot be known from
/// its text is asked about. `binary`: the running nagger program, when known.
fn code_programs(code: &str, interpreter: &str, binary: Option<&str>) -> Vec<Program> {
    let lang = code::Language::of(interpreter);
    let mut unsure = false;
    let mut unknown: Option<String> = None;
    let mut out: Vec<Program> = code::effects_in(code, lang)
        .into_iter()
        .filter_map(|effect| match effect {
            Effect::Shell(script) => Some(Program::Script(script, format!("`{interpreter}` code"))),
            Effect::Deletes(harm) => Some(Program::Finding(Finding::deny(
                "guard:rm-rf",
                format!("{harm} (in `{interpreter}` code)"),
                "Delete specific paths inside the project instead.",
            ))),
            Effect::Writes(None) => {
                unsure = true;
                None
            }
            Effect::Writes(Some(_)) => None,
            Effect::Unknown(why) => {
                unknown.get_or_insert(why);
                None
            }
        })
        .collect();
    if let Some(why) = unknown {
        out.push(Program::Finding(Finding::ask(
            "guard:code-unknown",
            format!("`{interpreter}` code {why}, which cannot be checked from its text"),
            "Spell out the commands and paths the code uses, or put it in a script file for review.",
        )));
    }
    // A sed or awk program naming a protected file only edits text unless it writes
    // (which self-protection judges on its own).
    let names = !matches!(lang, code::Language::Sed | code::Language::Awk)
        && protect::named_in_code(code, binary);
    if names {
        out.push(Program::Finding(protect::named_finding(interpreter)));
    } else if unsure {
        out.push(Program::Finding(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "writes, moves or deletes files whose names `{interpreter}` code computes, \
                 which may be nagger's own files or Claude Code's settings"
            ),
            "Spell the paths out in the code so they can be checked.",
        )));
    }
    out
}
