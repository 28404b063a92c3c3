//! Programs compiled and run in one step (`go run x.go`, `gcc x.c && ./a.out`, `java
//! Tool.java`, `kotlinc -script <(…)`), in languages the guard does not read as a whole.
//! What their source names is judged as the shell commands it stands for: a literal path
//! a deletion function is handed is `rm` of that path, a literal command line handed to
//! `system` or a process builder is that line. Source text comes through the bounded
//! reader of [`super::files`] or from what the line itself writes or pipes.

use super::super::code::quote_words;
use super::super::finding::{Finding, operands};
use super::super::shell::{self, SimpleCommand};

/// Source files extensions of languages that are compiled and run in one step.
const SOURCE_EXTENSIONS: &[&str] = &[
    "go", "java", "kt", "kts", "scala", "sc", "swift", "rs", "cs", "csx", "zig", "cr", "nim", "v",
    "dart", "hs", "lhs", "ts", "mts", "cts", "tsx", "jsx", "exs", "ex", "jl", "clj", "groovy",
    "gvy", "ml", "fs", "fsx", "d", "c", "cc", "cpp", "s", "S", "asm", "sx",
];

/// The source files a program compiles (and runs in one step, or leaves to be run)
/// names on its command line (`gcc x.c -o x`, `rustc x.rs`):
/// `go run main.go`, `java Tool.java`, `tsx script.ts`, `swift x.swift`, `rust-script
/// x.rs`, `dotnet run app.cs`, `zig run x.zig`, `tcc -run x.c` … Their language is not
/// read; what names nagger's own files is judged by the caller. Empty for other commands.
pub(super) fn compiled_sources(command: &SimpleCommand) -> Vec<&str> {
    let args = command.args();
    let first = args.first().map_or("", String::as_str);
    let runs = match command.name() {
        "go" | "zig" | "v" | "crystal" | "dart" | "scala-cli" | "dotnet" => {
            matches!(first, "run" | "script" | "build")
                || (command.name() == "dart" && first.contains('.'))
        }
        "nim" => matches!(first, "r" | "run") || args.iter().any(|a| a == "-r" || a == "--run"),
        "cargo" => first == "script" || args.iter().any(|a| a.starts_with("-Zscript")),
        "tcc" => args.iter().any(|a| a == "-run"),
        // Compiled now, run by the next command of the line or a later call, where what
        // it does is a compiled program's.
        "gcc" | "cc" | "clang" | "g++" | "c++" | "clang++" | "rustc" | "javac" | "kotlinc-jvm"
        | "swiftc" | "ghc" | "ldc2" | "dmd" | "gdc" | "nvcc" => true,
        "java" | "jshell" | "kotlin" | "kotlinc" | "scala" | "swift" | "rust-script" | "runghc"
        | "runhaskell" | "ts-node" | "ts-node-esm" | "tsx" | "esno" | "esrun" | "vite-node"
        | "elixir" | "julia" | "groovy" | "dotnet-script" | "fsi" | "ocaml" | "rdmd" | "crun" => {
            true
        }
        _ => false,
    };
    if !runs {
        return Vec::new();
    }
    match command.name() {
        // `java --source 17 tools/fix`, a `#!/usr/bin/java --source 17` script: the file
        // after the options is source whatever its name.
        // A `#!` line hands `--source 17` over as one word.
        "java"
            if args.iter().any(|a| {
                a == "--source" || a.starts_with("--source=") || a.starts_with("--source ")
            }) =>
        {
            let mut skip = false;
            for arg in args {
                if std::mem::take(&mut skip) {
                    continue;
                }
                let long = arg.strip_prefix("--").unwrap_or("");
                if matches!(arg.as_str(), "-cp" | "-classpath" | "-p")
                    || JAVA_VALUED.contains(&long)
                {
                    skip = true;
                } else if !arg.starts_with('-') {
                    return vec![arg.as_str()];
                }
            }
            return Vec::new();
        }
        // `jshell conf/s.jsh`, `jshell --startup conf/s.jsh`: scripts whatever their names
        // (the built-in startups excepted).
        "jshell" => {
            let mut scripts: Vec<&str> = super::super::finding::operands_with(
                args,
                &[],
                &[
                    "class-path",
                    "module-path",
                    "add-modules",
                    "add-exports",
                    "feedback",
                    "execution",
                ],
            )
            .into_iter()
            .filter(|a| !a.starts_with("-R") && !a.starts_with("-J"))
            .take(16)
            .collect();
            scripts.extend(
                shell::option_values(args, &[], &["--startup"])
                    .into_iter()
                    .filter(|v| !matches!(*v, "DEFAULT" | "PRINTING" | "JAVASE" | "TOOLING")),
            );
            return scripts;
        }
        _ => {}
    }
    // `gcc -x c notes.txt`: the language named, every file after it is source.
    let named_language = args.iter().any(|a| a.starts_with("-x"));
    let outputs = shell::option_values(args, &["-o"], &["--output"]);
    operands(args)
        .into_iter()
        .filter(|a| {
            // A process substitution (`go run <(printf …)`) or what is piped in (`gcc -x c
            // -`) is source whatever its name.
            a.starts_with("<(")
                || matches!(*a, "-" | "/dev/stdin")
                || a.rsplit_once('.')
                    .is_some_and(|(stem, ext)| !stem.is_empty() && SOURCE_EXTENSIONS.contains(&ext))
                || named_language
                    && !outputs.contains(a)
                    && !matches!(*a, "c" | "c++" | "assembler" | "none" | "objective-c")
        })
        .take(16)
        .collect()
}

/// The long options of `java` whose value is the next word.
const JAVA_VALUED: &[&str] = &[
    "class-path",
    "module-path",
    "upgrade-module-path",
    "add-modules",
    "limit-modules",
    "source",
    "add-exports",
    "add-opens",
    "add-reads",
    "patch-module",
    "enable-native-access",
];

/// Functions of C and its kin that run a command line or a program.
const C_RUNNERS: &[&str] = &[
    "system",
    "popen",
    "execl",
    "execlp",
    "execle",
    "execv",
    "execvp",
    "execvpe",
    "execve",
    "fexecve",
    "posix_spawn",
    "posix_spawnp",
    "wordexp",
];

/// Functions of C and its kin that write, move, link, change or delete the file their
/// first argument names.
const C_WRITERS: &[&str] = &[
    "fopen",
    "fopen64",
    "freopen",
    "open",
    "open64",
    "openat",
    "openat2",
    "creat",
    "creat64",
    "truncate",
    "truncate64",
    "chmod",
    "fchmodat",
    "chown",
    "lchown",
    "fchownat",
    "rename",
    "renameat",
    "renameat2",
    "unlink",
    "unlinkat",
    "remove",
    "rmdir",
    "symlink",
    "symlinkat",
    "link",
    "linkat",
    "mkfifo",
    "mknod",
    "mknodat",
    "utime",
    "utimes",
    "utimensat",
    "ofstream",
    "fstream",
    "basic_ofstream",
    "basic_fstream",
    "remove_all",
    "copy",
    "copy_file",
    "create_symlink",
    "create_hard_link",
    "create_directory_symlink",
    "resize_file",
    "permissions",
];

/// Calls of the JVM's, .NET's and Go's languages that choose the code they call as the
/// program runs (reflection, classes and libraries loaded by name, script engines).
const REFLECTION: &[&str] = &[
    "Class.forName(",
    ".getMethod(",
    ".getDeclaredMethod(",
    ".getConstructor(",
    ".getDeclaredConstructor(",
    "MethodHandles.",
    "System.load(",
    "System.loadLibrary(",
    "Runtime.getRuntime().load",
    "ScriptEngineManager",
    "defineClass(",
    "URLClassLoader",
    "Type.GetType(",
    "Activator.CreateInstance",
    "Assembly.Load",
    ".InvokeMember(",
    ".MethodByName(",
    "plugin.Open(",
];

/// Calls of C and its kin whose effect cannot be read from the source: a system call
/// by its number, machine code, a library loaded by name as the program runs.
const C_OPAQUE: &[&str] = &[
    "syscall", "asm", "__asm__", "__asm", "dlopen", "dlmopen", "dlsym", "dlvsym",
];

