//! What a path names for the guard: the filesystem root, a system folder, a home, the
//! working directory, a repository's `.git`, a disk device. Purely lexical: nothing is
//! looked up on disk, `~` is any home and a variable is whatever it may hold.

/// Top-level folders of the system and how deep below them a path still belongs to the
/// system: `0` is any depth, `2` is the folder and its direct children (`/home/alice`).
const SYSTEM_DIRS: &[(&str, usize)] = &[
    ("bin", 0),
    ("boot", 0),
    ("dev", 0),
    ("etc", 0),
    ("lib", 0),
    ("lib32", 0),
    ("lib64", 0),
    ("libx32", 0),
    ("sbin", 0),
    ("sys", 0),
    ("proc", 0),
    ("usr", 0),
    ("var", 0),
    ("root", 0),
    ("nix", 0),
    ("private", 0),
    ("System", 0),
    ("Library", 0),
    ("home", 2),
    ("Users", 2),
    ("opt", 2),
    ("Applications", 2),
    ("Volumes", 2),
    ("mnt", 2),
    ("media", 2),
    ("snap", 2),
    ("srv", 1),
    ("run", 1),
    ("tmp", 1),
    ("cores", 1),
];

/// Scratch folders inside system trees, where removing things is routine.
const SCRATCH: &[&[&str]] = &[
    &["var", "tmp"],
    &["var", "cache"],
    &["var", "lib", "apt"],
    &["var", "lib", "dnf"],
    &["var", "folders"],
    &["var", "www"],
    &["private", "tmp"],
    &["private", "var", "tmp"],
    &["private", "var", "folders"],
    &["dev", "shm"],
    &["run", "user"],
];

/// Folder names that hold what a build, a test run or a tool makes again, or scratch:
/// deleting them anywhere is routine (`rm -rf ../sibling/out`, `rm -rf /work/target`).
const REMADE: &[&str] = &[
    "build",
    "builds",
    "_build",
    "out",
    "output",
    "dist",
    "target",
    "node_modules",
    "cache",
    "caches",
    "Caches",
    "tmp",
    "temp",
    "scratch",
    "coverage",
    "__pycache__",
    "venv",
    "obj",
    "artifacts",
    "logs",
    "log",
    "DerivedData",
    "builddir",
    "gen",
    "generated",
    "_install",
    "esm",
    "cjs",
    "_site",
    "public-build",
    ".next",
    ".nuxt",
    ".output",
    ".svelte-kit",
    ".turbo",
    ".vite",
    ".webpack",
    ".astro",
    ".docusaurus",
    ".parcel-cache",
    ".angular",
    ".expo",
    ".dart_tool",
    ".gradle",
    ".tox",
    ".nox",
    ".venv",
    ".eggs",
    ".hypothesis",
    ".benchmarks",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".eslintcache",
    ".stack-work",
    ".serverless",
    ".aws-sam",
    ".vercel",
    ".netlify",
    ".firebase",
    ".wrangler",
    ".terraform",
    ".pnpm-store",
    ".cache",
    "htmlcov",
    "wheelhouse",
    "__pypackages__",
    "storybook-static",
    "Pods",
    "bower_components",
    "elm-stuff",
    "dist-newstyle",
    "CMakeFiles",
    "deps",
    "zig-cache",
    "zig-out",
];

/// File names a build or a tool writes again.
const REMADE_FILES: &[&str] = &[
    "CMakeCache.txt",
    "compile_commands.json",
    "tsconfig.tsbuildinfo",
    ".eslintcache",
    ".coverage",
    "coverage.xml",
];

