//! What `cargo` runs of a Rust project the agent may have just changed. Building runs
//! the build scripts (`build.rs`, or the file `build = "…"` names) and procedural macros
//! of the package, its workspace members and the packages it depends on by path;
//! `run`, `test`, `bench` and their kin run the packages' own code too. Files git keeps
//! unchanged, and that did not change while Claude Code runs, are the user's and left
//! alone; the others are read as compiled source is (see [`super::compiled`]): the files
//! they write, move and delete and the commands they run under names the source spells
//! out or builds from literal pieces are judged as those shell lines; a name of nagger's
//! own files put together from pieces is refused, one spelled whole is asked about (the
//! code may only read it), and so is a name decoded from numbers as the program runs and
//! any name the code computes for a file it writes, moves or deletes outside its scratch
//! space (the build's output folder, temporary folders), as for Python and JavaScript.
//! Files the source pulls in (`include!`, `#[path]`) are read with it.
//! Past what is read for one call (64 changed files, 4 MiB), the command is asked about.
//! `go run` and `go test` of packages (`.`, `./cmd/x`, `./...`) are read the same way.

use super::super::finding::Finding;
use super::super::paths::normalize;
use super::super::protect::{Cwd, named_bare, named_in_code, resolve};
use super::super::shell::{self, SimpleCommand};
use super::compiled;
use super::files::{Content, Ran, View};

/// Most packages looked at for one command.
const MAX_PACKAGES: usize = 16;
/// Most folder entries listed while looking for a package's sources.
const MAX_LISTED: usize = 4096;
/// Most changed source files read for one command.
const MAX_READ: usize = 64;
/// Most bytes of changed source read for one command.
const MAX_BYTES: usize = 4 << 20;

/// What `cargo SUB` runs: its build scripts and macros only, or the packages' code too:
/// its programs (`run`), its tests (`test` and the test runners), its benchmarks.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Runs {
    Builds,
    Programs,
    Tests,
    Benches,
}

/// The subcommand of `cargo ARGS` and what it runs, for those that build.
fn subcommand(args: &[String]) -> Option<Runs> {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        match a.as_str() {
            // Options of cargo itself that take a value.
            "--config" | "-Z" | "-C" | "--color" => k += 2,
            a if a.starts_with('-') || a.starts_with('+') => k += 1,
            sub => {
                return match sub {
                    "check" | "c" | "clippy" | "doc" | "d" | "rustdoc" | "fix" | "publish"
                    | "package" | "expand" | "install" => Some(Runs::Builds),
                    // The programs built now run later, perhaps after their source was
                    // changed back or deleted: judged where they are built, as `gcc`'s
                    // and `javac`'s are.
                    "run" | "r" | "fuzz" | "build" | "b" | "rustc" => Some(Runs::Programs),
                    "bench" | "criterion" => Some(Runs::Benches),
                    "test" | "t" | "miri" | "nextest" | "llvm-cov" | "tarpaulin" | "mutants"
                    | "insta" | "hack" => Some(Runs::Tests),
                    _ => None,
                };
            }
        }
    }
    None
}

/// The folder of the package `cargo ARGS` starts from, relative to its folder.
fn start(args: &[String]) -> String {
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|k| args.get(k + 1))
            .map(String::as_str)
            .or_else(|| {
                let prefix = format!("{name}=");
                args.iter().find_map(|a| a.strip_prefix(prefix.as_str()))
            })
    };
    if let Some(manifest) = value("--manifest-path") {
        return manifest
            .rsplit_once('/')
            .map_or(".".to_owned(), |(d, _)| d.to_owned());
    }
    value("--path")
        .unwrap_or(".")
        .trim_end_matches('/')
        .to_owned()
}

