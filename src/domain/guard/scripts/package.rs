//! The scripts package managers run from `package.json`: `npm run NAME`, `npm test`,
//! `yarn NAME`, `pnpm NAME`, `bun run NAME`, each with its `pre` and `post` scripts, and the
//! install scripts a bare `npm install` runs. Run in the folder of the nearest
//! `package.json`, as the managers do.

use serde_json::Value;

use super::super::paths::normalize;
use super::super::protect::{Cwd, resolve};
use super::super::shell::{self, SimpleCommand, shell_quote};
use super::files::{Content, Ran, View, read_named};

/// The PATH package managers run scripts and package programs with: the packages'
/// programs first.
const BIN_PATH: &str = "PATH=node_modules/.bin:$PATH";

/// Scripts a bare install runs, in order.
const INSTALL: &[&str] = &[
    "preinstall",
    "install",
    "postinstall",
    "prepublish",
    "preprepare",
    "prepare",
    "postprepare",
];

/// npm's commands that run the script of the same name.
const NPM_LIFECYCLE: &[&str] = &["test", "start", "stop", "restart"];

/// Bun's own commands besides the package managers' ([`BUILTINS`]): `bun build` bundles,
/// `bun test` tests, `bun x` runs a package; none runs a script of that name.
const BUN_OWN: &[&str] = &[
    "build",
    "test",
    "x",
    "repl",
    "pm",
    "upgrade",
    "completions",
    "outdated",
    "publish",
    "patch",
    "patch-commit",
    "update",
    "remove",
    "rm",
    "unlink",
    "why",
    "feedback",
];

/// Commands of yarn and pnpm that are their own, not scripts of the package.
const BUILTINS: &[&str] = &[
    "add",
    "audit",
    "bin",
    "cache",
    "config",
    "create",
    "dedupe",
    "dlx",
    "exec",
    "explain",
    "global",
    "help",
    "import",
    "info",
    "init",
    "install",
    "i",
    "link",
    "list",
    "ls",
    "login",
    "logout",
    "node",
    "outdated",
    "owner",
    "pack",
    "patch",
    "plugin",
    "prune",
    "publish",
    "rebuild",
    "remove",
    "rm",
    "search",
    "set",
    "setup",
    "store",
    "tag",
    "team",
    "unlink",
    "unplug",
    "up",
    "update",
    "upgrade",
    "version",
    "versions",
    "why",
    "workspace",
    "workspaces",
    "env",
    "fetch",
    "root",
    "server",
    "licenses",
    "constraints",
    "npm",
    "stage",
    "x",
    "upgrade-interactive",
    "generate-lock-entry",
    "check",
    "doctor",
    "deploy",
    "licenses",
    "ci",
    "approve-builds",
];

/// Options of the managers that take a value (`--prefix DIR`, `--filter PKG`).
const VALUE_OPTIONS: &[&str] = &[
    "--prefix",
    "--cwd",
    "--dir",
    "-C",
    "--filter",
    "-F",
    "--workspace",
    "-w",
    "--loglevel",
    "--registry",
    "--cache",
    "--userconfig",
    "--script-shell",
];

