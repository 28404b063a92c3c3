//! Files programs write through their options and arguments rather than their operands:
//! `curl --output-dir`, socat's addresses, the SQLite shell's database and the files its
//! dot-commands and SQL write (`.backup F`, `.output F`, `VACUUM INTO 'F'`), and the value
//! of an output-like option of any program (`--output=F`, `--log-file F`, `-o F` for the
//! programs known to take it).

use super::super::shell::{has_flag, option_values};

/// What a command writes through its options: files, and folders it writes into.
#[derive(Default, Debug, PartialEq)]
pub(super) struct Written {
    pub files: Vec<String>,
    pub dirs: Vec<String>,
}

/// The files and folders `name` writes by its options and addresses, for sure.
pub(super) fn written(name: &str, args: &[String]) -> Written {
    let mut out = Written::default();
    match name {
        "curl" => {
            out.dirs.extend(
                option_values(args, &[], &["--output-dir"])
                    .into_iter()
                    .map(str::to_owned),
            );
        }
        "wget" => {
            out.dirs.extend(
                option_values(args, &["-P"], &["--directory-prefix"])
                    .into_iter()
                    .map(str::to_owned),
            );
        }
        "socat" => out.files.extend(socat_writes(args)),
        // `find … -fprint F`, `-fprint0 F`, `-fls F`, `-fprintf F FORMAT`: F is written.
        "find" | "gfind" => out.files.extend(
            args.windows(2)
                .filter(|w| matches!(w[0].as_str(), "-fprint" | "-fprint0" | "-fls" | "-fprintf"))
                .map(|w| w[1].clone()),
        ),
        _ => {}
    }
    out
}

/// The files socat's addresses may write: `CREATE:F`, `OPEN:F`, `GOPEN:F`, `FILE:F`,
/// `PIPE:F` and a bare path, except the address only read from (`-u`: the first, `-U`:
/// the second).
fn socat_writes(args: &[String]) -> Vec<String> {
    let addresses: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| *a == "-" || !a.starts_with('-'))
        .collect();
    let read_only = if has_flag(args, "u", &[]) {
        Some(0)
    } else if has_flag(args, "U", &[]) {
        Some(1)
    } else {
        None
    };
    let mut out = Vec::new();
    for (k, address) in addresses.iter().enumerate().take(2) {
        let (kind, rest) = match address.split_once(':') {
            Some((kind, rest)) => (kind.to_ascii_uppercase(), rest),
            None if address.contains('/') => ("GOPEN".to_owned(), *address),
            None => continue,
        };
        let creates = matches!(kind.as_str(), "CREATE" | "CREAT");
        let opens = matches!(kind.as_str(), "OPEN" | "GOPEN" | "FILE" | "PIPE");
        if !(creates || opens) {
            continue;
        }
        let path = rest.split(',').next().unwrap_or("");
        if path.is_empty() || (read_only == Some(k) && !creates) {
            continue;
        }
        out.push(path.to_owned());
    }
    out
}

/// Dot-commands of the SQLite shell that only read or only set how it prints.
const SQLITE_READING_DOTS: &[&str] = &[
    "tables",
    "schema",
    "fullschema",
    "dump",
    "indexes",
    "indices",
    "headers",
    "header",
    "mode",
    "help",
    "quit",
    "exit",
    "databases",
    "show",
    "width",
    "nullvalue",
    "separator",
    "print",
    "stats",
    "timer",
    "echo",
    "eqp",
    "explain",
    "changes",
    "dbinfo",
    "bail",
    "version",
    "lint",
    "prompt",
    "selftest",
    "sha3sum",
    "dbconfig",
];

/// Dot-commands that write the file named as their last word.
const SQLITE_WRITING_DOTS: &[&str] = &[
    "backup", "save", "output", "once", "log", "clone", "open", "excel", "trace",
];

/// SQLite shell options that take a value.
const SQLITE_VALUED: &[&str] = &[
    "cmd",
    "init",
    "separator",
    "newline",
    "nullvalue",
    "vfs",
    "maxsize",
    "mmap",
    "pagecache",
    "lookaside",
    "heap",
    "escape",
];