/// One package's files that run for `runs`.
fn package_files(
    dir: &str,
    manifest: &toml::Table,
    runs: Runs,
    cwd: &Cwd,
    files: &View,
    listed: &mut usize,
    out: &mut Vec<String>,
) {
    let at = |p: &str| normalize(&format!("{dir}/{p}"));
    let package = manifest.get("package").and_then(toml::Value::as_table);
    match package.and_then(|p| p.get("build")) {
        Some(toml::Value::String(build)) => out.push(at(build)),
        Some(toml::Value::Boolean(false)) => {}
        _ => out.push(at("build.rs")),
    }
    let lib = manifest.get("lib").and_then(toml::Value::as_table);
    let proc_macro = lib.is_some_and(|l| {
        [l.get("proc-macro"), l.get("proc_macro")]
            .into_iter()
            .flatten()
            .any(|v| v.as_bool() == Some(true))
    });
    if runs == Runs::Builds && !proc_macro {
        return;
    }
    // Targets placed where the layout does not put them (`[[bin]] path = "tools/x.rs"`).
    for table in ["lib", "bin", "test", "bench", "example"] {
        let targets: Vec<&toml::Table> = match manifest.get(table) {
            Some(toml::Value::Table(t)) => vec![t],
            Some(toml::Value::Array(list)) => list.iter().filter_map(|t| t.as_table()).collect(),
            _ => Vec::new(),
        };
        for target in targets.into_iter().take(32) {
            if let Some(path) = target.get("path").and_then(toml::Value::as_str) {
                out.push(at(path));
                if let Some((folder, _)) = path.rsplit_once('/') {
                    sources_under(&at(folder), "rs", &rust_folder, cwd, files, listed, out);
                }
            }
        }
    }
    let folders: &[&str] = match runs {
        Runs::Builds => &["src"],
        // An example runs with `--example`: read with the programs.
        Runs::Programs => &["src", "examples"],
        Runs::Tests => &["src", "tests"],
        Runs::Benches => &["src", "benches"],
    };
    for folder in folders {
        sources_under(&at(folder), "rs", &rust_folder, cwd, files, listed, out);
    }
}

/// Whether a folder of a Rust package holds its sources: not its build output, not a
/// hidden folder.
fn rust_folder(name: &str) -> bool {
    !name.starts_with('.') && name != "target"
}

/// The files ending in `.ext` under `folder`, in the folders `descend` enters (at most
/// 8 deep, [`MAX_LISTED`] entries listed for one command in all).
fn sources_under(
    folder: &str,
    ext: &str,
    descend: &dyn Fn(&str) -> bool,
    cwd: &Cwd,
    files: &View,
    listed: &mut usize,
    out: &mut Vec<String>,
) {
    let mut queue = vec![(folder.to_owned(), 0usize)];
    while let Some((dir, depth)) = queue.pop() {
        if *listed >= MAX_LISTED || !files.is_dir(cwd, &dir) {
            continue;
        }
        let names = files.list(cwd, &dir, MAX_LISTED - *listed);
        *listed += names.len().max(1);
        for name in names {
            let path = format!("{dir}/{name}");
            if std::path::Path::new(&name)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case(ext))
            {
                out.push(path);
            } else if depth < 8 && descend(&name) {
                queue.push((path, depth + 1));
            }
        }
    }
}

/// The folders of the packages `manifest` (at `dir`) brings along: its workspace's
/// members, and what it depends on or patches in by path.
fn linked_packages(dir: &str, manifest: &toml::Table, cwd: &Cwd, files: &View) -> Vec<String> {
    let at = |p: &str| normalize(&format!("{dir}/{p}"));
    let mut out = Vec::new();
    let workspace = manifest.get("workspace").and_then(toml::Value::as_table);
    for member in workspace
        .and_then(|w| w.get("members"))
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
        .take(64)
    {
        // `crates/*`: each folder in it.
        match member.strip_suffix("/*") {
            Some(parent) => {
                for name in files.list(cwd, &at(parent), 64) {
                    out.push(at(&format!("{parent}/{name}")));
                }
            }
            None => out.push(at(member)),
        }
    }
    let mut tables: Vec<&toml::Table> = vec![manifest];
    if let Some(w) = workspace {
        tables.push(w);
    }
    for table in tables {
        path_dependencies(table, 0, &mut |p| out.push(at(p)));
    }
    out
}

/// The `path = "…"` of every dependency, patch and replacement in `table` (and in the
/// tables of targets within it), handed to `found`.
fn path_dependencies(table: &toml::Table, depth: usize, found: &mut dyn FnMut(&str)) {
    let tables = |v: &'_ toml::Table| -> Vec<toml::Table> {
        v.values()
            .take(256)
            .filter_map(toml::Value::as_table)
            .cloned()
            .collect()
    };
    for (key, value) in table.iter().take(256) {
        let Some(inner) = value.as_table() else {
            continue;
        };
        let dependencies = if key.ends_with("dependencies") || key == "replace" {
            tables(inner)
        } else if key == "patch" {
            // `[patch.crates-io] x = { path = "…" }`.
            tables(inner).iter().flat_map(tables).collect()
        } else {
            if key == "target" && depth < 2 {
                // `[target.'cfg(unix)'.dependencies]`.
                for cfg in tables(inner) {
                    path_dependencies(&cfg, depth + 1, found);
                }
            }
            continue;
        };
        for dependency in dependencies {
            if let Some(path) = dependency.get("path").and_then(toml::Value::as_str) {
                found(path);
            }
        }
    }
}

