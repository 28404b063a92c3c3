//! Programs that carry out what a data file says, or write the names it holds: zic's
//! zone files (each `Zone` and `Link` a file it writes), gzip's `-N` (the name stored in
//! the compressed file), doctest's examples (Python run from a text file), and those
//! nagger does not read and asks about: groff's unsafe mode (`-U`), debugfs's commands,
//! rsync's batch files, dpkg's packages, Python's pickles.

use super::super::finding::{Finding, operands, operands_with};
use super::super::protect::Cwd;
use super::super::shell::{self, SimpleCommand};
use super::files::{Ran, View, read_named};

/// Most files of one command read.
const MAX_FILES: usize = 16;

fn ask(harm: String, advice: &'static str) -> Ran {
    Ran::Finding(Finding::ask("guard:code-unknown", harm, advice))
}

/// Pushes onto `out` what `command` writes or runs from the data it is given.
pub(super) fn runs(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let name = command.name();
    let args = command.args();
    match name {
        "groff" | "nroff" | "troff" | "gtroff" | "gnroff" | "grog"
            if shell::has_flag(args, "U", &[]) =>
        {
            out.push(ask(
                format!(
                    "runs `{name} -U`, whose documents may run programs and write files \
                     (`.sy`, `.pso`, `.open`) nagger does not read"
                ),
                "Run it without `-U`, or ask the user.",
            ));
        }
        "debugfs" if !debugfs_only_reads(args) => out.push(ask(
            "runs `debugfs` commands that may write files of the system it runs on \
             (`dump`, `rdump`) or change a file system, which nagger does not read"
                .to_owned(),
            "Use `debugfs -R` with a command that only reads (`ls`, `stat`, `cat`), or ask \
             the user.",
        )),
        "rsync"
            if args
                .iter()
                .any(|a| a.starts_with("--read-batch") || a == "--read-batch") =>
        {
            out.push(ask(
                "replays an rsync batch file, whose names and contents nagger does not read"
                    .to_owned(),
                "Sync from the source folder itself, or ask the user.",
            ));
        }
        "dpkg" | "dpkg-deb" if dpkg_installs(name, args) => out.push(ask(
            format!(
                "installs a package with `{name}`: its files land where it says and its \
                 scripts run, which nagger does not read"
            ),
            "Ask the user to install it.",
        )),
        "zic" => zic(args, command, cwd, files, out),
        "gzip" | "gunzip" | "pigz" | "unpigz" if gzip_restores_names(name, args) => {
            gzip_names(args, cwd, files, out);
        }
        _ if python_module(command) == Some("pickle") => {
            out.push(ask(
                "loads a pickle, which runs whatever code it holds".to_owned(),
                "Load data in a format that holds no code (JSON), or ask the user.",
            ));
        }
        _ if python_module(command) == Some("doctest") => {
            doctests(command, cwd, files, out);
        }
        _ => {}
    }
}

/// The module `python3 -m M` runs.
fn python_module(command: &SimpleCommand) -> Option<&str> {
    let name = command.name();
    if !(name.starts_with("python") || name.starts_with("pypy")) {
        return None;
    }
    let args = command.args();
    let at = args.iter().position(|a| a == "-m")?;
    args.get(at + 1).map(String::as_str)
}

/// `debugfs -R 'ls -l /'`, `debugfs -R 'stat <2>' img`: one request that only reads,
/// without `-w`.
fn debugfs_only_reads(args: &[String]) -> bool {
    if shell::has_flag(args, "w", &[]) {
        return false;
    }
    let requests = shell::option_values(args, &["-R"], &[]);
    let [request] = requests.as_slice() else {
        return false;
    };
    let word = request.split_whitespace().next().unwrap_or("");
    matches!(
        word,
        "ls" | "stat"
            | "cat"
            | "ncheck"
            | "icheck"
            | "blocks"
            | "testb"
            | "testi"
            | "ffb"
            | "ffi"
            | "imap"
            | "bmap"
            | "stats"
            | "show_super_stats"
            | "lsdel"
            | "filefrag"
            | "dirsearch"
            | "htree"
            | "dx_hash"
            | "logdump"
            | "print_working_directory"
            | "pwd"
    )
}

/// Whether a dpkg call installs or unpacks a package (not only lists or checks it) into
/// a folder it is told, or with its safety off.
fn dpkg_installs(name: &str, args: &[String]) -> bool {
    if shell::has_flag(args, "", &["dry-run", "simulate", "no-act"]) {
        return false;
    }
    if name == "dpkg-deb" {
        // Unpacking with `dpkg-deb -x` is judged as an archive.
        return false;
    }
    // Into a folder of the caller's choosing (`--instdir=..`, `--root`), or with its
    // safety forced off: where nagger's files and the user's settings may be.
    let placed = args.iter().any(|a| {
        a.starts_with("--instdir")
            || a.starts_with("--root")
            || a.starts_with("--admindir")
            || a.starts_with("--force-script-chrootless")
            || a.starts_with("--force-all")
    });
    placed
        && shell::has_flag(
            args,
            "iaRBV",
            &[
                "install",
                "unpack",
                "configure",
                "triggers-only",
                "record-avail",
            ],
        )
        && !shell::has_flag(args, "", &["help", "version"])
}