/// `fopen(p, "w")` of a name built as the program runs (a decoded array, a computed
/// buffer): the file may be nagger's own, and the program is asked about when compiled.
/// Reads (`fopen(p, "r")`, `open(p, O_RDONLY)`) and literal names (judged where they
/// are spelled) are left alone.
fn computed_write(file: &str, word: &str, after: &str, whole: &str) -> Option<Finding> {
    let args = after.trim_start().strip_prefix('(')?;
    let mut depth = 0usize;
    let mut end = args.len();
    for (k, c) in args.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                end = k;
                break;
            }
            ')' => depth -= 1,
            _ => {}
        }
    }
    let inside = &args[..end];
    let first = inside.split(',').next().unwrap_or("").trim();
    // `openat(dirfd, p, …)`, `renameat(…)`: the name is the second argument; `rename(a,
    // b)`, `link(a, b)`, `symlink(a, b)` change both.
    let parts: Vec<&str> = inside.split(',').map(str::trim).collect();
    let candidates: Vec<&str> = match word {
        "openat" | "unlinkat" | "mkdirat" | "mknodat" | "fchmodat" | "fchownat" | "utimensat"
        | "truncateat" => parts.iter().skip(1).take(1).copied().collect(),
        "renameat" | "renameat2" | "linkat" => {
            parts.iter().skip(1).step_by(2).take(2).copied().collect()
        }
        "symlinkat" => parts.iter().step_by(2).take(2).copied().collect(),
        "rename"
        | "link"
        | "symlink"
        | "copy"
        | "copy_file"
        | "create_symlink"
        | "create_hard_link"
        | "create_directory_symlink" => parts.iter().take(2).copied().collect(),
        _ => vec![first],
    };
    // A name the caller hands the program (`argv[1]`, `getenv("OUT")`, a parameter) is
    // its caller's to choose; a buffer the program fills itself (`char p[] = {43, …}`
    // decoded in a loop, `strcat`ed pieces) hides the name in the code. A declaration
    // (`FILE *fopen(const char *, …)`) or a literal name is neither.
    let filled = candidates.iter().any(|named| {
        if named.is_empty()
            || named.starts_with('"')
            || named.starts_with("const ")
            || named.starts_with("char")
        {
            return false;
        }
        let ident: String = named
            .trim_start_matches(|c: char| c == '(' || c == '&' || c == '*' || c.is_whitespace())
            .trim_start_matches("char")
            .trim_start_matches(|c: char| c == ')' || c == '*' || c.is_whitespace())
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        !ident.is_empty() && (filled_buffer(whole, &ident) || built_name(named, whole, &ident))
    });
    if !filled {
        return None;
    }
    let writes = match word {
        "fopen" | "freopen" => inside
            .split(',')
            .nth(1)
            .is_some_and(|mode| mode.contains(['w', 'a', '+'])),
        "open" | "open64" | "openat" | "openat2" => {
            ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"]
                .iter()
                .any(|f| inside.contains(f))
        }
        _ => true,
    };
    writes.then(|| {
        Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "compiles `{file}`, whose `{word}` changes a file whose name it builds as it \
                 runs, which may be nagger's own files or Claude Code's settings"
            ),
            "Spell the path out in the source, or ask the user.",
        )
    })
}

/// Whether the name `named` (an argument, whose first identifier is `ident`) is built by
/// the program: joined in place (`dir + "/x"`, `p / "x"`, a call's result), or a string or
/// path object the program assigns from more than a name its caller hands it
/// (`std::string p = std::string(1, 46) + "claude"`; `const char *p = argv[1]` and
/// `getenv("OUT")` alone are the caller's choice).
fn built_name(named: &str, whole: &str, ident: &str) -> bool {
    let named = named.trim();
    if named.contains(['+', '/']) {
        return true;
    }
    if named.contains('(') && !named.starts_with("argv") {
        let call = named.split('(').next().unwrap_or("").trim();
        return !matches!(
            call,
            "getenv" | "secure_getenv" | "" | "const char *" | "char *"
        );
    }
    // Where `ident` is given a value: `T ident = …;`, `T ident(…);`, `T ident{…};`,
    // `ident = …;`.
    let mut rest = whole;
    while let Some(at) = rest.find(ident) {
        let before = &rest[..at];
        let after = &rest[at + ident.len()..];
        rest = after;
        if before
            .chars()
            .last()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            || after
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            continue;
        }
        let after = after.trim_start();
        let value = if let Some(v) = after.strip_prefix('=').filter(|v| !v.starts_with('=')) {
            v
        } else if let Some(v) = after.strip_prefix(['(', '{']) {
            // A declaration with an initializer, not a call: a type stands before it.
            if !before
                .trim_end()
                .ends_with(|c: char| c.is_ascii_alphanumeric() || c == '>' || c == '*' || c == '&')
            {
                continue;
            }
            v
        } else {
            continue;
        };
        let value = value[..value.find(';').unwrap_or(value.len())].trim();
        let given = value.starts_with("argv[")
            || value.starts_with("getenv(") && !value.contains('+')
            || value.starts_with("secure_getenv(") && !value.contains('+')
            || value.starts_with('"') && value.ends_with('"') && !value.contains('+')
            || value.is_empty();
        if !given {
            return true;
        }
    }
    false
}

/// Whether `ident` is declared in `text` as an array of characters or bytes the program
/// fills itself (`char p[64]`, `unsigned char k[] = {…}`, `uint8_t b[N]`).
fn filled_buffer(text: &str, ident: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find(ident) {
        let before = &rest[..at];
        let after = rest[at + ident.len()..].trim_start();
        rest = &rest[at + ident.len()..];
        let starts_word = before
            .chars()
            .last()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        if !starts_word || !after.starts_with('[') {
            continue;
        }
        let declared_by = before
            .trim_end()
            .trim_end_matches('*')
            .trim_end()
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        if matches!(
            declared_by,
            "char" | "uint8_t" | "int8_t" | "wchar_t" | "u8" | "byte" | "int" | "unsigned"
        ) {
            return true;
        }
    }
    false
}

/// Compiled code nagger does not read as a language: asked about when, in C and its kin,
/// it runs a command line or program it builds as it runs (`system(buf)` of a decoded
/// array), and refused when literal pieces side by side name nagger's files
/// (`strcpy(p, ".cla"); strcat(p, "ude/settings.json")`).
pub(super) fn compiled_unknown(file: &str, text: &str, c_family: bool) -> Option<Finding> {
    let pieces = super::super::code::strings(text);
    for window in 2..=4 {
        for run in pieces.windows(window).take(4096) {
            if super::super::protect::named_in_code(&format!("\"{}\"", run.concat()), None) {
                return Some(super::super::protect::named_finding(file));
            }
        }
    }
    if super::super::code::forking_loop(text) {
        return Some(Finding::ask(
            "guard:fork-bomb",
            format!(
                "compiles {}, whose code starts processes in an endless loop",
                if matches!(file, "-" | "/dev/stdin") {
                    "code from its input".to_owned()
                } else {
                    format!("`{file}`")
                }
            ),
            "Bound the loop, or ask the user.",
        ));
    }
    // Text built from character codes (`new String(new char[]{46})`, `char::from(46u8)`,
    // `(char) 46`, `"%c", 46`, `string(rune(46))`) by a program that may change files or
    // run programs: the names it hands those calls, whichever they are, cannot be told.
    const DECODES: &[&str] = &[
        "new char[]",
        "(char)",
        "char::from",
        "as char",
        "from_u32",
        "String.valueOf((char)",
        "Character.toString(",
        "string(rune",
        "string([]byte",
        "[]byte{",
        "%c",
        "fromCharCode",
        "toChar()",
        ".toChar",
        "Convert.ToChar",
        "chr(",
        "Char(",
    ];
    const POWERS: &[&str] = &[
        "write",
        "Write",
        "delete",
        "Delete",
        "remove",
        "Remove",
        "copy",
        "Copy",
        "move",
        "Move",
        "rename",
        "Rename",
        "trunc",
        "Trunc",
        "set_len",
        "setLength",
        "open",
        "Open",
        "creat",
        "exec",
        "Exec",
        "Command",
        "ProcessBuilder",
        "system",
        "spawn",
        "symlink",
        "Symlink",
        "link",
        "chmod",
        "Chmod",
        "create",
        "Create",
        "File",
        "unlink",
    ];
    if let Some(how) = DECODES.iter().find(|d| text.contains(*d))
        && POWERS.iter().any(|p| text.contains(p))
    {
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "compiles `{file}`, which builds text from character codes (`{how}`) and may \
                 change files or run programs: the names it hands them cannot be told from \
                 its source"
            ),
            "Spell the names out in the source, or ask the user.",
        ));
    }
    // Reflection and code loaded by name: what is called is chosen as the program runs.
    if let Some(how) = REFLECTION.iter().find(|r| text.contains(*r)) {
        return Some(Finding::ask(
            "guard:code-unknown",
            format!(
                "compiles `{file}`, which calls code it chooses as it runs (`{}`), which nagger \
                 cannot read",
                how.trim_matches(['.', '('])
            ),
            "Call the code by its name, or ask the user.",
        ));
    }
    if !c_family {
        return None;
    }
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let Some(end) = identifier_at(bytes, i) else {
            i += 1;
            continue;
        };
        let word = &text[i..end];
        i = end;
        // `std::ofstream out(p)`: the stream's name, then its arguments.
        let after = if matches!(
            word,
            "ofstream" | "fstream" | "basic_ofstream" | "basic_fstream"
        ) {
            let rest = text[i..].trim_start();
            let name_len = rest
                .bytes()
                .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                .count();
            &rest[name_len..]
        } else {
            &text[i..]
        };
        // `std::filesystem::copy`, `fs::remove_all`: not the algorithms of the same names
        // (`std::copy`, `std::remove(first, last, value)`).
        let of_filesystem = text[..i - word.len()].ends_with("filesystem::")
            || text[..i - word.len()].ends_with("fs::");
        let c_call = match word {
            "copy"
            | "copy_file"
            | "remove_all"
            | "create_symlink"
            | "create_hard_link"
            | "create_directory_symlink"
            | "resize_file"
            | "permissions" => of_filesystem,
            "remove" => of_filesystem || !text[..i - word.len()].ends_with("::"),
            _ => true,
        };
        if c_call
            && C_WRITERS.contains(&word)
            && let Some(found) = computed_write(file, word, after, text)
        {
            return Some(found);
        }
        // `asm volatile (…)`, `__asm__ __volatile__ goto (…)`: past the qualifiers.
        let mut rest = text[i..].trim_start();
        while let Some(after) = ["volatile", "__volatile__", "__volatile", "goto", "inline"]
            .iter()
            .find_map(|q| rest.strip_prefix(q))
        {
            rest = after.trim_start();
        }
        if C_OPAQUE.contains(&word) && rest.starts_with('(') {
            let args = rest[1..].trim_start();
            if !(args.starts_with("const ")
                || args.starts_with("long ")
                || args.starts_with("void"))
            {
                return Some(Finding::ask(
                    "guard:code-unknown",
                    format!(
                        "compiles `{file}`, whose `{word}` does what nagger cannot read from \
                         the source (a system call by its number, machine code, a library \
                         loaded as it runs)"
                    ),
                    "Use the library's named calls, or ask the user.",
                ));
            }
        }
        if !C_RUNNERS.contains(&word) {
            continue;
        }
        let rest = text[i..].trim_start();
        let Some(args) = rest.strip_prefix('(') else {
            continue;
        };
        let args = args.trim_start();
        // A declaration (`int system(const char *)`) or a literal command is read elsewhere.
        if args.starts_with('"') || args.starts_with("const ") || args.starts_with("char") {
            continue;
        }
        return Some(Finding::ask(
            "guard:code-unknown",
            format!(
                "compiles `{file}`, whose `{word}` runs a command or program it builds as \
                 it runs, which nagger cannot read"
            ),
            "Spell the command out in the source, or ask the user.",
        ));
    }
    None
}
/// Where the identifier starting at `bytes[i]` ends, when one starts there (a letter or
/// `_` that does not continue a word).
fn identifier_at(bytes: &[u8], i: usize) -> Option<usize> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let starts =
        (bytes[i].is_ascii_alphabetic() || bytes[i] == b'_') && (i == 0 || !word(bytes[i - 1]));
    starts.then(|| i + bytes[i..].iter().take_while(|&&b| word(b)).count())
}