/// What `command` (a `cargo` that builds) runs of the project's Rust files that changed,
/// pushed onto `out`.
pub(super) fn runs(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    if command.name() == "go" {
        go(command.args(), cwd, files, out);
        return;
    }
    if command.name() != "cargo" {
        return;
    }
    let args = command.args();
    configured(args, cwd, files, out);
    let Some(runs) = subcommand(args) else {
        return;
    };
    let first = start(args);
    let picked = shell::option_values(args, &["-p"], &["--package"]);
    let every = args
        .iter()
        .any(|a| matches!(a.as_str(), "--workspace" | "--all"));
    let mut packages = vec![first.clone()];
    let mut done: Vec<String> = Vec::new();
    let mut sources: Vec<(String, String)> = Vec::new();
    let mut listed = 0;
    while let Some(dir) = packages.pop() {
        if done.len() >= MAX_PACKAGES {
            break;
        }
        let dir = normalize(&dir);
        if done.contains(&dir) {
            continue;
        }
        done.push(dir.clone());
        let manifest_path = format!("{dir}/Cargo.toml");
        let Content::Text { text, .. } = files.read_source(cwd, &manifest_path) else {
            continue;
        };
        let Ok(manifest) = text.parse::<toml::Table>() else {
            continue;
        };
        // The packages a workspace and its members bring along are built too; the code
        // of those it only depends on does not run (their build scripts do), nor that of
        // members the command does not pick (`-p name`, else the one it starts in, or all
        // with `--workspace`).
        let name = manifest
            .get("package")
            .and_then(|p| p.get("name"))
            .and_then(toml::Value::as_str)
            .unwrap_or("");
        let own = if picked.is_empty() {
            dir == first || every
        } else {
            picked.contains(&name)
        };
        let mut found = Vec::new();
        package_files(
            &dir,
            &manifest,
            if own { runs } else { Runs::Builds },
            cwd,
            files,
            &mut listed,
            &mut found,
        );
        sources.extend(found.into_iter().map(|f| (f, dir.clone())));
        packages.extend(linked_packages(&dir, &manifest, cwd, files));
    }
    judge_changed(&sources, "cargo", cwd, files, out);
}

/// What cargo's configuration files run when `cargo ARGS` starts (whatever the
/// subcommand: an alias is looked up there first): the project's `.cargo/config.toml`
/// and its folders' above, the home's, the files `--config FILE` names and those their
/// `include` lists, judged as when they are written (wrappers, runners, linkers,
/// aliases, `[env]`).
fn configured(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let mut queue: Vec<String> = Vec::new();
    let mut dir = String::from(".");
    for _ in 0..6 {
        for name in ["config.toml", "config"] {
            queue.push(normalize(&format!("{dir}/.cargo/{name}")));
        }
        dir = format!("{dir}/..");
    }
    queue.extend([
        "~/.cargo/config.toml".to_owned(),
        "~/.cargo/config".to_owned(),
    ]);
    queue.extend(
        shell::option_values(args, &[], &["--config"])
            .into_iter()
            .filter(|v| !v.contains('='))
            .map(str::to_owned),
    );
    let mut seen: Vec<String> = Vec::new();
    while let Some(file) = queue.pop() {
        if seen.contains(&file) || seen.len() >= 24 {
            continue;
        }
        seen.push(file.clone());
        let Content::Text { text, .. } = files.read_source(cwd, &file) else {
            continue;
        };
        let via = format!("the file `{file}`, cargo's configuration");
        let Ok(mut table) = text.parse::<toml::Table>() else {
            continue;
        };
        // Aliases: only the one this command invokes, with the command's other words.
        // (cargo takes no alias in place of one of its own commands)
        if let Some(toml::Value::Table(aliases)) = table.remove("alias")
            && let Some(at) = args.iter().position(|a| !a.starts_with('-'))
            && subcommand(&args[at..=at]).is_none()
            && let Some(alias) = aliases.get(args[at].as_str())
        {
            let words: Vec<String> = match alias {
                toml::Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
                toml::Value::Array(list) => list
                    .iter()
                    .filter_map(|w| w.as_str().map(str::to_owned))
                    .collect(),
                _ => Vec::new(),
            };
            let line: Vec<String> = std::iter::once("cargo".to_owned())
                .chain(words)
                .chain(args[at + 1..].iter().cloned())
                .map(|w| shell::shell_quote(&w))
                .collect();
            out.push(Ran::Script(line.join(" "), via.clone(), None));
        }
        let rest = toml::to_string(&table).unwrap_or_default();
        for line in super::super::important::tool_config_runs(".cargo/config.toml", &rest) {
            out.push(Ran::Script(line, via.clone(), None));
        }
        // `include = ["../conf/extra.toml"]`, relative to the file's folder.
        {
            let folder = file.rsplit_once('/').map_or(".", |(d, _)| d).to_owned();
            let included: Vec<String> = match table.get("include") {
                Some(toml::Value::String(s)) => vec![s.clone()],
                Some(toml::Value::Array(list)) => list
                    .iter()
                    .filter_map(|v| {
                        v.as_str()
                            .map(str::to_owned)
                            .or_else(|| v.get("path")?.as_str().map(str::to_owned))
                    })
                    .collect(),
                _ => Vec::new(),
            };
            queue.extend(included.into_iter().take(8).map(|i| {
                if i.starts_with(['/', '~']) {
                    i
                } else {
                    normalize(&format!("{folder}/{i}"))
                }
            }));
        }
    }
}