/// The files the SQLite shell (`sqlite3 [options] DB [SQL…]`) writes: the database,
/// unless it is opened `-readonly` or every statement and dot-command given only reads;
/// and any file a dot-command or statement writes (`.backup F`, `.output F`, `.once F`,
/// `VACUUM INTO 'F'`, `ATTACH 'F'`). `stdin`: the text it is handed on standard input,
/// when known; with neither SQL on the line nor such text it reads commands it cannot
/// see, which may write.
pub(super) fn sqlite(args: &[String], stdin: &[String], reads_unknown: bool) -> Vec<String> {
    let mut sql: Vec<&str> = Vec::new();
    let mut ops: Vec<&str> = Vec::new();
    let mut readonly = false;
    let mut unseen = false;
    let mut k = 0;
    let mut options_done = false;
    while k < args.len() {
        let a = args[k].as_str();
        if !options_done && a == "--" {
            options_done = true;
        } else if !options_done && a.starts_with('-') && a.len() > 1 {
            let opt = a.trim_start_matches('-');
            if opt == "readonly" {
                readonly = true;
            }
            if SQLITE_VALUED.contains(&opt) {
                if let Some(value) = args.get(k + 1) {
                    match opt {
                        "cmd" => sql.push(value),
                        "init" => unseen = true,
                        _ => {}
                    }
                }
                k += 1;
            }
        } else {
            ops.push(a);
        }
        k += 1;
    }
    let db = ops.first().copied();
    sql.extend(ops.iter().skip(1).copied());
    if ops.len() <= 1 {
        if stdin.is_empty() || reads_unknown {
            unseen = true;
        }
        sql.extend(stdin.iter().map(String::as_str));
    }
    let mut files = Vec::new();
    let mut writes = unseen;
    for text in &sql {
        writes |= !sqlite_reads(text, &mut files);
    }
    if let Some(db) = db
        && writes
        && !readonly
    {
        files.insert(0, uri_path(db));
    }
    files
}

/// The file a database name stands for: itself, or the path of a URI filename
/// (`file:state.db?nolock=1`, `file:///abs/state.db`, percent-escapes decoded).
fn uri_path(db: &str) -> String {
    let Some(rest) = db.strip_prefix("file:") else {
        return db.to_owned();
    };
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    // `file://host/path`: the authority (empty or `localhost`) goes.
    let rest = match rest.strip_prefix("//") {
        Some(after) => after.find('/').map_or("", |k| &after[k..]),
        None => rest,
    };
    crate::base::text::percent_decoded(rest)
}

/// Whether SQLite shell input `text` only reads; the files it writes are added to
/// `files`.
fn sqlite_reads(text: &str, files: &mut Vec<String>) -> bool {
    let mut reads = true;
    let mut sql = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(dot) = trimmed.strip_prefix('.')
            && sql
                .rsplit(';')
                .next()
                .is_none_or(|rest| rest.trim().is_empty())
        {
            let words: Vec<&str> = dot.split_whitespace().collect();
            let Some(command) = words.first() else {
                continue;
            };
            let command = command.to_ascii_lowercase();
            if SQLITE_WRITING_DOTS.contains(&command.as_str()) {
                // `.output $(echo x)/f`: a name the shell filled in is all of the rest.
                let rest = dot.trim_start()[words[0].len()..].trim();
                let filled = (rest.contains("$(") || rest.contains('`')).then(|| {
                    let mut rest = rest;
                    while let Some(after) = rest.strip_prefix('-') {
                        rest = after.split_once(' ').map_or("", |(_, r)| r).trim_start();
                    }
                    rest
                });
                match filled.or_else(|| words.last().map(|w| w.trim_matches(['\'', '"']))) {
                    Some(file)
                        if words.len() > 1
                            && !matches!(file, "stdout" | "stderr" | "off")
                            && !file.starts_with('-') =>
                    {
                        files.push(file.to_owned());
                    }
                    _ => {}
                }
                if matches!(command.as_str(), "open" | "clone") {
                    reads = false;
                }
            } else if !SQLITE_READING_DOTS.contains(&command.as_str()) {
                reads = false;
            }
            continue;
        }
        sql.push_str(line);
        sql.push('\n');
    }
    for statement in sql.split(';') {
        reads &= statement_reads(statement, files);
    }
    reads
}