/// Folders below the home that tools fill and fill again: caches, toolchains, package
/// stores. Deleting them costs a download, not the user's work.
const HOME_TOOLS: &[&str] = &[
    ".cache",
    ".npm",
    ".yarn",
    ".pnpm-store",
    ".local/share/pnpm",
    ".cargo/registry",
    ".cargo/git",
    ".rustup/toolchains",
    ".rustup/downloads",
    ".gradle",
    ".m2/repository",
    ".ivy2",
    ".sbt",
    ".nuget/packages",
    ".pub-cache",
    ".gem",
    ".bundle",
    ".pyenv/versions",
    ".nvm/versions",
    ".deno",
    ".bun/install",
    ".ccache",
    ".sccache",
    ".node-gyp",
    ".electron",
    ".conda/pkgs",
    ".julia/compiled",
    ".stack",
    ".cabal/packages",
    ".vscode-server",
    ".vscode/extensions",
    ".mypy_cache",
    ".terraform.d/plugin-cache",
    ".conan",
    ".conan2",
    ".wdm",
    ".keras/datasets",
    ".cocoapods/repos",
    ".android/cache",
    ".gradle/caches",
    "go/pkg",
    "Library/Caches",
];

/// Whether a path below the home (`rest`, relative to it) is a tool's cache: on the list,
/// or a `cache`, `caches`, `store`, `pkgs`, `repos`, `archives` or `tmp` folder inside a
/// hidden tool folder or a conda install (`~/.cabal/store`, `~/miniconda3/pkgs`).
pub(super) fn home_cache(rest: &str) -> bool {
    if HOME_TOOLS.iter().any(|t| {
        rest.strip_prefix(t)
            .is_some_and(|r| r.is_empty() || r.starts_with('/'))
    }) {
        return true;
    }
    let mut parts = rest.split('/');
    let first = parts.next().unwrap_or_default();
    let tool = first.starts_with('.')
        || [
            "miniconda3",
            "anaconda3",
            "miniforge3",
            "mambaforge",
            "micromamba",
        ]
        .contains(&first);
    tool && parts.any(|p| {
        matches!(
            p,
            "cache"
                | "caches"
                | "Cache"
                | "store"
                | "pkgs"
                | "repos"
                | "archives"
                | "tmp"
                | "datasets"
                | "lazy"
                | "plugins"
                | "downloads"
        )
    })
}

/// Names a `find … -delete` may look for anywhere: junk, byte code, editors' backups.
pub(super) fn junk(name: &str) -> bool {
    const JUNK: &[&str] = &[
        ".DS_Store",
        "Thumbs.db",
        "desktop.ini",
        "__pycache__",
        "*.pyc",
        "*.pyo",
        "*.class",
        "*.o",
        "*.tmp",
        "*.temp",
        "*.swp",
        "*.swo",
        "*~",
        "*.bak",
        "*.orig",
        "*.rej",
        "*.lastUpdated",
        "*.log",
        ".pytest_cache",
        ".mypy_cache",
        "node_modules",
        "*.egg-info",
        ".#*",
        "core",
    ];
    let name = name.trim_matches(['\'', '"']);
    JUNK.contains(&name) || REMADE.contains(&name) || name.contains("tmp") || name.contains("cache")
}

/// Whether a path holds what a build or a tool makes again: a part of it is `build`,
/// `proj-build`, `out_debug`, `node_modules` or a log (`app.log`).
pub(super) fn remade(path: &str) -> bool {
    let part_remade = |part: &str| {
        let extension = std::path::Path::new(part)
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default();
        matches!(extension, "log" | "egg-info" | "pyc" | "o" | "tsbuildinfo")
            || REMADE.contains(&part)
            || REMADE_FILES.contains(&part)
            || part.starts_with("cmake-build-")
            || part.starts_with("bazel-")
            || part
                .split(['-', '_', '.'])
                .any(|token| REMADE.contains(&token))
    };
    path.split('/').any(part_remade)
}

/// Devices that are fine to write to.
const HARMLESS_DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/stdin",
    "/dev/tty",
    "/dev/random",
    "/dev/urandom",
];

/// How much of a target an operation takes with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    /// The path and everything below it: `rm -r`, `mv`.
    Tree,
    /// Everything below the path, where only the system and homes matter: `chmod -R`
    /// of the working directory is routine.
    SystemTree,
    /// The path alone: `rm file`, `> file`, `shred file`.
    Entry,
}