/// What command runs from `package.json`, pushed onto `out`. Hands back a program file
/// when `bun` runs one (`bun x.ts`, `bun run x.ts`) rather than a script.
pub(super) fn runs(
    command: &SimpleCommand,
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) -> Option<String> {
    let manager = command.name();
    if matches!(manager, "turbo" | "nx") {
        monorepo_tasks(command, cwd, files, out);
        return None;
    }
    if !matches!(manager, "npm" | "yarn" | "pnpm" | "bun") {
        return None;
    }
    let args = command.args();
    let mut dir = cwd.clone();
    let mut words: Vec<&str> = Vec::new();
    let mut rest: Vec<&str> = Vec::new();
    let mut ignore_scripts = false;
    // `--workspace web`, `--filter ./apps/web`, `-r`: scripts of the workspace's packages.
    let mut selected: Vec<&str> = Vec::new();
    let mut every_workspace = false;
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        k += 1;
        if arg == "--" {
            rest.extend(args[k..].iter().map(String::as_str));
            break;
        }
        if let Some((name, value)) = arg.split_once('=')
            && VALUE_OPTIONS.contains(&name)
        {
            if matches!(name, "--prefix" | "--cwd" | "--dir") {
                dir = Cwd::Known(normalize(&resolve(&dir, value)?));
            } else if matches!(name, "--workspace" | "--filter" | "-w" | "-F") {
                selected.push(value);
            }
            continue;
        }
        if VALUE_OPTIONS.contains(&arg.as_str()) {
            let value = args.get(k)?;
            k += 1;
            if matches!(arg.as_str(), "--prefix" | "--cwd" | "--dir" | "-C") {
                dir = Cwd::Known(normalize(&resolve(&dir, value)?));
            } else if matches!(arg.as_str(), "--workspace" | "--filter" | "-w" | "-F") {
                selected.push(value);
            }
            continue;
        }
        if matches!(arg.as_str(), "-r" | "--recursive" | "-ws" | "--workspaces") {
            every_workspace = true;
            continue;
        }
        if arg == "--ignore-scripts" {
            ignore_scripts = true;
        }
        // Options before the command and between it and the script's name (`npm run -s
        // build`, `npm --silent test`) are npm's own.
        if arg.starts_with('-') && words.len() < 2 {
            continue;
        }
        words.push(arg);
    }
    let first = words.first().copied();
    let after = |n: usize| -> Vec<&str> {
        let mut all: Vec<&str> = words.iter().skip(n).copied().collect();
        all.extend(rest.iter().copied());
        all
    };
    // `npm install --offline --no-fund`: installing the package itself, with options;
    // `--ignore-scripts` runs none of its scripts.
    let installs_itself = words.iter().skip(1).all(|w| w.starts_with('-')) && !ignore_scripts;
    // `npm install ./vendor/fmt`, `pnpm add file:../lib`: the install scripts of the local
    // packages it installs.
    if matches!(first, Some("install" | "i" | "add" | "ci" | "in" | "ins")) && !ignore_scripts {
        let local: Vec<String> = words
            .iter()
            .skip(1)
            .map(|w| {
                w.strip_prefix("file:")
                    .or_else(|| w.strip_prefix("link:"))
                    .unwrap_or(w)
            })
            .filter(|w| w.starts_with("./") || w.starts_with("../") || w.starts_with('/'))
            .filter_map(|w| resolve(&dir, w.trim_end_matches('/')).map(|p| normalize(&p)))
            .take(MAX_MEMBERS)
            .collect();
        for (member, member_dir) in packages_in(local, files) {
            scripts_of(&member, &member_dir, INSTALL, &[], out);
        }
    }
    let (names, extra): (Vec<&str>, Vec<&str>) = match (manager, first) {
        ("npm", Some("run" | "run-script" | "rum" | "urn")) => match words.get(1) {
            Some(name) => (vec![name], after(2)),
            None => return None,
        },
        ("npm", Some("t" | "tst")) => (vec!["test"], after(1)),
        ("npm", Some(name)) if NPM_LIFECYCLE.contains(&name) => (vec![name], after(1)),
        ("npm", Some("install" | "i" | "ci" | "in" | "ins" | "isnt")) if installs_itself => {
            (INSTALL.to_vec(), Vec::new())
        }
        // npm's commands that run scripts of the package's lifecycle around their work.
        ("npm" | "pnpm" | "yarn", Some("pack")) if !ignore_scripts => {
            (vec!["prepack", "prepare", "postpack"], Vec::new())
        }
        ("npm" | "pnpm" | "yarn", Some("publish")) if !ignore_scripts => (
            vec![
                "prepublishOnly",
                "prepack",
                "prepare",
                "postpack",
                "publish",
                "postpublish",
            ],
            Vec::new(),
        ),
        ("npm" | "yarn", Some("version")) if !ignore_scripts => {
            (vec!["preversion", "version", "postversion"], Vec::new())
        }
        ("npm" | "pnpm", Some("rebuild" | "rb")) if !ignore_scripts => {
            (INSTALL.to_vec(), Vec::new())
        }
        ("npm", _) => return None,
        // `yarn workspace web clean`, `yarn workspace web run clean`.
        ("yarn", Some("workspace")) => {
            selected.push(words.get(1)?);
            match words.get(2).copied() {
                Some("run") => (vec![*words.get(3)?], after(4)),
                Some(name) => (vec![name], after(3)),
                None => return None,
            }
        }
        // `yarn workspaces foreach -A run clean`.
        ("yarn", Some("workspaces")) => {
            every_workspace = true;
            let at = words.iter().position(|w| *w == "run")?;
            (vec![*words.get(at + 1)?], after(at + 2))
        }
        ("yarn" | "pnpm", None) => (INSTALL.to_vec(), Vec::new()),
        ("yarn" | "pnpm", Some("install" | "i")) if installs_itself => {
            (INSTALL.to_vec(), Vec::new())
        }
        ("yarn" | "pnpm", Some("run" | "run-script")) => match words.get(1) {
            Some(name) => (vec![name], after(2)),
            None => return None,
        },
        ("pnpm", Some("t" | "tst")) => (vec!["test"], after(1)),
        ("yarn" | "pnpm", Some(name)) if !BUILTINS.contains(&name) => (vec![name], after(1)),
        ("bun", Some("run")) => match words.get(1) {
            Some(name) => (vec![name], after(2)),
            None => return None,
        },
        ("bun", Some("install" | "i")) if installs_itself => (INSTALL.to_vec(), Vec::new()),
        ("bun", Some(name)) if !BUILTINS.contains(&name) && !BUN_OWN.contains(&name) => {
            (vec![name], after(1))
        }
        _ => return None,
    };
    let (package, dir) = find_package(&dir, files, out)?;
    let install = names.as_slice() == INSTALL;
    if every_workspace || !selected.is_empty() || install {
        // The workspace's packages the command runs in: those selected (all of them for
        // `-r` or a selector nagger does not read), and for an install every package it
        // installs from the project: workspaces and `file:`/`link:` dependencies.
        let mut members = workspace_packages(&package, &dir, files);
        if install {
            members.extend(local_dependencies(&package, &dir, files));
        } else if !every_workspace {
            members.retain(|(p, d)| selected.iter().any(|s| selects(s, p, d)));
        }
        for (member, member_dir) in members.iter().take(MAX_MEMBERS) {
            scripts_of(member, member_dir, &names, &extra, out);
        }
        if !install {
            return None;
        }
    }
    let scripts = package.get("scripts").and_then(Value::as_object);
    let script = |name: &str| scripts.and_then(|s| s.get(name)).and_then(Value::as_str);
    if manager == "bun"
        && let [name] = names.as_slice()
        && script(name).is_none()
    {
        // `bun run x.ts` runs the file when no script has its name.
        return Some((*name).to_owned());
    }
    // The managers put the packages' programs first on the script's PATH.
    scripts_of(&package, &dir, &names, &extra, out);
    None
}