/// Most shell lines one source text stands for.
const MAX_EFFECTS: usize = 32;

/// Stands in for an argument the program computes as it runs: the shell guard judges a
/// word it cannot know before the line runs.
const COMPUTED: &str = "\"$(computed-as-it-runs)\"";

/// What a call found in compiled source does.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Does {
    /// Deletes the tree at its first argument (`os.RemoveAll`, `remove_dir_all`).
    DeleteTree,
    /// Deletes the entry at its first argument (`os.Remove`, `unlink`, `File.Delete`).
    DeleteEntry,
    /// Deletes the tree its receiver names (`File("x").deleteRecursively()`).
    DeleteReceiverTree,
    /// Deletes the entry its receiver names (`new File("x").delete()`).
    DeleteReceiverEntry,
    /// Runs its first argument as a shell line (`system`, `popen`, `callCommand`).
    ShellLine,
    /// Runs its arguments as a program and its arguments (`exec.Command`,
    /// `ProcessBuilder`, `Command::new(…).arg(…)`), skipping the first `skip`.
    Argv { skip: usize },
    /// Sends a signal to the process its first argument numbers (`kill(1, SIGKILL)`).
    Kill,
    /// Writes, creates, links or changes the mode of the file its argument `at` names
    /// (`fs::write(p, …)`, `fs::copy(_, p)`, `os.WriteFile(p, …)`, `Files.copy(_, p)`).
    Write { at: usize },
    /// Moves the file its first argument names to its second (`fs::rename`, `os.Rename`).
    Move,
}

/// What the call `name` (after `qualifier.`/`qualifier::`, or none) does, for the calls
/// of Go, Rust, Java, Kotlin, Scala, C#, Swift, Dart, Zig, Nim, Crystal, Elixir, Haskell,
/// Julia and C that delete files or run programs.
fn classify(qualifier: &str, name: &str) -> Option<Does> {
    Some(match (qualifier, name) {
        (
            _,
            "RemoveAll"
            | "remove_dir_all"
            | "removeDirectoryRecursive"
            | "removePathForcibly"
            | "deleteTree"
            | "deleteTreeAbsolute"
            | "rmtree"
            | "removeDir"
            | "rm_rf"
            | "rm_r"
            | "rm_rf!"
            | "rm_r!"
            | "deleteDirectory"
            | "forceDelete"
            | "cleanDirectory"
            | "removeItem"
            | "trashItem"
            | "remove_all",
        )
        | ("Directory", "Delete" | "delete") => Does::DeleteTree,
        ("os" | "syscall" | "unix", "Remove" | "Unlink" | "Rmdir")
        | (
            _,
            "remove_file" | "remove_dir" | "removeFile" | "removeDirectory" | "deleteFile"
            | "deleteIfExists" | "unlinkat" | "removeFileOrDir",
        )
        | ("Files" | "File" | "FileSystem", "delete" | "Delete" | "rm" | "rm!")
        | ("" | "std" | "libc" | "nix" | "posix", "unlink" | "remove" | "rmdir") => {
            Does::DeleteEntry
        }
        (_, "deleteRecursively" | "deleteDir" | "deleteSync") => Does::DeleteReceiverTree,
        (_, "delete" | "Delete" | "deleteOnExit") => Does::DeleteReceiverEntry,
        ("" | "std" | "libc" | "Kernel" | "Process" | "os", "system" | "popen" | "_popen")
        | (_, "callCommand" | "spawnCommand" | "execShellCmd" | "runCommand" | "shell") => {
            Does::ShellLine
        }
        ("exec", "CommandContext") => Does::Argv { skip: 1 },
        ("exec", "Command")
        | ("Command" | "std::process::Command", "new")
        | (_, "ProcessBuilder" | "callProcess" | "readProcess" | "rawSystem" | "proc")
        | ("Process", "Start" | "run" | "runSync" | "start" | "new" | "exec")
        | ("System", "cmd")
        | ("Runtime" | "getRuntime", "exec") => Does::Argv { skip: 0 },
        ("" | "std" | "libc" | "unistd", "execl" | "execlp" | "execle") => Does::Argv { skip: 1 },
        ("" | "syscall" | "unix" | "libc" | "nix" | "signal", "kill" | "Kill") => Does::Kill,
        ("", "run") => Does::ShellLine, // Julia: run(`rm -rf /x`)
        ("fs" | "std::fs" | "tokio::fs" | "async_fs", "rename")
        | ("os", "Rename")
        | ("Files" | "File", "move" | "Move" | "renameTo") => Does::Move,
        ("fs" | "std::fs" | "tokio::fs" | "async_fs", "write" | "set_permissions")
        | ("os" | "ioutil", "WriteFile" | "Create" | "Chmod" | "Truncate" | "OpenFile")
        | (
            "Files",
            "write"
            | "writeString"
            | "newBufferedWriter"
            | "newOutputStream"
            | "createSymbolicLink"
            | "createLink"
            | "setPosixFilePermissions",
        )
        | (
            "File",
            "create" | "create_new" | "WriteAllText" | "WriteAllBytes" | "WriteAllLines"
            | "AppendAllText" | "AppendAllLines" | "Create" | "CreateText" | "AppendText"
            | "CreateSymbolicLink",
        )
        | ("", "FileWriter" | "FileOutputStream" | "PrintWriter" | "RandomAccessFile") => {
            Does::Write { at: 0 }
        }
        ("fs" | "std::fs" | "tokio::fs" | "async_fs", "copy" | "hard_link" | "symlink")
        | ("unix::fs" | "os::unix::fs" | "std::os::unix::fs", "symlink")
        | ("os", "Symlink" | "Link")
        | ("Files" | "File", "copy" | "Copy") => Does::Write { at: 1 },
        ("", "symlink") => Does::Write { at: 1 },
        _ => return None,
    })
}

/// Names inside an argument that leave its value a literal path: wrappers that make a
/// path or a string of one, and the flags deletion functions take beside it.
const PATH_WORDS: &[&str] = &[
    "new",
    "File",
    "Path",
    "Paths",
    "get",
    "of",
    "PathBuf",
    "from",
    "URL",
    "fileURLWithPath",
    "Uri",
    "Directory",
    "filepath",
    "Join",
    "path",
    "join",
    "os",
    "std",
    "fs",
    "io",
    "java",
    "nio",
    "file",
    "to_string",
    "to_owned",
    "fmt",
    "as_str",
    "as_ref",
    "as_path",
    "to_path_buf",
    "into",
    "clone",
    "display",
    "toString",
    "String",
    "str",
    "Some",
    "atPath",
    "at",
    "recursive",
    "true",
    "false",
    "TRUE",
    "FALSE",
    "nil",
    "null",
    "NULL",
    "nullptr",
    "c_str",
    "CString",
    "as_ptr",
    "unwrap",
    "expect",
    "toFile",
    "toPath",
    "default",
    "FileManager",
    "Kotlin",
    "arrayOf",
    "listOf",
    "List",
    "vec",
    "Arrays",
    "asList",
    "char",
    "const",
    "int",
    "SIGKILL",
    "SIGTERM",
    "Signal",
    "Pid",
    "from_raw",
    "signal",
    "syscall",
    "unix",
    "libc",
    "nix",
    "strings",
    "Fields",
    "Split",
    "split",
    "sh",
    "bash",
    // Where a variable of the environment is read from (`std::env::var`,
    // `System.getenv`, `Environment.GetEnvironmentVariable`).
    "env",
    "System",
    "Environment",
];