enum Base {
    Root,
    Home,
    WorkingDir,
}

/// A target read lexically: where it starts, its folders with `.` and `..` applied, how
/// far above its base `..` leads, and whether trailing wildcards (`/*`, `/.*`) name
/// everything in it (then dropped from `parts`).
struct Parts<'t> {
    base: Base,
    parts: Vec<&'t str>,
    above: usize,
    everything: bool,
}

impl<'t> Parts<'t> {
    fn of(target: &'t str) -> Option<Parts<'t>> {
        let target = target.trim();
        if target.is_empty() {
            return None;
        }
        let (base, rest) = split_base(target);
        let mut parts: Vec<&str> = Vec::new();
        let mut above = 0usize;
        for part in rest.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    if parts.pop().is_none() && !matches!(base, Base::Root) {
                        above += 1;
                    }
                }
                _ => parts.push(part),
            }
        }
        let mut everything = false;
        while parts
            .last()
            .is_some_and(|p| matches!(*p, "*" | ".*" | "**" | "*.*"))
        {
            parts.pop();
            everything = true;
        }
        Some(Parts {
            base,
            parts,
            above,
            everything,
        })
    }
}

/// Describes `target` when an operation of `reach` on it is a disaster: the filesystem
/// root, a system folder, a home, the working directory or above it, a `.git` folder.
pub(super) fn dangerous_target(target: &str, reach: Reach) -> Option<String> {
    // `"$(git rev-parse --git-dir)"`: what git prints is the repository's `.git`.
    for form in [
        "$(git rev-parse --git-dir)",
        "$(git rev-parse --git-common-dir)",
        "$(git rev-parse --absolute-git-dir)",
        "`git rev-parse --git-dir`",
    ] {
        if let Some(rest) = target.strip_prefix(form)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return dangerous_target(&format!(".git{rest}"), reach);
        }
    }
    let Parts {
        base,
        parts,
        above,
        everything,
    } = Parts::of(target)?;
    let all = if everything { "everything in " } else { "" };
    if matches!(base, Base::Root)
        && let Some(what) = system_path(&parts, reach)
    {
        return Some(format!("{all}{what}"));
    }
    if reach == Reach::Entry || (reach == Reach::SystemTree && matches!(base, Base::WorkingDir)) {
        return None;
    }
    // `.git`, or a pattern the shell expands to it (`.gi?`, `.gi[t]`, `.g*t`).
    if parts
        .last()
        .is_some_and(|p| *p == ".git" || super::paths::wildcard(p, ".git"))
        && reach == Reach::Tree
    {
        return Some("the repository's .git directory".into());
    }
    match (base, parts.as_slice()) {
        (Base::Root, []) => Some(format!("{all}the filesystem root")),
        (Base::Root, [top]) if top.contains(['*', '?', '[']) => {
            Some(format!("every top-level directory matching /{top}"))
        }
        (Base::Home, []) if above == 0 => Some(format!("{all}the home directory")),
        (Base::Home, []) => Some("a directory above the home directory".into()),
        (Base::WorkingDir, []) if above == 0 => Some(format!("{all}the working directory")),
        (Base::WorkingDir, []) => Some("a parent of the working directory".into()),
        _ => None,
    }
}

/// Top-level folders handed whole to a program the guard does not know only to change
/// the system or its users' files: `/tmp`, `/mnt` and the like are left out, they are
/// where such programs routinely work.
const WHOLE_SYSTEM_DIRS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "sbin",
    "sys",
    "proc",
    "usr",
    "var",
    "root",
    "nix",
    "private",
    "System",
    "Library",
    "home",
    "Users",
    "opt",
    "Applications",
    "snap",
];