/// Most packages of a workspace whose scripts are read for one command.
const MAX_MEMBERS: usize = 64;

/// The scripts `names` (with `extra` words after the last) of `package` at `dir`,
/// pushed onto `out`, each with its `pre` and `post` script unless `names` is a
/// lifecycle's list.
fn scripts_of(package: &Value, dir: &Cwd, names: &[&str], extra: &[&str], out: &mut Vec<Ran>) {
    let scripts = package.get("scripts").and_then(Value::as_object);
    let script = |name: &str| scripts.and_then(|s| s.get(name)).and_then(Value::as_str);
    let shown = match dir {
        Cwd::Known(d) if !d.is_empty() => format!("{d}/package.json"),
        _ => "package.json".to_owned(),
    };
    for name in names.iter().copied() {
        let steps: Vec<String> = if names.len() > 1 {
            vec![name.to_owned()]
        } else {
            vec![format!("pre{name}"), name.to_owned(), format!("post{name}")]
        };
        for step in steps {
            let Some(text) = script(&step) else { continue };
            let mut text = text.to_owned();
            if step == name {
                for word in extra {
                    text.push(' ');
                    text.push_str(&shell_quote(word));
                }
            }
            out.push(Ran::Script(
                format!("export {BIN_PATH}; {text}"),
                format!("the `{step}` script of `{shown}`"),
                Some(dir.clone()),
            ));
        }
    }
}