/// Whether gzip restores the file name stored in what it decompresses (`-N` with `-d`,
/// or `gunzip -N`).
fn gzip_restores_names(name: &str, args: &[String]) -> bool {
    let decompress = matches!(name, "gunzip" | "unpigz")
        || shell::has_flag(args, "d", &["decompress", "uncompress"]);
    decompress
        && shell::has_flag(args, "N", &["name"])
        && !shell::has_flag(args, "ctl", &["stdout", "to-stdout", "test", "list"])
}

/// The names gzip files hold (their `FNAME` field), written beside each file.
fn gzip_names(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let ops = operands_with(args, &["-S"], &["suffix"]);
    if ops.is_empty() {
        out.push(ask(
            "decompresses with the names the compressed files hold (`-N`), from files only \
             known as the line runs"
                .to_owned(),
            "Name the files, or decompress without `-N`.",
        ));
        return;
    }
    for file in ops.into_iter().take(MAX_FILES) {
        if super::files::only_known_when_run(file)
            || file.contains(['*', '?', '['])
            || file.contains("{}")
        {
            out.push(ask(
                format!(
                    "decompresses `{file}` with the names the files hold (`-N`), which are \
                     only known as the line runs"
                ),
                "Name the files, or decompress without `-N`.",
            ));
            return;
        }
        let Some(bytes) = files.bytes(cwd, file, 1 << 12) else {
            continue;
        };
        let Some(stored) = gzip_stored_name(&bytes) else {
            continue;
        };
        let folder = file
            .rsplit_once('/')
            .map_or(String::new(), |(d, _)| format!("{d}/"));
        out.push(Ran::Script(
            format!(": > {}", shell::shell_quote(&format!("{folder}{stored}"))),
            format!("the name `{file}` holds, which `gzip -N` gives what it decompresses"),
            None,
        ));
    }
}

/// The original name a gzip header holds, when it holds one.
fn gzip_stored_name(bytes: &[u8]) -> Option<String> {
    if bytes.len() < 10 || bytes[0] != 0x1f || bytes[1] != 0x8b {
        return None;
    }
    let flags = bytes[3];
    let mut at = 10;
    if flags & 0x04 != 0 {
        let extra = usize::from(*bytes.get(at)?) | usize::from(*bytes.get(at + 1)?) << 8;
        at += 2 + extra;
    }
    if flags & 0x08 == 0 {
        return None;
    }
    let rest = bytes.get(at..)?;
    let end = rest.iter().position(|b| *b == 0)?;
    Some(String::from_utf8_lossy(&rest[..end]).into_owned())
}

/// `zic [-d DIR] FILE…`: each `Zone NAME` and `Link TARGET NAME` of its files is a file
/// it writes in DIR (the system's zone folder by default).
fn zic(args: &[String], command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let dir = shell::option_values(args, &["-d"], &[])
        .last()
        .copied()
        .unwrap_or("/usr/share/zoneinfo")
        .trim_end_matches('/')
        .to_owned();
    let sources = operands_with(args, &["-d", "-l", "-p", "-L", "-b", "-r", "-t"], &[]);
    let mut texts: Vec<(String, String)> = Vec::new();
    for file in sources.iter().take(MAX_FILES) {
        if *file == "-" {
            texts.extend(
                command
                    .stdin_texts
                    .iter()
                    .map(|t| (t.clone(), "its input".to_owned())),
            );
            continue;
        }
        if let Some(read) = read_named(files.read(cwd, file), file, out) {
            texts.push(read);
        }
    }
    if sources.is_empty() {
        texts.extend(
            command
                .stdin_texts
                .iter()
                .map(|t| (t.clone(), "its input".to_owned())),
        );
    }
    for (text, via) in texts {
        for line in text.lines().take(20_000) {
            let words: Vec<&str> = line
                .split('#')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .collect();
            let written = match words.as_slice() {
                [kind, name, ..] if kind.eq_ignore_ascii_case("zone") => Some(*name),
                [kind, _, name, ..] if kind.eq_ignore_ascii_case("link") => Some(*name),
                _ => None,
            };
            if let Some(name) = written {
                out.push(Ran::Script(
                    format!(": > {}", shell::shell_quote(&format!("{dir}/{name}"))),
                    format!("a zone `zic` writes from {via}"),
                    None,
                ));
            }
        }
    }
}

/// `python3 -m doctest FILE…`: the examples (`>>> ` and `... ` lines) of text files, and
/// Python modules whole, run as Python.
fn doctests(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    let at = args
        .iter()
        .position(|a| a == "doctest")
        .map_or(0, |k| k + 1);
    for file in operands(&args[at..]).into_iter().take(MAX_FILES) {
        let Some((text, via)) = read_named(files.read(cwd, file), file, out) else {
            continue;
        };
        let code = if std::path::Path::new(file)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("py"))
        {
            text
        } else {
            text.lines()
                .filter_map(|l| {
                    let l = l.trim_start();
                    l.strip_prefix(">>> ")
                        .or_else(|| l.strip_prefix("... "))
                        .or_else(|| (l == ">>>" || l == "...").then_some(""))
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        out.push(Ran::Code(
            code,
            "python3".into(),
            format!("{via}, whose examples `doctest` runs"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gzip_header_gives_its_stored_name() {
        let mut bytes = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
        bytes.extend_from_slice(b"settings.local.json\0rest");
        assert_eq!(
            gzip_stored_name(&bytes).as_deref(),
            Some("settings.local.json")
        );
        bytes[3] = 0;
        assert_eq!(gzip_stored_name(&bytes), None);
    }
}