/// `/`, `/*`, `~`, `"$HOME"/*`, `~/..`, `/usr`, `/etc/*`: the filesystem root, a home or
/// a folder above one, or a top-level system folder, taken whole. Described, when it is.
pub(super) fn whole_tree(target: &str) -> Option<String> {
    let Parts {
        base,
        parts,
        above,
        everything,
    } = Parts::of(target)?;
    let all = if everything { "everything in " } else { "" };
    match (base, parts.as_slice()) {
        (Base::Root, []) => Some(format!("{all}the filesystem root")),
        (Base::Root, [top]) if WHOLE_SYSTEM_DIRS.contains(top) => {
            Some(format!("{all}the system folder /{top}"))
        }
        (Base::Home, []) if above == 0 => Some(format!("{all}the home folder")),
        (Base::Home, []) => Some("a folder above the home folder".into()),
        _ => None,
    }
}

/// `/usr/lib`, `/etc/hosts`, `/home/alice`: a path that belongs to the system.
fn system_path(parts: &[&str], reach: Reach) -> Option<String> {
    let (top, rest) = parts.split_first()?;
    let depth = SYSTEM_DIRS
        .iter()
        .find(|(dir, _)| dir == top)
        .map(|(_, depth)| *depth)?;
    if depth != 0 && parts.len() > depth {
        return None;
    }
    if SCRATCH
        .iter()
        .any(|scratch| parts.len() > scratch.len() && parts.starts_with(scratch))
    {
        return None;
    }
    if reach == Reach::Entry && (depth != 0 || rest.is_empty()) {
        // A single entry of a shallow folder (`/home/alice` as a file) is not a tree.
        return (depth == 0).then(|| format!("the system directory /{top}"));
    }
    Some(match (*top, rest) {
        (_, []) => format!("the system directory /{top}"),
        ("home" | "Users", [_]) => "a home directory".into(),
        _ => format!("/{}, part of the system", parts.join("/")),
    })
}

/// Whether an output redirection's target fills a file: anything but a device (`/dev/shm`
/// is a folder of files kept in memory) or a descriptor (`&2`).
pub(super) fn a_file_filled(target: &str) -> bool {
    (!target.starts_with("/dev/") || target.starts_with("/dev/shm/")) && !target.starts_with('&')
}

/// Programs that delete the files they are handed.
const DELETERS: &[&str] = &["rm", "unlink", "shred", "srm", "rmdir", "wipe"];

/// Whether a compressor replaces the files it is given by compressed copies: it keeps
/// them with `-k`/`--keep`, writes to standard output with `-c`, only tests or lists, or
/// decompresses; zstd, lz4 and brotli keep them unless told `--rm`.
pub(super) fn compresses_in_place(name: &str, args: &[String]) -> bool {
    if !matches!(
        name,
        "gzip"
            | "bzip2"
            | "xz"
            | "lzma"
            | "lzip"
            | "pigz"
            | "pbzip2"
            | "zstd"
            | "lz4"
            | "brotli"
            | "compress"
    ) {
        return false;
    }
    let keeps = args.iter().any(|a| {
        let flags = a
            .strip_prefix('-')
            .filter(|f| !f.starts_with('-'))
            .map(|f| f.split(['S', 'b', 'T', 'o']).next().unwrap_or(f));
        flags.is_some_and(|f| f.contains(['c', 'd', 't', 'l', 'k']))
            || matches!(
                a.as_str(),
                "--stdout"
                    | "--to-stdout"
                    | "--decompress"
                    | "--uncompress"
                    | "--test"
                    | "--list"
                    | "--keep"
            )
    });
    let removes = !matches!(name, "zstd" | "lz4" | "brotli") || args.iter().any(|a| a == "--rm");
    !keeps && removes && !super::finding::operands(args).is_empty()
}