/// Names that read the home folder: the argument is then `$HOME` and its literals below.
const HOME_WORDS: &[&str] = &[
    "UserHomeDir",
    "home_dir",
    "homeDirectoryForCurrentUser",
    "NSHomeDirectory",
    "GetFolderPath",
    "getHomeDirectory",
    "getHomeDir",
    "homedir",
    "HOMEDRIVE",
];

/// Names that read an environment variable named by the literal after them.
const ENV_WORDS: &[&str] = &[
    "Getenv",
    "getenv",
    "LookupEnv",
    "var",
    "var_os",
    "getProperty",
    "GetEnvironmentVariable",
    "get_env",
    "getEnv",
    "ENV",
];

/// One argument of a call as far as the source shows it.
#[derive(Clone, Debug, PartialEq)]
enum Arg {
    /// A literal string (pieces joined as the language would).
    Literal(String),
    /// Under the home folder: the path below it.
    Home(String),
    /// A number.
    Number(i64),
    /// Computed as the program runs.
    Computed,
}

/// The literal string starting at `bytes[at]` (a `"`, `'` or `` ` ``): its text with
/// escapes read, and where it ends. Raw strings of Go (`` `…` ``) and Rust (`r"…"`,
/// `r#"…"#`) take no escapes.
fn literal(text: &str, at: usize, raw_hashes: Option<usize>) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    let quote = bytes[at];
    let mut out = String::new();
    let mut i = at + 1;
    let raw = quote == b'`' || raw_hashes.is_some();
    let closing: String = std::iter::once(quote as char)
        .chain(std::iter::repeat_n('#', raw_hashes.unwrap_or(0)))
        .collect();
    while i < bytes.len() {
        if text[i..].starts_with(&closing) {
            return Some((out, i + closing.len()));
        }
        let c = text[i..].chars().next()?;
        if c == '\\' && !raw {
            let next = text[i + 1..].chars().next()?;
            match next {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                '0' => out.push('\0'),
                other => out.push(other),
            }
            i += 1 + next.len_utf8();
            continue;
        }
        if c == '\n' && !raw && quote != b'"' {
            return None; // a C char or a stray quote
        }
        out.push(c);
        i += c.len_utf8();
    }
    None
}

/// One argument as it is read.
#[derive(Default)]
struct Reading {
    /// Its literal pieces.
    pieces: Vec<String>,
    /// Whether it starts at the home folder.
    home: bool,
    /// Whether a name the program computes is part of it.
    computed: bool,
    /// The first number in it.
    number: Option<i64>,
    /// Whether its pieces are handed to a call that joins a path (`filepath.Join(a, b)`).
    joined: bool,
}

impl Reading {
    /// A value read elsewhere (a name's, a macro's) as part of this argument.
    fn take(&mut self, value: Arg) {
        match value {
            Arg::Literal(s) => self.pieces.push(s),
            Arg::Home(rest) => {
                self.home = true;
                if !rest.is_empty() {
                    self.pieces.push(format!("/{rest}"));
                }
            }
            Arg::Number(n) => {
                self.number.get_or_insert(n);
            }
            Arg::Computed => self.computed = true,
        }
    }

    /// The argument read so far, pushed onto `args` (nothing for an empty one).
    fn finish(&mut self, args: &mut Vec<Arg>) {
        let reading = std::mem::take(self);
        let value = reading.pieces.join(if reading.joined { "/" } else { "" });
        // Text and numbers in one value (`new String(new char[]{46}) + "claude"`): the
        // numbers may be characters of the name, so it is computed as the program runs.
        let from_numbers = reading.number.is_some() && !reading.pieces.is_empty();
        args.push(if reading.computed || from_numbers {
            Arg::Computed
        } else if reading.home {
            Arg::Home(value.trim_start_matches('/').to_owned())
        } else if !reading.pieces.is_empty() {
            Arg::Literal(value)
        } else if let Some(n) = reading.number {
            Arg::Number(n)
        } else {
            return;
        });
    }
}

/// How many names deep a value is followed to what it was given (`let p = …;`).
const MAX_DEPTH: usize = 3;

/// The arguments of the call whose `(` is at `open`, and where the call ends.
fn arguments(text: &str, open: usize) -> Option<(Vec<Arg>, usize)> {
    read_arguments(text, open + 1, text, 0)
}