/// A program a build made, run by its path: `target/debug/app` (or `target/release/…`,
/// `target/<triple>/debug/…`, an example's) is the program `cargo run` of the package
/// whose `target` it is would run; `tools/x` beside a `tools/x.c` (or `.cc`, `.cpp`)
/// is what that source does. Their changed source is read as for those commands.
pub(super) fn built(file: &str, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let normal = normalize(file);
    let parts: Vec<&str> = normal.split('/').collect();
    if let Some(at) = parts.iter().rposition(|p| *p == "target")
        && parts
            .get(at + 1..)
            .is_some_and(|rest| rest.iter().any(|p| matches!(*p, "debug" | "release")))
    {
        let root = if at == 0 {
            ".".to_owned()
        } else {
            parts[..at].join("/")
        };
        let Content::Text { text, .. } = files.read_source(cwd, &format!("{root}/Cargo.toml"))
        else {
            return;
        };
        let Ok(manifest) = text.parse::<toml::Table>() else {
            return;
        };
        let mut found = Vec::new();
        let mut listed = 0;
        package_files(
            &root,
            &manifest,
            Runs::Programs,
            cwd,
            files,
            &mut listed,
            &mut found,
        );
        let sources: Vec<(String, String)> = found.into_iter().map(|f| (f, root.clone())).collect();
        judge_changed(&sources, "cargo", cwd, files, out);
        return;
    }
    let folder = normal.rsplit_once('/').map_or(".", |(d, _)| d).to_owned();
    for ext in ["c", "cc", "cpp", "cxx"] {
        let source = format!("{normal}.{ext}");
        if files.exists(cwd, &source) {
            let sources = vec![(source, folder.clone())];
            judge_changed(&sources, "cc", cwd, files, out);
        }
    }
}

/// `go run|test [PACKAGE…]`: the `.go` files of the packages named by path (`.`,
/// `./cmd/x`, `./...` and the folders below it), or of the folder it runs in.
fn go(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let Some(sub) = args.first().map(String::as_str) else {
        return;
    };
    if !matches!(sub, "run" | "test") {
        return;
    }
    let mut folders: Vec<(String, bool)> = args[1..]
        .iter()
        .take_while(|a| a.as_str() != "--")
        .filter(|a| a.starts_with(['.', '/']) && !go_file(a))
        .map(|a| match a.strip_suffix("/...") {
            Some(root) => (root.to_owned(), true),
            None => (a.trim_end_matches('/').to_owned(), false),
        })
        .take(MAX_PACKAGES)
        .collect();
    if folders.is_empty() && !args[1..].iter().any(|a| go_file(a)) {
        folders.push((".".to_owned(), false));
    }
    let mut sources = Vec::new();
    let mut listed = 0;
    for (folder, below) in folders {
        let folder = normalize(&folder);
        // `./...`: the packages below, not vendored code nor test data.
        let descend = |name: &str| {
            below
                && !name.starts_with(['.', '_'])
                && !matches!(name, "vendor" | "testdata" | "node_modules")
        };
        let mut found = Vec::new();
        sources_under(&folder, "go", &descend, cwd, files, &mut listed, &mut found);
        sources.extend(found.into_iter().map(|f| (f, folder.clone())));
    }
    judge_changed(&sources, "go", cwd, files, out);
}

/// Whether `name` is a Go source file.
fn go_file(name: &str) -> bool {
    std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("go"))
}