/// Whether one SQL statement only reads: `SELECT`, `VALUES`, `EXPLAIN`, `WITH … SELECT`
/// and a `PRAGMA` that sets nothing, with no writing keyword anywhere outside its string
/// literals. Files it writes (`VACUUM INTO 'F'`, `ATTACH 'F'`) are added to `files`.
fn statement_reads(statement: &str, files: &mut Vec<String>) -> bool {
    let (words, strings) = sql_words(statement);
    let Some(first) = words.first() else {
        return true;
    };
    if words.iter().any(|w| w == "vacuum" || w == "attach") {
        // `ATTACH 'file:x.db?mode=rwc'`: a URI names the file past `file:`, before `?`;
        // a name the statement joins (`'file:' || 'x'`) is only known as it runs.
        files.extend(strings.first().map(|f| {
            let f = f.strip_prefix("file:").unwrap_or(f);
            let f = f.split(['?', '#']).next().unwrap_or(f);
            f.strip_prefix("//localhost").unwrap_or(f).to_owned()
        }));
        if statement.contains("||") {
            files.push("$(attach …)".to_owned());
        }
    }
    // `writefile('F', data)`: any literal may be the file it writes; a name the
    // statement computes (`'nag' || 'ger'`, `char(46) || …`, a column) is not known.
    if words.iter().any(|w| w == "writefile") {
        files.extend(strings.iter().take(16).cloned());
        if writefile_computed(statement) {
            files.push("$(writefile …)".to_owned());
        }
    }
    let writing = [
        "insert",
        "update",
        "delete",
        "replace",
        "create",
        "drop",
        "alter",
        "attach",
        "vacuum",
        "reindex",
        "analyze",
        "into",
        "begin",
        "commit",
        "savepoint",
        "release",
        "rollback",
        "load_extension",
        "writefile",
        "edit",
        "fts3_tokenizer",
    ];
    matches!(
        first.as_str(),
        "select" | "values" | "explain" | "with" | "pragma"
    ) && !words.iter().any(|w| writing.contains(&w.as_str()))
        && !(first == "pragma" && statement.contains('='))
}

/// Whether a `writefile(…)` call of `statement` has a first argument other than one
/// string literal.
fn writefile_computed(statement: &str) -> bool {
    let lower = statement.to_ascii_lowercase();
    lower.match_indices("writefile").any(|(at, _)| {
        let rest = statement[at + "writefile".len()..].trim_start();
        let Some(rest) = rest.strip_prefix('(') else {
            return false;
        };
        let rest = rest.trim_start();
        let Some(quote) = rest.chars().next().filter(|c| *c == '\'') else {
            return true;
        };
        // The literal, with `''` for a quote inside it, then a comma.
        let mut chars = rest[1..].char_indices().peekable();
        while let Some((k, c)) = chars.next() {
            if c == quote {
                if chars.peek().is_some_and(|(_, n)| *n == quote) {
                    chars.next();
                    continue;
                }
                return !rest[1 + k + 1..].trim_start().starts_with(',');
            }
        }
        true
    })
}

/// The lower-case words of a SQL statement outside its string literals, and the literals.
fn sql_words(statement: &str) -> (Vec<String>, Vec<String>) {
    let mut words = Vec::new();
    let mut strings = Vec::new();
    let mut word = String::new();
    let mut chars = statement.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            let mut text = String::new();
            while let Some(d) = chars.next() {
                if d == '\'' {
                    if chars.peek() == Some(&'\'') {
                        chars.next();
                        text.push('\'');
                        continue;
                    }
                    break;
                }
                text.push(d);
            }
            strings.push(text);
            continue;
        }
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c.to_ascii_lowercase());
        } else if !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    (words, strings)
}

/// Long options whose value is a file or folder a program writes.
const OUTPUT_LONG: &[&str] = &[
    // `go test`'s profiles and traces.
    "coverprofile",
    "cpuprofile",
    "memprofile",
    "blockprofile",
    "mutexprofile",
    "trace",
    "output",
    "output-dir",
    "output-directory",
    "output-file",
    "output-document",
    "outfile",
    "out-file",
    "out",
    "outdir",
    "out-dir",
    "log-file",
    "logfile",
    "log",
    "save",
    "save-to",
    "dump-to",
    "dest",
    "destination",
    "directory-prefix",
    "target-dir",
    "artifact-dir",
    // `openssl req -keyout F -out G`, node's `--redirect-warnings=F`.
    "keyout",
    "certout",
    "redirect-warnings",
    "cache-dir",
    "temp-dir",
];