/// The arguments read from `start` in `text` up to the bracket that closes them, and
/// where that ends. Names are followed to the values `whole` (the source) gives them,
/// `depth` names deep so far.
#[allow(clippy::too_many_lines)]
fn read_arguments(
    text: &str,
    start: usize,
    whole: &str,
    depth: usize,
) -> Option<(Vec<Arg>, usize)> {
    let bytes = text.as_bytes();
    let mut args = Vec::new();
    let mut arg = Reading::default();
    // The brackets open inside the call: in a list (`[`, `{`) a comma parts words, in a
    // call (`filepath.Join(a, b)`) it joins a path.
    let mut open_brackets: Vec<u8> = Vec::new();
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' | b'\'' | b'`' => {
                let (s, end) = literal(text, i, None)?;
                if b == b'\'' && s.chars().count() <= 1 && !text[..i].ends_with('\'') {
                    // A C or Rust char: a value, not a path.
                    arg.number.get_or_insert(0);
                } else if matches!(s.as_str(), "HOME" | "user.home" | "USERPROFILE") {
                    arg.home = true;
                } else {
                    arg.pieces.push(s);
                }
                i = end;
                continue;
            }
            // `[".cl", "aude"].concat()`, `["a", "b"].join("/")`: the list joined.
            b'[' if depth < MAX_DEPTH
                && let Some((joined, end)) = joined_list(text, i, whole, depth) =>
            {
                arg.take(joined);
                i = end;
                continue;
            }
            b'(' | b'[' | b'{' => open_brackets.push(b),
            b')' | b']' | b'}' if open_brackets.pop().is_none() => {
                arg.finish(&mut args);
                return Some((args, i + 1));
            }
            // Between the call's arguments, or the words of a list that is one.
            b',' if open_brackets.is_empty()
                || open_brackets.len() == 1 && open_brackets[0] != b'(' =>
            {
                arg.finish(&mut args);
            }
            b',' if open_brackets.last() == Some(&b'(') => arg.joined = true,
            // A list inside a call inside the argument (`Path.of(new String(new
            // char[]{46, 99}))`): its items all go into the one argument.
            b',' => {}
            b';' => return None,
            b'0'..=b'9' | b'-'
                if !bytes
                    .get(i.wrapping_sub(1))
                    .is_some_and(|p| p.is_ascii_alphanumeric() || *p == b'_') =>
            {
                let end = text[i + 1..]
                    .find(|c: char| !c.is_ascii_digit())
                    .map_or(text.len(), |e| i + 1 + e);
                if let Ok(n) = text[i..end].parse::<i64>() {
                    arg.number.get_or_insert(n);
                }
                i = end.max(i + 1);
                continue;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let end = text[i..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map_or(text.len(), |e| i + e);
                let word = &text[i..end];
                // Rust's raw strings: `r"…"`, `r#"…"#`.
                if matches!(word, "r" | "br") {
                    let hashes = text[end..].bytes().take_while(|&h| h == b'#').count();
                    if bytes.get(end + hashes) == Some(&b'"') {
                        let (s, after) = literal(text, end + hashes, Some(hashes))?;
                        arg.pieces.push(s);
                        i = after;
                        continue;
                    }
                }
                // `format!("{}{}", a, b)`, `concat!(a, b)`, `fmt.Sprintf("%s%s", a, b)`,
                // `String.format(…)`: the text they make.
                if depth < MAX_DEPTH
                    && let Some((made, after)) = formatted(text, i, end, whole, depth)
                {
                    arg.take(made);
                    i = after;
                    continue;
                }
                // `env!("CARGO_MANIFEST_DIR")`: the package's folder, where `cargo run`
                // and its tests start; another variable baked in is computed.
                if matches!(word, "env" | "option_env") && text[end..].starts_with("!(") {
                    let open = end + 1;
                    let (inner, after) = read_arguments(text, open + 1, whole, depth + 1)?;
                    if matches!(inner.first(), Some(Arg::Literal(v)) if v == "CARGO_MANIFEST_DIR") {
                        arg.pieces.push(".".to_owned());
                    } else {
                        arg.computed = true;
                    }
                    i = after;
                    continue;
                }
                // `Path::new(a).join("b")`: a folder's name and the next.
                if word == "join" && text[..i].ends_with('.') && !arg.pieces.is_empty() {
                    arg.pieces.push("/".to_owned());
                }
                if HOME_WORDS.contains(&word) {
                    arg.home = true;
                } else if ENV_WORDS.contains(&word) {
                    // `os.Getenv("HOME")` is the home; another variable is computed.
                    let named = text[end..]
                        .strip_prefix('(')
                        .filter(|r| r.starts_with(['"', '\'']))
                        .and_then(|r| literal(text, text.len() - r.len(), None));
                    match named {
                        Some((name, after))
                            if matches!(name.as_str(), "HOME" | "user.home" | "USERPROFILE") =>
                        {
                            arg.home = true;
                            i = after + usize::from(bytes.get(after) == Some(&b')'));
                            continue;
                        }
                        // What cargo sets for the programs it runs: its own path and
                        // the compiler's, whatever the caller's environment says.
                        Some((name, after))
                            if matches!(name.as_str(), "CARGO" | "RUSTC" | "RUSTDOC") =>
                        {
                            arg.pieces.push(name.to_ascii_lowercase());
                            i = after + usize::from(bytes.get(after) == Some(&b')'));
                            continue;
                        }
                        _ => arg.computed = true,
                    }
                } else if !PATH_WORDS.contains(&word) && !word.starts_with("SIG") {
                    // A name of a value: what the source gives it, when it spells that
                    // out (`let p = [".cl", "aude"].concat();`); computed otherwise.
                    let called = text[end..].trim_start().starts_with(['(', '!', '{'])
                        || text[end..].starts_with("::")
                        || text[..i].ends_with(['.', ':']);
                    match (!called && depth < MAX_DEPTH)
                        .then(|| value_of(whole, word, depth + 1))
                        .flatten()
                    {
                        Some(value) => arg.take(value),
                        None => arg.computed = true,
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

thread_local! {
    /// How many more names one source text's calls may follow to their values.
    static LOOKUPS_LEFT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Most names followed to their values for one source text.
const MAX_LOOKUPS: usize = 256;

/// `[a, b].concat()` or `[a, b].join(sep)` with its `[` at `at`: the text the list joins
/// to, and where the call ends. `None` for another list.
fn joined_list(text: &str, at: usize, whole: &str, depth: usize) -> Option<(Arg, usize)> {
    let (items, end) = read_arguments(text, at + 1, whole, depth + 1)?;
    let rest = &text[end..];
    let (separator, after) = if let Some(r) = rest.strip_prefix(".concat()") {
        (String::new(), text.len() - r.len())
    } else if let Some(r) = rest.strip_prefix(".join(").filter(|r| r.starts_with('"')) {
        let open = text.len() - r.len();
        let (sep, close) = literal(text, open, None)?;
        let close = close + text[close..].find(')')? + 1;
        (sep, close)
    } else {
        return None;
    };
    let mut parts = Vec::new();
    for item in items {
        match item {
            Arg::Literal(s) => parts.push(s),
            Arg::Number(n) => parts.push(n.to_string()),
            Arg::Home(_) | Arg::Computed => return Some((Arg::Computed, after)),
        }
    }
    Some((Arg::Literal(parts.join(&separator)), after))
}

/// A call that makes text from a template or pieces, the name of which is `text[i..end]`:
/// Rust's `format!`, `concat!`, Go's `fmt.Sprintf`, Java's and Kotlin's `String.format`.
/// The text it makes (computed when a piece is), and where the call ends.
fn formatted(text: &str, i: usize, end: usize, whole: &str, depth: usize) -> Option<(Arg, usize)> {
    let word = &text[i..end];
    let before = &text[..i];
    let open = match word {
        "format" | "concat" | "format_args" if text[end..].starts_with("!(") => end + 1,
        "Sprintf" if before.ends_with("fmt.") && text[end..].starts_with('(') => end,
        "format" if before.ends_with("String.") && text[end..].starts_with('(') => end,
        _ => return None,
    };
    let (args, after) = read_arguments(text, open + 1, whole, depth + 1)?;
    let literal_of = |a: &Arg| match a {
        Arg::Literal(s) => Some(s.clone()),
        Arg::Number(n) => Some(n.to_string()),
        Arg::Home(_) | Arg::Computed => None,
    };
    if word == "concat" {
        let joined: Option<String> = args.iter().map(literal_of).collect();
        return Some((joined.map_or(Arg::Computed, Arg::Literal), after));
    }
    let Some(Arg::Literal(template)) = args.first() else {
        return Some((Arg::Computed, after));
    };
    let values = &args[1..];
    let mut out = String::new();
    let mut next = 0;
    let mut chars = template.chars().peekable();
    let rust = word != "Sprintf" && !before.ends_with("String.");
    while let Some(c) = chars.next() {
        let value = match (c, rust) {
            ('{', true) if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
                continue;
            }
            ('}', true) if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
                continue;
            }
            ('{', true) => {
                let spec: String = chars.by_ref().take_while(|&c| c != '}').collect();
                let name = spec.split(':').next().unwrap_or("");
                if name.is_empty() {
                    next += 1;
                    values.get(next - 1).and_then(literal_of)
                } else if let Ok(k) = name.parse::<usize>() {
                    values.get(k).and_then(literal_of)
                } else {
                    // A name the template takes from the code around it.
                    value_of(whole, name, depth + 1)
                        .as_ref()
                        .and_then(literal_of)
                }
            }
            ('%', false) if chars.peek() == Some(&'%') => {
                chars.next();
                out.push('%');
                continue;
            }
            ('%', false) => {
                // The verb and its flags: `%s`, `%v`, `%-4d`.
                while chars.next_if(|c| !c.is_ascii_alphabetic()).is_some() {}
                chars.next();
                next += 1;
                values.get(next - 1).and_then(literal_of)
            }
            _ => {
                out.push(c);
                continue;
            }
        };
        match value {
            Some(v) => out.push_str(&v),
            None => return Some((Arg::Computed, after)),
        }
    }
    Some((Arg::Literal(out), after))
}

/// The value the source gives the name `name` where it declares it (`let p = …;`, `const
/// P: &str = …;`, `p := …`, `String p = …;`), with the literal text later calls add to
/// it (`p.push_str("…")`, `p += "…"`); `None` when it declares none that can be read.
fn value_of(whole: &str, name: &str, depth: usize) -> Option<Arg> {
    if depth > MAX_DEPTH || name.is_empty() {
        return None;
    }
    let left = LOOKUPS_LEFT.with(std::cell::Cell::get);
    if left == 0 {
        return None;
    }
    LOOKUPS_LEFT.with(|l| l.set(left - 1));
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut found: Option<(Arg, usize)> = None;
    for (at, _) in whole.match_indices(name).take(4096) {
        let before = &whole[..at];
        let after = &whole[at + name.len()..];
        if before.chars().last().is_some_and(is_word) || after.chars().next().is_some_and(is_word) {
            continue;
        }
        let keyword = before
            .trim_end()
            .rsplit(|c: char| !is_word(c))
            .next()
            .unwrap_or("");
        let rest = after.trim_start();
        let declared = matches!(
            keyword,
            "let" | "mut" | "const" | "static" | "var" | "val" | "String" | "string" | "auto"
        ) || rest.starts_with(":=");
        if !declared {
            continue;
        }
        // Past a type (`: &str`, ` string`) to the `=` that gives the value.
        let line_end = rest.find([';', '\n']).unwrap_or(rest.len());
        let Some(eq) = rest[..line_end]
            .find('=')
            .filter(|&e| !rest[e + 1..].starts_with(['=', '>']))
        else {
            continue;
        };
        let value_start = whole.len() - rest.len() + eq + 1;
        let value_end = statement_end(whole, value_start);
        let expression = format!("({})", &whole[value_start..value_end]);
        let Some((args, _)) = read_arguments(&expression, 1, whole, depth) else {
            continue;
        };
        if let [value] = args.as_slice() {
            found = Some((value.clone(), value_end));
            break;
        }
    }
    let (mut value, from) = found?;
    // What later lines add to it.
    let rest = &whole[from..];
    for (at, _) in rest.match_indices(name).take(64) {
        let before = &rest[..at];
        let after = &rest[at + name.len()..];
        if before.chars().last().is_some_and(is_word) || after.chars().next().is_some_and(is_word) {
            continue;
        }
        let added = if let Some(call) = after
            .strip_prefix(".push_str(")
            .or_else(|| after.strip_prefix(".push("))
            .or_else(|| after.strip_prefix(".WriteString("))
        {
            let open = whole.len() - call.len() - 1;
            read_arguments(whole, open + 1, whole, depth + 1).map(|(a, _)| a)
        } else if let Some(more) = after.trim_start().strip_prefix("+=") {
            let start = whole.len() - more.len();
            let end = statement_end(whole, start);
            read_arguments(&format!("({})", &whole[start..end]), 1, whole, depth + 1)
                .map(|(a, _)| a)
        } else {
            continue;
        };
        value = match (value, added.as_deref()) {
            (Arg::Literal(s), Some([Arg::Literal(more)])) => Arg::Literal(s + more),
            (Arg::Home(s), Some([Arg::Literal(more)])) => Arg::Home(s + more),
            _ => Arg::Computed,
        };
    }
    Some(value)
}

/// Where the statement whose value starts at `start` ends: its `;`, or the end of its
/// line when the brackets it opened are closed and the next line does not go on with it.
fn statement_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() && i - start < 4096 {
        match bytes[i] {
            b'"' | b'`' => {
                i = literal(text, i, None).map_or(i + 1, |(_, end)| end);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth == 0 => return i,
            b')' | b']' | b'}' => depth -= 1,
            b';' | b',' if depth == 0 => return i,
            b'\n' if depth == 0 => {
                let next = text[i + 1..].trim_start();
                if !next.starts_with(['.', '+', '?']) {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i.min(bytes.len())
}

/// The shell word for an argument.
fn word(arg: &Arg) -> String {
    match arg {
        Arg::Literal(s) => quote_words(std::slice::from_ref(s)),
        Arg::Home(rest) if rest.is_empty() => "\"$HOME\"".to_owned(),
        Arg::Home(rest) => format!("\"$HOME\"/{}", quote_words(std::slice::from_ref(rest))),
        Arg::Number(n) => n.to_string(),
        Arg::Computed => COMPUTED.to_owned(),
    }
}

/// The last literal of the statement before `at` (the receiver of a method call):
/// `new File("/x").delete()` → `/x`.
fn receiver(text: &str, at: usize) -> Option<Arg> {
    let start = text[..at].rfind([';', '\n', '{', '=']).map_or(0, |s| s + 1);
    let before = &text[start..at];
    let quote = before.rfind(['"', '`', '\''])?;
    let open = before[..quote].rfind(before.as_bytes()[quote] as char)?;
    let (s, _) = literal(before, open, None)?;
    // `new File(dir, "x")`, `new File(base + "x")`: more than the one literal makes the
    // name, so it is computed as the program runs.
    let outside = format!("{}{}", &before[..open], &before[quote + 1..]);
    let names_more = outside.contains(['"', '+'])
        || outside
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
            .any(|w| {
                !PATH_WORDS.contains(&w) && !HOME_WORDS.contains(&w) && !ENV_WORDS.contains(&w)
            });
    if names_more {
        return Some(Arg::Computed);
    }
    if matches!(s.as_str(), "HOME" | "user.home" | "USERPROFILE") {
        return Some(Arg::Home(String::new()));
    }
    let home = HOME_WORDS.iter().any(|w| before.contains(w));
    Some(if home {
        Arg::Home(s.trim_start_matches('/').to_owned())
    } else {
        Arg::Literal(s)
    })
}

/// The shell lines compiled source `text` stands for (deletions and writes of the paths
/// its file functions are handed, the command lines and programs it runs, the signals it
/// sends to numbered processes), and whether a call that writes, moves or deletes was
/// handed a name the program computes as it runs outside scratch space.
pub(super) fn calls(text: &str) -> (Vec<String>, bool) {
    let text = &text[..text.floor_char_boundary(256 * 1024)];
    LOOKUPS_LEFT.with(|l| l.set(MAX_LOOKUPS));
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut computed = false;
    let mut i = 0;
    while i < bytes.len() && out.len() < MAX_EFFECTS {
        let b = bytes[i];
        if matches!(b, b'"' | b'`') {
            // Skip what a string holds: a name in it is no call.
            i = literal(text, i, None).map_or(i + 1, |(_, end)| end);
            continue;
        }
        if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
            i = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
            continue;
        }
        if b == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i = text[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |e| i + 2 + e + 2);
            continue;
        }
        if b == b'\'' {
            // A character (`'"'`, `b'\\''`), not a string's start; or a lifetime (`'a`).
            i += match (bytes.get(i + 1), bytes.get(i + 2)) {
                (Some(b'\\'), _) => text[i + 2..]
                    .char_indices()
                    .skip(1)
                    .take(10)
                    .find(|&(_, c)| c == '\'')
                    .map_or(1, |(e, _)| 2 + e + 1),
                (Some(_), Some(b'\'')) => 3,
                _ => 1,
            };
            continue;
        }
        let Some(end) = identifier_at(bytes, i) else {
            i += 1;
            continue;
        };
        let start = i;
        i = end;
        let mut name_end = i;
        if bytes.get(i) == Some(&b'!') && bytes.get(i + 1) != Some(&b'=') {
            name_end += 1; // Elixir's `File.rm_rf!`
        }
        let name = &text[start..name_end];
        let qualifier = qualifier(&text[..start]);
        let Some(does) = classify(qualifier, name).or_else(|| {
            // `OpenOptions::new().write(true).open(p)`: opened to be written.
            let statement = &text[text[..start].rfind([';', '{']).map_or(0, |s| s + 1)..start];
            (name == "open"
                && text[..start].ends_with('.')
                && statement.contains("OpenOptions")
                && [
                    ".write(true",
                    ".append(true",
                    ".create(true",
                    ".truncate(true",
                ]
                .iter()
                .any(|w| statement.contains(w)))
            .then_some(Does::Write { at: 0 })
        }) else {
            continue;
        };
        let after = text[name_end..].trim_start();
        let at = text.len() - after.len();
        if matches!(does, Does::DeleteReceiverTree | Does::DeleteReceiverEntry) {
            if !text[..start].ends_with('.') || !after.starts_with('(') {
                continue;
            }
            let Some(target) = receiver(text, start) else {
                continue;
            };
            let statement = text[..start].rfind([';', '\n', '{']).map_or(0, |s| s + 1);
            computed |= target == Arg::Computed && !scratch(&text[statement..start], text);
            let flag = if does == Does::DeleteReceiverTree {
                "-rf"
            } else {
                "-f"
            };
            out.push(format!("rm {flag} -- {}", word(&target)));
            continue;
        }
        // `system "…"`, `callCommand "…"`: one literal without parentheses.
        let args = if after.starts_with('(') {
            match arguments(text, at) {
                Some((args, end)) => {
                    i = end;
                    args
                }
                None => continue,
            }
        } else if after.starts_with(['"', '`'])
            && matches!(does, Does::ShellLine | Does::DeleteTree | Does::DeleteEntry)
            && name != "run"
        {
            match literal(text, at, None) {
                Some((s, end)) => {
                    i = end;
                    vec![Arg::Literal(s)]
                }
                None => continue,
            }
        } else {
            continue;
        };
        // `std::remove(first, last, value)`: the algorithm, not C's `remove(path)`.
        if name == "remove" && args.len() > 1 {
            continue;
        }
        // Files changed under computed names (a program chosen as it runs is judged where
        // it is named).
        let target = match does {
            Does::Write { at } => args.get(at),
            Does::Move => args.iter().take(2).find(|a| **a == Arg::Computed),
            Does::DeleteTree | Does::DeleteEntry => args.first(),
            // A program or command line the code computes (`Command::new(&a[0])` of
            // words read from a file): what it runs is only known as it runs.
            Does::ShellLine => args.first(),
            Does::Argv { skip } => args.get(skip),
            _ => None,
        };
        // A name made under the build's output folder or a temporary folder
        // (`out_dir.join(…)`, `tempfile::tempdir()`): the program's own scratch space.
        let runs_program = matches!(does, Does::Argv { .. } | Does::ShellLine);
        let raw = &text[at..i.max(at)];
        if runs_program && target == Some(&Arg::Computed) {
            // `fn sh(prog: &str, …) { Command::new(prog)… }`: the programs its callers hand
            // it, when every call spells one out (`sh("cargo", …)`).
            match handed_programs(raw, text) {
                Some(lines) => out.extend(lines),
                None => computed = true,
            }
        } else {
            computed |= target == Some(&Arg::Computed) && !scratch(raw, text);
        }
        if let Some(line) = line(does, name, &args, text, &mut i) {
            out.push(line);
        }
    }
    (out, computed)
}

/// The command lines the callers of a function hand it, when the call `raw` (`(prog)`,
/// `(&prog)`) runs one of the function's parameters and every call of that function in
/// `text` spells its program out: the program and the words after it. `None` otherwise.
fn handed_programs(raw: &str, text: &str) -> Option<Vec<String>> {
    let inner = raw.trim().strip_prefix('(')?;
    let param: String = inner
        .trim_start_matches(['&', '*', ' '])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if param.is_empty() {
        return None;
    }
    // The function whose parameters name it: `fn sh(prog: &str, …)`, `func sh(prog
    // string, …)`, `static void sh(String prog, …)`.
    let (name, position) = text.match_indices('(').take(4096).find_map(|(open, _)| {
        let close = open + text[open..].find(')')?;
        let params: Vec<&str> = text[open + 1..close].split(',').collect();
        let position = params.iter().position(|p| {
            p.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| w == param)
        })?;
        let before = text[..open].trim_end();
        let name: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<String>()
            .chars()
            .rev()
            .collect();
        let declares = before[..before.len() - name.len()].trim_end();
        (!name.is_empty()
            && (declares.ends_with("fn")
                || declares.ends_with("func")
                || declares.ends_with("void")
                || declares.ends_with("def")))
        .then_some((name, position))
    })?;
    let mut programs = Vec::new();
    let mut calls = 0;
    for (at, _) in text.match_indices(&format!("{name}(")).take(256) {
        let before = text[..at].trim_end();
        let declaration = ["fn", "func", "void", "def"]
            .iter()
            .any(|d| before.ends_with(d));
        let joined = text[..at]
            .chars()
            .last()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if declaration || joined {
            continue;
        }
        calls += 1;
        let (args, _) = arguments(text, at + name.len())?;
        // The program and the words after it (a list handed with it is read word by
        // word), each one the shell guard judges.
        let Some(Arg::Literal(_)) = args.get(position) else {
            return None;
        };
        let words: Vec<String> = args[position..].iter().map(word).collect();
        programs.push(words.join(" "));
    }
    (calls > 0).then_some(programs)
}

/// Words that make a name in a program's own scratch space: the build's output folder
/// and temporary folders.
const SCRATCH: &[&str] = &[
    "OUT_DIR",
    "CARGO_TARGET_DIR",
    "temp_dir",
    "tempdir",
    "TempDir",
    "tempfile",
    "NamedTempFile",
    "mkdtemp",
    "MkdirTemp",
    "CreateTemp",
    "TempDir(",
    "TMPDIR",
    "createTempFile",
    "createTempDirectory",
    "GetTempPath",
];

/// Whether the call's arguments `raw` (or what the names in them are given where `whole`
/// declares them) make names in scratch space only.
fn scratch(raw: &str, whole: &str) -> bool {
    if SCRATCH.iter().any(|w| raw.contains(w)) {
        return true;
    }
    // `let out = env::var("OUT_DIR")?; fs::write(Path::new(&out).join("a"), …)`: the
    // names handed, looked up where they are declared.
    let names = raw
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        })
        .filter(|w| !PATH_WORDS.contains(w))
        .take(8);
    for name in names {
        if given_scratch(whole, name) {
            return true;
        }
    }
    false
}

/// Whether `whole` gives `name` a value in scratch space: `let name = …`, `name := …`,
/// `name, err := …`, `String name = …`.
fn given_scratch(whole: &str, name: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    whole.match_indices(name).take(16).any(|(at, _)| {
        if whole[..at].chars().last().is_some_and(word) {
            return false;
        }
        let mut rest = &whole[at + name.len()..];
        if rest.chars().next().is_some_and(word) {
            return false;
        }
        // `d, _ :=`, `(d, err) =`: the names beside it.
        loop {
            let trimmed = rest.trim_start_matches([' ', '\t', ')']);
            let Some(after) = trimmed.strip_prefix(',') else {
                rest = trimmed;
                break;
            };
            let after = after.trim_start();
            rest = after.trim_start_matches(word);
            if rest.len() == after.len() {
                return false;
            }
        }
        let Some(value) = rest
            .strip_prefix(":=")
            .or_else(|| rest.strip_prefix('=').filter(|v| !v.starts_with('=')))
        else {
            return false;
        };
        let statement = &value[..value.find([';', '\n']).unwrap_or(value.len())];
        SCRATCH.iter().any(|w| statement.contains(w))
    })
}

/// Source that changes, moves or deletes a name it computes as it runs (outside scratch
/// space: the build's output folders, temporary folders): asked about in a program the
/// agent may have just written, as such code in Python or JavaScript is.
/// `computed`: what [`calls`] told of the source.
pub(super) fn computed_target(file: &str, computed: bool) -> Option<Finding> {
    computed.then(|| {
        Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "runs `{file}`, whose code writes, moves or deletes files whose names it computes \
                 as it runs, or runs a program it computes, which may be nagger's own files or \
                 Claude Code's settings, or change them"
            ),
            "Spell the paths out in the source, or ask the user.",
        )
    })
}

/// Source that writes, moves, deletes or runs a name it computes as it runs, and builds
/// text from numbers (`String::from_utf8(vec![46, 99, …])`, `string([]byte{46, …})`,
/// `(b + 1) as char`) or from reversed text: the name may be one of nagger's files
/// spelled so that no reader finds it. Asked about. `computed`: what [`calls`] told of
/// the source.
pub(super) fn decoded_name(file: &str, text: &str, computed: bool) -> Option<Finding> {
    let decodes = [
        "from_utf8",
        "as char",
        "char::from",
        "from_u32",
        "string([]byte",
        "string(b",
        "string(rune",
        "new String(",
        ".rev()",
        "Reverse(",
        "decode(",
        "DecodeString",
        "from_hex",
        "fromCharCode",
    ];
    if !decodes.iter().any(|d| text.contains(d))
        || !printable_numbers(text) && !text.contains(".rev()")
    {
        return None;
    }
    if !computed {
        return None;
    }
    Some(Finding::ask(
        "guard:self-protect-unsure",
        format!(
            "runs `{file}`, which builds text from numbers or reversed text and changes or \
             runs a name it computes as it runs: it may be nagger's own files or Claude \
             Code's settings"
        ),
        "Spell the paths out in the source, or ask the user.",
    ))
}

/// Whether `text` holds a list of four or more numbers that are all printable characters'
/// codes (`[46, 99, 108]`, `{0x2e, 0x63, …}`).
fn printable_numbers(text: &str) -> bool {
    let mut run = 0;
    for token in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if token.is_empty() {
            continue;
        }
        let number = token.strip_prefix("0x").map_or_else(
            || token.trim_end_matches("u8").parse::<u32>().ok(),
            |h| u32::from_str_radix(h.trim_end_matches("u8"), 16).ok(),
        );
        match number {
            Some(n) if (32..=126).contains(&n) => {
                run += 1;
                if run >= 4 {
                    return true;
                }
            }
            _ => run = 0,
        }
    }
    false
}