/// Each of `sources` (a file and the folder its program runs in) that changed since git
/// last kept it, read and judged; past what is read for one call, asked about.
fn judge_changed(
    sources: &[(String, String)],
    tool: &str,
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) {
    let mut read = 0;
    let mut bytes = 0;
    let mut seen: Vec<String> = Vec::new();
    let mut queue: std::collections::VecDeque<(String, String)> = sources.iter().cloned().collect();
    while let Some((file, package)) = queue.pop_front() {
        let (file, package) = (&file, &package);
        if seen.contains(file)
            || seen.len() >= MAX_LISTED
            || files.settled(cwd, file)
            || !files.exists(cwd, file)
        {
            continue;
        }
        seen.push(file.clone());
        if read >= MAX_READ || bytes >= MAX_BYTES {
            out.push(Ran::Finding(Finding::ask(
                "guard:budget-spent",
                format!(
                    "runs code (through `{tool}`) in more than {MAX_READ} files (or {} MiB) changed \
                     since git last kept them, past what nagger reads for one call: what it \
                     does cannot be checked",
                    MAX_BYTES >> 20
                ),
                "Commit the changes the user has looked at, or ask the user.",
            )));
            return;
        }
        read += 1;
        let text = match files.read_source(cwd, file) {
            Content::Text { text, .. } => text,
            Content::Hidden | Content::Downloaded | Content::Special(_) => {
                out.push(Ran::Finding(Finding::ask(
                    "guard:unreadable-file",
                    format!(
                        "runs `{file}` (through `{tool}`), whose contents nagger cannot read \
                         before it runs"
                    ),
                    "Write it as a regular file first, or ask the user.",
                )));
                continue;
            }
            _ => continue,
        };
        bytes += text.len();
        // `include!("../tools/x.rs")`, `#[path = "../tools/m.rs"] mod m;`: read in turn.
        let folder = file.rsplit_once('/').map_or(".", |(d, _)| d).to_owned();
        for pulled in pulled_in(&text).into_iter().take(32) {
            let path = if pulled.starts_with('/') {
                pulled
            } else {
                normalize(&format!("{folder}/{pulled}"))
            };
            queue.push_back((path, package.clone()));
        }
        let package_cwd = resolve(cwd, package).map(|p| Cwd::Known(normalize(&p)));
        judge(file, tool, &text, package_cwd.as_ref(), out);
    }
}

/// Source `file` that `tool` runs, changed since git last kept it: what it does, pushed
/// onto `out` for the guard to judge.
fn judge(file: &str, tool: &str, text: &str, cwd: Option<&Cwd>, out: &mut Vec<Ran>) {
    let via = format!("a command `{file}` runs when `{tool}` builds or runs it");
    let (lines, computed) = compiled::calls(text);
    for line in lines {
        out.push(Ran::Script(line, via.clone(), cwd.cloned()));
    }
    if named_in_code(text, None) || named_bare(text, None) {
        out.push(Ran::Finding(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "runs `{file}` (through `{tool}`), changed since git last kept it, whose code names \
                 nagger's own files or Claude Code's settings: what it does with them cannot \
                 be told from its text"
            ),
            "Ask the user to look at the change and run it in their terminal.",
        )));
    } else if let Some(found) = compiled::compiled_unknown(file, text, tool == "cc")
        .or_else(|| compiled::decoded_name(file, text, computed))
        .or_else(|| compiled::computed_target(file, computed))
    {
        out.push(Ran::Finding(found));
    }
}

/// The files Rust source pulls into itself: `include!("f.rs")`, `#[path = "f.rs"] mod
/// m;` (relative to the file's folder).
fn pulled_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for marker in ["include!(\"", "include! (\"", "#[path = \"", "#[path=\""] {
        for (at, _) in text.match_indices(marker).take(64) {
            let rest = &text[at + marker.len()..];
            if let Some(end) = rest.find('"') {
                let name = &rest[..end];
                if !name.is_empty() && !name.contains(['{', '$']) {
                    out.push(name.to_owned());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Runs, start, subcommand};

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn subcommands_that_build_or_run_code() {
        for (line, runs) in [
            ("build -q --offline", Some(Runs::Programs)),
            ("+nightly check", Some(Runs::Builds)),
            ("--config x=1 b", Some(Runs::Programs)),
            ("test --release", Some(Runs::Tests)),
            ("-q r", Some(Runs::Programs)),
            ("bench", Some(Runs::Benches)),
            ("fmt", None),
            ("tree", None),
            ("metadata", None),
        ] {
            assert!(subcommand(&words(line)) == runs, "{line}");
        }
    }

    #[test]
    fn the_package_a_command_starts_from() {
        assert_eq!(start(&words("test")), ".");
        assert_eq!(
            start(&words("test --manifest-path crates/a/Cargo.toml")),
            "crates/a"
        );
        assert_eq!(start(&words("install --path tools/x/")), "tools/x");
    }
}