/// Whether the workspace selector `selector` (a package's name, its folder, `./dir`,
/// or a pattern nagger does not read, taken as any) picks `package` at `dir`.
fn selects(selector: &str, package: &Value, dir: &Cwd) -> bool {
    let selector = selector.trim_start_matches('!');
    if selector.contains(['*', '{', '[', '.', '^', '.']) && !selector.starts_with("./") {
        return true;
    }
    let name = package.get("name").and_then(Value::as_str).unwrap_or("");
    let folder = match dir {
        Cwd::Known(d) => d.as_str(),
        Cwd::Unknown => "",
    };
    let path = normalize(selector.trim_start_matches("./"));
    selector == name
        || name.rsplit('/').next() == Some(selector)
        || folder == path
        || folder.ends_with(&format!("/{path}"))
}

/// The packages of the workspace `root` (at `dir`) declares: its `workspaces` (a list or
/// `{packages: […]}`) and `pnpm-workspace.yaml`'s `packages`, a trailing `*` or `**`
/// read as the folders in it.
fn workspace_packages(root: &Value, dir: &Cwd, files: &View) -> Vec<(Value, Cwd)> {
    let mut patterns: Vec<String> = Vec::new();
    let listed = root
        .get("workspaces")
        .and_then(|w| w.as_array().or_else(|| w.get("packages")?.as_array()));
    patterns.extend(
        listed
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned),
    );
    if let Content::Text { text, .. } = files.read_source(dir, "pnpm-workspace.yaml") {
        let mut in_packages = false;
        for line in text.lines().take(512) {
            if !line.starts_with([' ', '-', '\t']) {
                in_packages = line.trim_end().starts_with("packages:");
                continue;
            }
            if in_packages && let Some(item) = line.trim().strip_prefix('-') {
                patterns.push(item.trim().trim_matches(['"', '\'']).to_owned());
            }
        }
    }
    let base = match dir {
        Cwd::Known(d) => d.clone(),
        Cwd::Unknown => return Vec::new(),
    };
    let join = |p: &str| {
        if base.is_empty() {
            normalize(p)
        } else {
            normalize(&format!("{base}/{p}"))
        }
    };
    let mut folders: Vec<String> = Vec::new();
    for pattern in patterns.iter().filter(|p| !p.starts_with('!')).take(32) {
        let pattern = pattern.trim_start_matches("./").trim_end_matches('/');
        match pattern
            .strip_suffix("/**")
            .or_else(|| pattern.strip_suffix("/*"))
        {
            Some(parent) => {
                let parent = join(parent);
                for name in files.list(&Cwd::Known(String::new()), &parent, MAX_MEMBERS) {
                    folders.push(format!("{parent}/{name}"));
                }
            }
            None => folders.push(join(pattern)),
        }
    }
    packages_in(folders, files)
}

/// The packages an install builds from the project's own folders: the `file:` and
/// `link:` dependencies of `root` (at `dir`).
fn local_dependencies(root: &Value, dir: &Cwd, files: &View) -> Vec<(Value, Cwd)> {
    let base = match dir {
        Cwd::Known(d) => d.clone(),
        Cwd::Unknown => return Vec::new(),
    };
    let folders: Vec<String> = [
        "dependencies",
        "devDependencies",
        "optionalDependencies",
        "peerDependencies",
    ]
    .iter()
    .filter_map(|k| root.get(*k)?.as_object())
    .flat_map(|deps| deps.values().filter_map(Value::as_str))
    .filter_map(|v| v.strip_prefix("file:").or_else(|| v.strip_prefix("link:")))
    .filter(|p| {
        let lower = p.to_ascii_lowercase();
        !(std::path::Path::new(&lower)
            .extension()
            .is_some_and(|e| e == "tgz" || e == "gz"))
    })
    .map(|p| {
        if base.is_empty() || p.starts_with('/') {
            normalize(p)
        } else {
            normalize(&format!("{base}/{p}"))
        }
    })
    .take(MAX_MEMBERS)
    .collect();
    packages_in(folders, files)
}

/// The `package.json` of each of `folders`, parsed, with its folder.
fn packages_in(folders: Vec<String>, files: &View) -> Vec<(Value, Cwd)> {
    let mut found = Vec::new();
    for folder in folders.into_iter().take(MAX_MEMBERS) {
        let cwd = Cwd::Known(folder);
        if let Content::Text { text, .. } = files.read_source(&cwd, "package.json")
            && let Ok(value) = serde_json::from_str::<Value>(&text)
        {
            found.push((value, cwd));
        }
    }
    found
}