/// Programs whose `-o` is a flag, or takes a value that is not a file they write.
const DASH_O_FLAG: &[&str] = &[
    "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "git", "ls", "xargs", "tar", "bsdtar",
    "unzip", "ps", "lsof", "mount", "ssh", "scp", "sftp", "autossh", "find", "cpio", "nc", "ncat",
    "netstat", "sshfs", "pgrep", "pkill", "jq", "yq", "column", "od", "dmesg",
];

/// Programs whose `-o` names the file they write.
const DASH_O: &[&str] = &[
    "cc",
    "gcc",
    "g++",
    "c++",
    "clang",
    "clang++",
    "rustc",
    "ld",
    "ld.lld",
    "lld",
    "as",
    "nasm",
    "tcc",
    "zig",
    "swiftc",
    "gfortran",
    "go",
    "tinygo",
    "pandoc",
    "sort",
    "iconv",
    "curl",
    "wget",
    "yt-dlp",
    "youtube-dl",
    "aria2c",
    "objcopy",
    "strip",
    "gpg",
    "dot",
    "protoc",
    "tsc",
    "esbuild",
    "cython",
    "pyinstaller",
    "ssh-keygen",
    "dig",
    "nmap",
    "ffmpeg",
    "magick",
    "convert",
    "pdftotext",
    "xsltproc",
    "openssl",
    "mkisofs",
    "genisoimage",
    "xorriso",
    "uglifyjs",
    "terser",
    "lessc",
    "sass",
    "pyright",
    "mypy",
    "cargo",
    "javac",
    "kotlinc",
];

/// The values of output-like options of any program: `--output=F`, `--output F`,
/// `--log-file F`, and `-o F` / `-oF` for the programs known to take it.
pub(super) fn option_outputs<'a>(name: &str, args: &'a [String]) -> Vec<&'a str> {
    let mut out = Vec::new();
    for (k, arg) in args.iter().enumerate() {
        if arg == "--" {
            break;
        }
        // `--output=F`, and Go's single-dash long flags (`-coverprofile=F`), taken only
        // when the whole name is a known output.
        let (long, go_style) = match arg.strip_prefix("--") {
            Some(long) => (long, false),
            None => match arg.strip_prefix('-') {
                Some(long) if long.len() > 2 && !long.starts_with('-') => (long, true),
                _ => continue,
            },
        };
        let (key, value) = match long.split_once('=') {
            Some((key, value)) => (key, Some(value)),
            None => (long, None),
        };
        let key = key.to_ascii_lowercase();
        if (go_style && !OUTPUT_LONG.contains(&key.as_str())) || !output_like(&key) {
            continue;
        }
        match value {
            Some("yes" | "no" | "true" | "false" | "0" | "1") => {}
            Some(value) => out.push(value),
            None => out.extend(
                args.get(k + 1)
                    .map(String::as_str)
                    .filter(|v| !v.starts_with('-')),
            ),
        }
    }
    if DASH_O.contains(&name) {
        out.extend(option_values(args, &["-o"], &[]));
        if name == "wget" {
            out.extend(option_values(args, &["-a"], &[]));
        }
    } else if !DASH_O_FLAG.contains(&name) {
        // Any other program: `-o F`, or a cluster of letters ending in `o` before its
        // value (`strace -qqo F`, `time -ao F`), is taken as an output too.
        for (k, arg) in args.iter().enumerate() {
            if arg == "--" {
                break;
            }
            let cluster = arg
                .strip_prefix('-')
                .filter(|c| !c.starts_with('-') && c.ends_with('o'))
                .is_some_and(|c| c.bytes().all(|b| b.is_ascii_alphabetic()));
            if cluster && let Some(value) = args.get(k + 1).filter(|v| !v.starts_with('-')) {
                out.push(value.as_str());
            }
            // The value glued on: `strace -o.claude/x`, `time -qo../out`.
            if let Some(c) = arg.strip_prefix('-').filter(|c| !c.starts_with('-'))
                && let Some(at) = c.find('o')
                && c[..at].bytes().all(|b| b.is_ascii_alphabetic())
                && c[at + 1..]
                    .bytes()
                    .any(|b| matches!(b, b'.' | b'/' | b'~' | b'$'))
            {
                out.push(&c[at + 1..]);
            }
        }
    }
    // `cc -Wl,-Map=F`, `-Wl,-Map,F`, `-Xlinker -Map=F`: the linker's map file.
    for (k, arg) in args.iter().enumerate() {
        let items: Vec<&str> = if let Some(list) = arg.strip_prefix("-Wl,") {
            list.split(',').collect()
        } else if arg == "-Xlinker" {
            args.get(k + 1).map(String::as_str).into_iter().collect()
        } else {
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let item = item.trim_start_matches('-');
            if let Some(file) = item.strip_prefix("Map=") {
                out.push(file);
            } else if item == "Map" || (item == "o" && arg.starts_with("-Wl,")) {
                out.extend(items.get(i + 1).copied());
            }
        }
    }
    // `rustc --emit=link=F,asm=G`: each kind written to the file named.
    if name == "rustc" {
        for value in option_values(args, &[], &["--emit"]) {
            out.extend(
                value
                    .split(',')
                    .filter_map(|kind| kind.split_once('=').map(|(_, f)| f)),
            );
        }
    }
    // `wget -e output_document=F`: a wgetrc command naming a file it writes.
    if name == "wget" {
        for command in option_values(args, &["-e"], &["--execute"]) {
            if let Some((key, value)) = command.split_once('=') {
                let key = key.trim().to_ascii_lowercase().replace(['_', '-'], "");
                if matches!(key.as_str(), "outputdocument" | "logfile" | "dirprefix") {
                    out.push(value.trim());
                }
            }
        }
    }
    // `docker build -o type=local,dest=DIR`, `--output type=tar,dest=F`: the folder or
    // file is the `dest` of the exporter's settings.
    out.into_iter()
        .map(|v| {
            v.split(',')
                .find_map(|kv| {
                    kv.strip_prefix("dest=")
                        .or_else(|| kv.strip_prefix("dest:"))
                })
                .filter(|_| v.contains('='))
                .unwrap_or(v)
        })
        .collect()
}