/// The qualifier written before a name that ends `before`: `os` of `os.RemoveAll`,
/// `Command` of `Command::new`, `getRuntime` of `Runtime.getRuntime().exec`.
fn qualifier(before: &str) -> &str {
    let trimmed = before
        .strip_suffix('.')
        .or_else(|| before.strip_suffix("::"))
        .or_else(|| before.strip_suffix("->"));
    let Some(mut q) = trimmed else {
        return "";
    };
    q = q.strip_suffix("()").unwrap_or(q);
    let start = q
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |s| s + 1);
    &q[start..]
}

/// The shell line one call stands for; `i` moves past a builder's chained calls.
fn line(does: Does, name: &str, args: &[Arg], text: &str, i: &mut usize) -> Option<String> {
    match does {
        Does::DeleteTree | Does::DeleteEntry => {
            // A name computed as the program runs is too common (a folder it made
            // itself) to ask about; what the source spells out is judged.
            let target = args.first().filter(|a| **a != Arg::Computed)?;
            let flag = if does == Does::DeleteTree {
                "-rf"
            } else {
                "-f"
            };
            Some(format!("rm {flag} -- {}", word(target)))
        }
        Does::ShellLine => match args.first()? {
            Arg::Literal(s) if name == "run" => {
                // Julia runs a command literal, never a plain string.
                text.contains('`').then(|| s.clone())
            }
            Arg::Literal(s) => Some(s.clone()),
            Arg::Computed | Arg::Home(_) => Some(COMPUTED.to_owned()),
            Arg::Number(_) => None,
        },
        Does::Argv { skip } => {
            if args.get(skip).is_none_or(|a| *a == Arg::Computed) {
                return None; // a program chosen as it runs: judged where it is named
            }
            let mut words: Vec<String> = args.iter().skip(skip).map(word).collect();
            // `Command::new("rm").arg("-rf").args(["/x"])`: the builder's chained calls;
            // `.current_dir(d)`: where it runs.
            let mut rest = &text[*i..];
            let mut folder: Option<Arg> = None;
            loop {
                let trimmed = rest.trim_start();
                let Some(call) = trimmed.strip_prefix('.') else {
                    break;
                };
                let chained = [
                    "arg(",
                    "args(",
                    "Arg(",
                    "Args(",
                    "current_dir(",
                    "env(",
                    "envs(",
                    "stdin(",
                    "stdout(",
                    "stderr(",
                    "env_remove(",
                    "env_clear(",
                ]
                .into_iter()
                .find(|c| call.starts_with(c));
                let Some(chained) = chained else { break };
                let open = text.len() - call.len() + chained.len() - 1;
                let Some((more, end)) = arguments(text, open) else {
                    break;
                };
                if chained == "current_dir(" {
                    if scratch(&text[open..end], text) {
                        return None; // runs in the program's own scratch space
                    }
                    folder = more.into_iter().next();
                } else if matches!(chained, "arg(" | "args(" | "Arg(" | "Args(") {
                    words.extend(more.iter().map(word));
                }
                *i = end;
                rest = &text[end..];
            }
            // Go: `cmd.Dir = t.TempDir()` in the statements after it.
            let after = &text[*i..text.len().min(*i + 600)];
            if let Some(at) = after.find(".Dir = ") {
                let statement = &after[at..];
                let statement =
                    &statement[..statement.find(['\n', ';']).unwrap_or(statement.len())];
                if scratch(statement, text) {
                    return None;
                }
            }
            if let Some(dir) = folder {
                words.insert(0, format!("cd {} &&", word(&dir)));
            }
            if words.len() == 1
                && name == "exec"
                && let Some(Arg::Literal(s)) = args.first()
            {
                return Some(s.clone()); // `Runtime.exec("rm -rf /x")`: split on spaces
            }
            (!words.is_empty()).then(|| words.join(" "))
        }
        Does::Kill => match args.first()? {
            Arg::Number(n) => Some(format!("kill -9 -- {n}")),
            _ => None,
        },
        Does::Write { at } => {
            // A name computed as the program runs (a file in `OUT_DIR`, a temporary
            // one) is too common to ask about; what the source spells out is judged.
            let target = args
                .get(at)
                .filter(|a| matches!(a, Arg::Literal(_) | Arg::Home(_)))?;
            Some(format!("printf '' > {}", word(target)))
        }
        Does::Move => {
            // Both names spelled out, or one computed and the other one of nagger's
            // own files (a temporary file moved over them, or them moved away).
            let [from, to] = [args.first()?, args.get(1)?];
            let spelled = |a: &Arg| matches!(a, Arg::Literal(_) | Arg::Home(_));
            let protected = |a: &Arg| match a {
                Arg::Literal(s) => super::super::protect::named_in_code(&format!("\"{s}\""), None),
                Arg::Home(rest) => {
                    super::super::protect::named_in_code(&format!("\"~/{rest}\""), None)
                }
                _ => false,
            };
            ((spelled(from) && spelled(to)) || protected(from) || protected(to))
                .then(|| format!("mv -- {} {}", word(from), word(to)))
        }
        Does::DeleteReceiverTree | Does::DeleteReceiverEntry => None,
    }
}