/// `turbo run build test`, `turbo clean`, `nx run web:clean`, `nx run-many -t clean`,
/// `nx affected -t test`, `nx clean web`: the tasks' scripts in the workspace's packages
/// (the one named, or every one).
fn monorepo_tasks(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    let words: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut targets: Vec<&str> = Vec::new();
    let mut project: Option<&str> = None;
    match (command.name(), words.first().copied()) {
        ("turbo", Some("run")) => targets.extend(words.iter().skip(1).take(8)),
        ("turbo", Some(task))
            if !matches!(
                task,
                "prune" | "login" | "link" | "unlink" | "daemon" | "gen" | "ls" | "info"
            ) =>
        {
            targets.extend(words.iter().take(8));
        }
        ("nx", Some("run")) => {
            let (p, t) = words
                .get(1)
                .and_then(|w| w.split_once(':'))
                .unwrap_or(("", ""));
            project = Some(p).filter(|p| !p.is_empty());
            targets.extend(Some(t).filter(|t| !t.is_empty()));
        }
        ("nx", Some("run-many" | "affected")) => {
            targets.extend(
                shell::option_values(args, &["-t"], &["--target", "--targets"])
                    .into_iter()
                    .flat_map(|t| t.split(',')),
            );
        }
        ("nx", Some(task))
            if !matches!(
                task,
                "reset"
                    | "graph"
                    | "show"
                    | "list"
                    | "report"
                    | "daemon"
                    | "format:check"
                    | "format:write"
                    | "init"
                    | "migrate"
                    | "add"
                    | "generate"
                    | "g"
            ) =>
        {
            targets.push(task);
            project = words.get(1).copied();
        }
        _ => {}
    }
    if targets.is_empty() {
        return;
    }
    let Some((root, dir)) = find_package(cwd, files, out) else {
        return;
    };
    let mut members = workspace_packages(&root, &dir, files);
    // The root's own script for a task runs when the task is the root's (turbo's
    // `//#build`, nx's root project); one that hands the task to turbo or nx again
    // (`"build": "turbo run build"`) is how the task was started, not one of its runs.
    let delegates = |script: &str| {
        // `turbo run build`, `npx turbo build`, `pnpm exec nx run-many -t build`.
        script.split(['&', ';', '|']).any(|part| {
            part.split_whitespace()
                .filter(|w| !w.contains('='))
                .take(3)
                .any(|w| matches!(w, "turbo" | "nx"))
        })
    };
    let mut root = root;
    if let Some(scripts) = root.get_mut("scripts").and_then(Value::as_object_mut) {
        scripts.retain(|name, script| {
            !(targets.contains(&name.as_str()) && script.as_str().is_some_and(delegates))
        });
    }
    members.push((root, dir));
    if let Some(project) = project {
        members.retain(|(p, _)| {
            p.get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| n == project || n.rsplit('/').next() == Some(project))
        });
    }
    for (member, member_dir) in members.iter().take(MAX_MEMBERS) {
        for target in &targets {
            scripts_of(member, member_dir, &[target], &[], out);
        }
    }
}

/// The nearest `package.json` from `dir` up to the project's root, parsed, with its folder.
fn find_package(dir: &Cwd, files: &View, out: &mut Vec<Ran>) -> Option<(Value, Cwd)> {
    let Cwd::Known(start) = dir else {
        return None;
    };
    let mut here = start.clone();
    loop {
        let cwd = Cwd::Known(here.clone());
        match files.read(&cwd, "package.json") {
            Content::Absent => {}
            content => {
                let (text, _) = read_named(content, "package.json", out)?;
                return Some((serde_json::from_str(&text).ok()?, cwd));
            }
        }
        // Up one folder while inside the project.
        if here.is_empty() || here.starts_with(['/', '~']) || here.starts_with("..") {
            return None;
        }
        here = match here.rsplit_once('/') {
            Some((parent, _)) => parent.to_owned(),
            None => String::new(),
        };
    }
}