/// Whether `find`'s `-exec`/`-execdir`/`-ok`/`-okdir` actions delete what it finds:
/// `-exec rm {} +`, or a shell script that deletes (`-exec sh -c 'rm -f "$1"' _ {} \;`).
pub(super) fn find_exec_deletes(args: &[String]) -> bool {
    args.iter().enumerate().any(|(k, a)| {
        if !(a.starts_with("-exec") || a.starts_with("-ok")) {
            return false;
        }
        let Some(program) = args.get(k + 1) else {
            return false;
        };
        let program = super::shell::basename(program);
        if DELETERS.contains(&program) {
            return true;
        }
        let action: Vec<String> = args[k + 1..]
            .iter()
            .take_while(|w| !matches!(w.as_str(), ";" | "+"))
            .cloned()
            .collect();
        // `-exec xz {} +`, `-exec gzip -9 {} \;`: each file replaced by its compressed copy.
        if compresses_in_place(program, &action[1..]) {
            return true;
        }
        super::shell::shell_c_script(&action).is_some_and(|(script, _)| {
            super::shell::parse(script)
                .commands
                .iter()
                .any(|c| DELETERS.contains(&c.name()))
        })
    })
}

/// `rm -rf "$DIR/"*`, `rm -rf "$HOME/$SUB"`, `rm -rf /$X`: a path that is the
/// filesystem root or the home folder (or everything in one) when a variable it holds is
/// empty or unset. Names the first such variable and what is left.
pub(super) fn empty_variable_root(target: &str) -> Option<(&str, &'static str)> {
    let mut emptied = String::new();
    let mut first: Option<&str> = None;
    let mut rest = target;
    while let Some(at) = rest.find('$') {
        emptied.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = if let Some(braced) = after.strip_prefix('{') {
            let end = braced.find('}')?;
            let inner = &braced[..end];
            if inner.contains([':', '?', '-', '=', '+', '#', '%', '/', '[', '!']) {
                return None; // `${DIR:?}` stops the shell; a default is never empty
            }
            (inner, &braced[end + 1..])
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        if matches!(name, "HOME" | "PWD" | "CLAUDE_PROJECT_DIR") {
            emptied.push_str(&rest[at..rest.len() - tail.len()]);
        } else {
            first.get_or_insert(name);
        }
        rest = tail;
    }
    emptied.push_str(rest);
    let name = first?;
    let (base, path) = match split_base(&emptied) {
        (Base::Home, path) => ("the home directory", path),
        (Base::Root, path) => ("the filesystem root", path),
        _ => return None,
    };
    if base == "the home directory" && path.is_empty() {
        return None; // `$HOME$X`: a name beside the home when `X` is set, the home else
    }
    path.split('/')
        .all(|p| matches!(p, "" | "*" | ".*" | "**" | "*.*"))
        .then_some((name, base))
}

/// Splits `~user/x`, `$HOME/x`, `${HOME}/x`, `$PWD/x`, `/x` and `x` into where they start
/// and the rest of the path.
fn split_base(target: &str) -> (Base, &str) {
    for home in ["$HOME", "${HOME}"] {
        if let Some(rest) = target.strip_prefix(home)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return (Base::Home, rest);
        }
    }
    if let Some(after) = target.strip_prefix('~') {
        let end = after.find('/').unwrap_or(after.len());
        let user = &after[..end];
        if user
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        {
            return (Base::Home, &after[end..]);
        }
    }
    for cwd in [
        "$PWD",
        "${PWD}",
        "$(pwd)",
        "`pwd`",
        "$(pwd -P)",
        "$(pwd -L)",
        "`pwd -P`",
        "$(realpath .)",
        "$(readlink -f .)",
        "$CLAUDE_PROJECT_DIR",
        "${CLAUDE_PROJECT_DIR}",
        "$(git rev-parse --show-toplevel)",
    ] {
        if let Some(rest) = target.strip_prefix(cwd)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return (Base::WorkingDir, rest);
        }
    }
    if target.starts_with('/') {
        (Base::Root, target)
    } else {
        (Base::WorkingDir, target)
    }
}

/// `//dev/./sda` → `/dev/sda`: `.` and empty parts dropped, `..` applied.
pub(super) fn lexical(path: &str) -> String {
    if !path.contains("//") && !path.contains("/.") {
        return path.to_owned();
    }
    super::paths::normalize(path)
}