#[cfg(test)]
mod tests {
    /// The shell lines of [`super::calls`].
    fn effects(text: &str) -> Vec<String> {
        super::calls(text).0
    }

    #[test]
    fn deletions_of_literal_paths_are_rm_of_them() {
        for (source, line) in [
            (
                "package main\nimport \"os\"\nfunc main(){ os.RemoveAll(\"/srv/data\") }",
                "rm -rf -- /srv/data",
            ),
            (
                "fn main(){ std::fs::remove_dir_all(\"/opt/app\").unwrap(); }",
                "rm -rf -- /opt/app",
            ),
            (
                "fn main(){ fs::remove_file(r\"/etc/x\").ok(); }",
                "rm -f -- /etc/x",
            ),
            (
                "class A { static void main(String[] a) throws Exception { java.nio.file.Files.delete(java.nio.file.Path.of(\"/var/x\")); } }",
                "rm -f -- /var/x",
            ),
            (
                "File(\"/home/bob\").deleteRecursively()",
                "rm -rf -- /home/bob",
            ),
            ("new File(\"/srv/a\").delete();", "rm -f -- /srv/a"),
            ("Directory.Delete(@\"/srv/b\", true);", "rm -rf -- /srv/b"),
            (
                "try FileManager.default.removeItem(atPath: \"/Users/x\")",
                "rm -rf -- /Users/x",
            ),
            (
                "os.RemoveAll(filepath.Join(os.Getenv(\"HOME\"), \"Documents\"))",
                "rm -rf -- \"$HOME\"/Documents",
            ),
            ("os.RemoveAll(os.Getenv(\"HOME\"))", "rm -rf -- \"$HOME\""),
            ("File.rm_rf!(\"/srv/c\")", "rm -rf -- /srv/c"),
            (
                "Directory('/srv/d').deleteSync(recursive: true);",
                "rm -rf -- /srv/d",
            ),
        ] {
            assert_eq!(effects(source), vec![line.to_owned()], "{source}");
        }
    }