/// A long option's name that reads as one naming what a program writes: one of
/// [`OUTPUT_LONG`], or a name one of whose parts is about output, logs, dumps, traces or
/// reports and none about what it reads or how it prints (`--xml-file`, `--log-file-path`,
/// `--trace-out`; not `--input-file`, `--log-level`, `--stdout`).
fn output_like(key: &str) -> bool {
    if OUTPUT_LONG.contains(&key) {
        return true;
    }
    let parts: Vec<&str> = key.split(['-', '_']).collect();
    if parts.len() < 2 {
        return false;
    }
    let writes = parts.iter().any(|p| {
        matches!(
            *p,
            "out"
                | "output"
                | "outfile"
                | "outdir"
                | "outpath"
                | "log"
                | "logfile"
                | "logs"
                | "dump"
                | "save"
                | "write"
                | "dest"
                | "destination"
                | "report"
                | "xml"
                | "trace"
                | "record"
                | "result"
                | "results"
                | "core"
                | "journal"
        )
    });
    let reads = parts.iter().any(|p| {
        matches!(
            *p,
            "input"
                | "in"
                | "from"
                | "read"
                | "config"
                | "conf"
                | "env"
                | "ignore"
                | "include"
                | "exclude"
                | "source"
                | "load"
                | "rc"
                | "level"
                | "format"
                | "timeout"
                | "color"
                | "colour"
                | "stdout"
                | "stderr"
                | "style"
                | "size"
                | "max"
                | "min"
                | "limit"
                | "on"
                | "off"
                | "no"
                | "temps"
        )
    });
    writes && !reads
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    fn sql(args: &[&str]) -> Vec<String> {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        sqlite(&args, &[], false)
    }

    #[test]
    fn a_uri_filename_names_its_file() {
        assert_eq!(uri_path("s.db"), "s.db");
        assert_eq!(
            uri_path("file:.claude-nagger/state.db?nolock=1"),
            ".claude-nagger/state.db"
        );
        assert_eq!(uri_path("file:///w/p/state.db?mode=rw"), "/w/p/state.db");
        assert_eq!(
            uri_path("file://localhost/w/%2eclaude-nagger/s.db"),
            "/w/.claude-nagger/s.db"
        );
        assert_eq!(
            sql(&[
                "file:.claude-nagger/state.db?nolock=1",
                "PRAGMA journal_mode=DELETE"
            ]),
            vec![".claude-nagger/state.db"]
        );
    }

    #[test]
    fn sqlite_reading_leaves_the_database() {
        assert!(sql(&["-readonly", "s.db", ".tables"]).is_empty());
        assert!(sql(&["s.db", "select count(*) from hook_log"]).is_empty());
        assert!(sql(&["s.db", ".schema"]).is_empty());
        assert!(sql(&["s.db", "PRAGMA table_info(x)"]).is_empty());
        assert!(sql(&["-cmd", ".headers on", "s.db", "select 1; select 2"]).is_empty());
        assert!(sql(&["s.db", "select 'drop table x'"]).is_empty());
    }

    #[test]
    fn sqlite_writing_names_the_database_and_its_outputs() {
        assert_eq!(sql(&["s.db", "drop table x"]), vec!["s.db"]);
        assert_eq!(sql(&["s.db", "pragma user_version=3"]), vec!["s.db"]);
        assert_eq!(sql(&["s.db"]), vec!["s.db"]);
        assert_eq!(sql(&["-init", "x.sql", "s.db", "select 1"]), vec!["s.db"]);
        assert_eq!(sql(&["x.db", ".backup s.db"]), vec!["s.db"]);
        assert_eq!(sql(&["x.db", ".backup main s.db"]), vec!["s.db"]);
        assert_eq!(sql(&["-readonly", "x.db", ".output o.txt"]), vec!["o.txt"]);
        assert_eq!(
            sql(&["x.db", "select writefile('.claude/settings.json', '{}')"]),
            vec!["x.db", ".claude/settings.json", "{}"]
        );
        assert_eq!(sql(&["x.db", ".once -x o.txt"]), vec!["o.txt"]);
        assert_eq!(sql(&["x.db", "vacuum into 's.db'"]), vec!["x.db", "s.db"]);
        assert_eq!(sql(&["x.db", "attach 's.db' as s"]), vec!["x.db", "s.db"]);
        assert_eq!(sql(&["x.db", ".restore s.db"]), vec!["x.db"]);
        assert_eq!(
            sql(&["x.db", "with a as (select 1) delete from t"]),
            vec!["x.db"]
        );
    }

    #[test]
    fn sqlite_input_counts_when_seen() {
        let args = words("s.db");
        assert!(sqlite(&args, &["select 1;\n.tables\n".into()], false).is_empty());
        assert_eq!(
            sqlite(&args, &["delete from t;".into()], false),
            vec!["s.db"]
        );
        assert_eq!(sqlite(&args, &["select 1".into()], true), vec!["s.db"]);
    }

    #[test]
    fn socat_addresses_that_write() {
        let w = |l: &str| written("socat", &words(l)).files;
        assert_eq!(w("-u FILE:x CREATE:c/d"), vec!["c/d"]);
        assert_eq!(w("- OPEN:s.json,creat,trunc"), vec!["s.json"]);
        assert!(w("-u OPEN:s.json -").is_empty());
        assert_eq!(w("-U OPEN:a - "), vec!["a"]);
        assert_eq!(w("TCP:h:80 /tmp/x"), vec!["/tmp/x"]);
        assert!(w("TCP-LISTEN:80 EXEC:cat").is_empty());
    }

    #[test]
    fn output_options_of_any_program() {
        let o = |name: &str, l: &str| {
            option_outputs(name, &words(l))
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        assert_eq!(o("git", "diff --output=d.txt"), vec!["d.txt"]);
        assert_eq!(o("tool", "--log-file l.txt run"), vec!["l.txt"]);
        assert_eq!(o("gcc", "-o a.out x.c"), vec!["a.out"]);
        assert!(o("grep", "-o x f").is_empty());
        assert!(o("tool", "--output -v").is_empty());
        // Output options by their names, and `-o` of a program not known to take it as a
        // flag (tracers and timers, whose `-o` comes before the program they run).
        assert_eq!(o("strace", "-qqo t.txt -e none"), vec!["t.txt"]);
        assert_eq!(o("time", "-ao t.txt"), vec!["t.txt"]);
        assert_eq!(o("valgrind", "--xml=yes --xml-file=v.xml"), vec!["v.xml"]);
        assert_eq!(o("tool", "--trace-out=t.json"), vec!["t.json"]);
        for (name, line) in [
            ("git", "config --file ~/.gitconfig user.name x"),
            ("git", "merge-file --stdout a b c"),
            ("tool", "--log-level debug"),
            ("tool", "--input-file in.txt"),
            ("unzip", "-o a.zip"),
            ("find", ". -name a -o -name b"),
        ] {
            assert!(o(name, line).is_empty(), "{name} {line}");
        }
        assert_eq!(
            written("curl", &words("--output-dir d -O u")).dirs,
            vec!["d"]
        );
    }
}
