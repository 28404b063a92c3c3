//! The scripts package managers run from `package.json`: `npm run NAME`, `npm test`,
//! `yarn NAME`, `pnpm NAME`, `bun run NAME`, each with its `pre` and `post` scripts, and the
//! install scripts a bare `npm install` runs. Run in the folder of the nearest
//! `package.json`, as the managers do.

use serde_json::Value;

use super::super::paths::normalize;
use super::super::protect::{Cwd, resolve};
use super::super::shell::{SimpleCommand, shell_quote};
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
    if !matches!(manager, "npm" | "yarn" | "pnpm" | "bun") {
        return None;
    }
    let args = command.args();
    let mut dir = cwd.clone();
    let mut words: Vec<&str> = Vec::new();
    let mut rest: Vec<&str> = Vec::new();
    let mut ignore_scripts = false;
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
            }
            continue;
        }
        if VALUE_OPTIONS.contains(&arg.as_str()) {
            let value = args.get(k)?;
            k += 1;
            if matches!(arg.as_str(), "--prefix" | "--cwd" | "--dir" | "-C") {
                dir = Cwd::Known(normalize(&resolve(&dir, value)?));
            } else {
                // `--workspace`, `--filter`: another package's scripts, not read.
                return None;
            }
            continue;
        }
        if matches!(arg.as_str(), "-r" | "--recursive" | "-ws" | "--workspaces") {
            return None;
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
        ("bun", Some(name)) if !BUILTINS.contains(&name) && name != "test" => {
            (vec![name], after(1))
        }
        _ => return None,
    };
    let (package, dir) = find_package(&dir, files, out)?;
    let scripts = package.get("scripts").and_then(Value::as_object);
    let script = |name: &str| scripts.and_then(|s| s.get(name)).and_then(Value::as_str);
    if manager == "bun"
        && let [name] = names.as_slice()
        && script(name).is_none()
    {
        // `bun run x.ts` runs the file when no script has its name.
        return Some((*name).to_owned());
    }
    let shown = match &dir {
        Cwd::Known(d) if !d.is_empty() => format!("{d}/package.json"),
        _ => "package.json".to_owned(),
    };
    for name in names.iter().copied() {
        let lifecycle = names.len() > 1;
        let steps: Vec<String> = if lifecycle {
            vec![name.to_owned()]
        } else {
            vec![format!("pre{name}"), name.to_owned(), format!("post{name}")]
        };
        for step in steps {
            let Some(text) = script(&step) else { continue };
            let mut text = text.to_owned();
            if step == name && !extra.is_empty() {
                for word in &extra {
                    text.push(' ');
                    text.push_str(&shell_quote(word));
                }
            }
            // The managers put the packages' programs first on the script's PATH.
            out.push(Ran::Script(
                format!("export {BIN_PATH}; {text}"),
                format!("the `{step}` script of `{shown}`"),
                Some(dir.clone()),
            ));
        }
    }
    None
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