    #[test]
    fn commands_run_with_literal_words_are_those_commands() {
        for (source, line) in [
            (
                "int main(){return system(\"rm -rf \" \"/var/www\");}",
                "rm -rf /var/www",
            ),
            (
                "ProcessBuilder(\"rm\",\"-rf\",\"/opt\").start().waitFor()",
                "rm -rf /opt",
            ),
            (
                "exec.Command(\"rm\", \"-rf\", \"/srv\").Run()",
                "rm -rf /srv",
            ),
            (
                "exec.CommandContext(ctx, \"sh\", \"-c\", \"rm -rf /x\").Run()",
                "sh -c 'rm -rf /x'",
            ),
            (
                "Command::new(\"rm\").arg(\"-rf\").args([\"/y\"]).status();",
                "rm -rf /y",
            ),
            ("Runtime.getRuntime().exec(\"rm -rf /z\");", "rm -rf /z"),
            ("System.cmd(\"rm\", [\"-rf\", \"/w\"])", "rm -rf /w"),
            ("main = callCommand \"rm -rf /v\"", "rm -rf /v"),
            ("run(`rm -rf /u`)", "rm -rf /u"),
            (
                "execl(\"/bin/rm\", \"rm\", \"-rf\", \"/t\", NULL);",
                "rm -rf /t",
            ),
            ("syscall.Kill(-1, syscall.SIGKILL)", "kill -9 -- -1"),
            (
                "exec.Command(\"rm\", \"-rf\", dir).Run()",
                "rm -rf \"$(computed-as-it-runs)\"",
            ),
        ] {
            assert_eq!(effects(source), vec![line.to_owned()], "{source}");
        }
    }

    #[test]
    fn files_written_with_names_the_source_spells_or_builds_are_writes_of_them() {
        for (source, line) in [
            (
                "fn main(){ std::fs::write(\".cl\".to_owned() + \"aude/x.json\", \"{}\").unwrap(); }",
                "printf '' > .claude/x.json",
            ),
            (
                "fn main(){ let p = [\".cl\", \"aude/settings.local.json\"].concat(); std::fs::copy(\"conf/f.json\", p).unwrap(); }",
                "printf '' > .claude/settings.local.json",
            ),
            (
                "fn smoke() { std::fs::copy(\"a\", format!(\"{}{}\", \".cl\", \"aude/s.json\")).unwrap(); }",
                "printf '' > .claude/s.json",
            ),
            (
                "fn main(){ std::fs::copy(\"/bin/true\", concat!(\"../bin/nag\", \"ger\")).unwrap(); }",
                "printf '' > ../bin/nagger",
            ),
            (
                "const DIR: &str = \".cl\";\nfn main(){ let mut p = String::from(DIR); p.push_str(\"aude/a.json\"); File::create(p).unwrap(); }",
                "printf '' > .claude/a.json",
            ),
            (
                "fn main(){ let o = OpenOptions::new().write(true).open(\"/etc/x\"); }",
                "printf '' > /etc/x",
            ),
            (
                "func main(){ p := fmt.Sprintf(\"%s/%s\", \".claude\", \"settings.json\"); os.WriteFile(p, nil, 0644) }",
                "printf '' > .claude/settings.json",
            ),
            (
                "fn main(){ let name = \"cfg\"; std::fs::write(format!(\"out/{name}.toml\"), \"\").unwrap(); }",
                "printf '' > out/cfg.toml",
            ),
            (
                "fn main(){ std::fs::rename(\"tmp.json\", \".claude/settings.json\").unwrap(); }",
                "mv -- tmp.json .claude/settings.json",
            ),
            (
                "fn main(){ let t = dir.join(\"x\"); std::fs::rename(t, \".claude/settings.json\").unwrap(); }",
                "mv -- \"$(computed-as-it-runs)\" .claude/settings.json",
            ),
            (
                "class A { void m() throws Exception { Files.writeString(Path.of(\"/etc/y\"), \"\"); } }",
                "printf '' > /etc/y",
            ),
            (
                "fn main(){ let p = Path::new(env!(\"CARGO_MANIFEST_DIR\")).join(\"..\").join(\"bin\").join(\"nagger\"); std::fs::copy(\"/bin/true\", p).unwrap(); }",
                "printf '' > ./../bin/nagger",
            ),
        ] {
            assert_eq!(effects(source), vec![line.to_owned()], "{source}");
        }
    }

    #[test]
    fn files_written_under_names_the_program_is_handed_stand_for_nothing() {
        for source in [
            "fn main(){ let out = std::env::var(\"OUT_DIR\").unwrap(); std::fs::write(Path::new(&out).join(\"gen.rs\"), code).unwrap(); }",
            "fn main(){ std::fs::write(&args[1], body).unwrap(); }",
            "fn main(){ let t = dir.path().join(\"a\"); std::fs::rename(t, dest).unwrap(); }",
            "fn w(mut f: File) { f.write_all(b\"x\").unwrap(); io::copy(&mut r, &mut f).unwrap(); }",
            "fn main(){ let mut s = String::new(); s.push_str(\"x\"); println!(\"{s}\"); }",
        ] {
            assert_eq!(effects(source), Vec::<String>::new(), "{source}");
        }
    }

    #[test]
    fn ordinary_code_stands_for_nothing() {
        for source in [
            "package main\nimport \"fmt\"\nfunc main(){ fmt.Println(\"os.RemoveAll(\\\"/x\\\")\") }",
            "fn main() { let v = vec![1, 2]; println!(\"{:?}\", v.len()); }",
            "// os.RemoveAll(\"/srv\")\nfunc main(){}",
            "m.delete(key)",
            "int main(){ printf(\"hi\"); return 0; }",
            "list.remove(3)",
            "os.RemoveAll(dir)",
            "exec.Command(name, \"x\").Run()",
            "dir := os.Getenv(\"OUT\"); os.RemoveAll(os.Getenv(\"OUT\"))",
        ] {
            assert_eq!(effects(source), Vec::<String>::new(), "{source}");
        }
    }
}