/// A block or character device other than the harmless ones (`/dev/null`, ttys, fds).
pub(super) fn is_raw_device(target: &str) -> bool {
    let target = lexical(target.trim());
    target.starts_with("/dev/")
        && !HARMLESS_DEVICES.contains(&target.as_str())
        && ![
            "/dev/fd/",
            "/dev/shm/",
            "/dev/pts/",
            "/dev/tty",
            "/dev/null",
        ]
        .iter()
        .any(|dir| target.starts_with(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_classified() {
        let cases = [
            ("/", Some("the filesystem root")),
            ("//", Some("the filesystem root")),
            ("/.", Some("the filesystem root")),
            ("/..", Some("the filesystem root")),
            ("/*", Some("everything in the filesystem root")),
            ("~", Some("the home directory")),
            ("~root", Some("the home directory")),
            ("~/..", Some("a directory above the home directory")),
            ("$PWD", Some("the working directory")),
            ("./", Some("the working directory")),
            ("a/..", Some("the working directory")),
            ("sub/.git", Some("the repository's .git directory")),
            ("/home/*", Some("everything in the system directory /home")),
            ("/usr/local", Some("/usr/local, part of the system")),
            ("/usr/*", Some("everything in the system directory /usr")),
            ("/var/lib/dpkg", Some("/var/lib/dpkg, part of the system")),
            ("/home/alice", Some("a home directory")),
            ("/opt/homebrew", Some("/opt/homebrew, part of the system")),
            ("/lib64", Some("the system directory /lib64")),
            ("/var/tmp/build", None),
            ("/tmp/build-1", None),
            ("/home/alice/project/build", None),
            ("/opt/app/cache/x", None),
            ("build", None),
            ("~/build", None),
            ("$HOMEDIR", None),
        ];
        for (target, expected) in cases {
            assert_eq!(
                dangerous_target(target, Reach::Tree).as_deref(),
                expected,
                "{target}"
            );
        }
    }

    #[test]
    fn single_entries_only_matter_inside_system_trees() {
        assert!(dangerous_target("/etc/hosts", Reach::Entry).is_some());
        assert!(dangerous_target("/usr/bin/python3", Reach::Entry).is_some());
        for harmless in [
            "/tmp/x",
            "/home/alice/x",
            "~",
            ".",
            "/var/tmp/x",
            "notes.txt",
        ] {
            assert_eq!(dangerous_target(harmless, Reach::Entry), None, "{harmless}");
        }
    }

    #[test]
    fn empty_variables_that_leave_the_root() {
        for (target, name) in [
            ("$DIR/", "DIR"),
            ("$DIR/*", "DIR"),
            ("${STEAMROOT}/*", "STEAMROOT"),
            ("$X//.*", "X"),
        ] {
            assert_eq!(
                empty_variable_root(target),
                Some((name, "the filesystem root")),
                "{target}"
            );
        }
        for (target, name) in [
            ("$HOME/$SUB", "SUB"),
            ("${HOME}/${SUB}/*", "SUB"),
            ("~/$A$B/", "A"),
        ] {
            assert_eq!(
                empty_variable_root(target),
                Some((name, "the home directory")),
                "{target}"
            );
        }
        assert_eq!(
            empty_variable_root("/$X"),
            Some(("X", "the filesystem root"))
        );
        for target in [
            "$DIR",
            "$DIR/build",
            "${DIR:?}/*",
            "$HOME/",
            "x/$DIR/",
            "${X:-/tmp}/",
            "$HOME/.cache/$X",
            "$HOME$X",
            "/srv/$X",
        ] {
            assert_eq!(empty_variable_root(target), None, "{target}");
        }
    }

    #[test]
    fn devices_are_told_apart() {
        for device in [
            "/dev/sda",
            "//dev/sda",
            "/dev/./nvme0n1",
            "/dev/disk/by-id/x",
        ] {
            assert!(is_raw_device(device), "{device}");
        }
        for harmless in [
            "/dev/null",
            "/dev/stderr",
            "/dev/fd/3",
            "/dev/tty1",
            "./dev/sda",
        ] {
            assert!(!is_raw_device(harmless), "{harmless}");
        }
    }
}
