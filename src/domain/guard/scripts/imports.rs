//! The project's own modules a Python or Node program loads: `import helper`, `from .lib
//! import x`, `importlib.import_module("tools.clean")`, `require('./lib')`, `import x from
//! '../y.mjs'`, `require('pkg')` from `node_modules`. A module of the same name beside the
//! program comes before the standard library's (`random.py`), so each name is looked up
//! there first. What they hold runs when the program runs, and is read like it, as deep as
//! [`MAX_DEPTH`] and within the call's files. Python's start-up files in the user's site
//! folder (`usercustomize.py`, `sitecustomize.py`, the `import` lines of `.pth` files) run
//! before any Python program and are read for every one.

use super::super::protect::Cwd;
use super::super::shell::{self, SimpleCommand, basename};
use super::files::{Content, Ran, View};

/// Deepest chain of modules followed from the program.
const MAX_DEPTH: usize = 3;
/// Most module names taken from one file.
const MAX_NAMES: usize = 64;
/// Most `python3.*` folders looked at in the user's site.
const MAX_SITES: usize = 8;
/// Most `.pth` files read from one site folder.
const MAX_PTH: usize = 16;

/// What language a program's modules are in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lang {
    Python,
    Node,
}

fn lang_of(runner: &str) -> Option<Lang> {
    let name = basename(runner);
    if name.starts_with("python") || name.starts_with("pypy") {
        Some(Lang::Python)
    } else if matches!(name, "node" | "nodejs" | "bun" | "deno" | "tsx" | "ts-node") {
        Some(Lang::Node)
    } else {
        None
    }
}

/// The folder `file` (as a command names it) is in, as a prefix for names beside it.
fn folder_prefix(file: &str) -> String {
    match file.rsplit_once('/') {
        Some(("", _)) => "/".to_owned(),
        Some((dir, _)) => format!("{dir}/"),
        None => String::new(),
    }
}

/// Pushes what the modules `text` (the code of `file`, or inline code when `file` is
/// `None`) loads from beside it hold, for `runner`.
pub(super) fn follow(
    text: &str,
    runner: &str,
    file: Option<&str>,
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) {
    let Some(lang) = lang_of(runner) else {
        return;
    };
    let mut seen: Vec<String> = file.map(|f| vec![f.to_owned()]).unwrap_or_default();
    let mut queue = vec![(
        text.to_owned(),
        file.map(folder_prefix).unwrap_or_default(),
        0,
    )];
    while let Some((code, dir, depth)) = queue.pop() {
        if depth >= MAX_DEPTH {
            continue;
        }
        for path in candidates(lang, &code, &dir, cwd, files) {
            if seen.contains(&path) {
                continue;
            }
            seen.push(path.clone());
            if let Content::Text { text, .. } = files.read(cwd, &path) {
                let via = format!("the module `{path}` it loads");
                out.push(Ran::Code(text.clone(), runner.to_owned(), via));
                // An installed package's own modules are not followed further.
                if !path.contains("node_modules/") {
                    queue.push((text, folder_prefix(&path), depth + 1));
                }
            }
        }
    }
}

/// The files the names `code` loads may be, beside it in `dir`, that exist.
fn candidates(lang: Lang, code: &str, dir: &str, cwd: &Cwd, files: &View) -> Vec<String> {
    let exists = |p: &str| files.is_file(cwd, p);
    let mut out = Vec::new();
    match lang {
        Lang::Python => {
            for (dots, module) in python_names(code) {
                // `from . import x` and `from .m import x` are relative to the package;
                // a plain name is looked up beside the program first.
                let mut base = dir.to_owned();
                for _ in 1..dots {
                    base.push_str("../");
                }
                let rel = module.replace('.', "/");
                for path in [
                    format!("{base}{rel}.py"),
                    format!("{base}{rel}/__init__.py"),
                ] {
                    if exists(&path) {
                        out.push(path);
                    }
                }
            }
        }
        Lang::Node => {
            for spec in node_names(code) {
                if spec.starts_with("./") || spec.starts_with("../") || spec.starts_with('/') {
                    let base = if spec.starts_with('/') {
                        spec.clone()
                    } else {
                        format!("{dir}{spec}")
                    };
                    for ext in ["", ".js", ".mjs", ".cjs", ".ts", "/index.js", "/index.mjs"] {
                        let path = format!("{base}{ext}");
                        if exists(&path) {
                            out.push(path);
                            break;
                        }
                    }
                } else if !spec.starts_with("node:") {
                    // A package: its `main`, or `index.js`, in the nearest `node_modules`
                    // from the program's folder up.
                    let Some(package) = ["", "../", "../../", "../../../"]
                        .iter()
                        .map(|up| format!("{dir}{up}node_modules/{spec}"))
                        .find(|p| files.is_dir(cwd, p))
                    else {
                        continue;
                    };
                    let main = match files.read(cwd, &format!("{package}/package.json")) {
                        Content::Text { text, .. } => {
                            serde_json::from_str::<serde_json::Value>(&text)
                                .ok()
                                .and_then(|v| v.get("main")?.as_str().map(str::to_owned))
                        }
                        _ => None,
                    };
                    for path in main
                        .map(|m| format!("{package}/{}", m.trim_start_matches("./")))
                        .into_iter()
                        .chain([format!("{package}/index.js"), format!("{package}.js")])
                    {
                        if exists(&path) {
                            out.push(path);
                            break;
                        }
                    }
                }
            }
        }
    }
    out
}

/// The modules Python code names: `(dots, name)` for `import a.b, c`, `from ..a import
/// x, y` (also `a/x` for each name), `importlib.import_module("a")`, `__import__("a")`.
fn python_names(code: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let ident = |s: &str| {
        !s.is_empty()
            && s.split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric()))
    };
    for line in code.lines() {
        if out.len() >= MAX_NAMES {
            break;
        }
        // Statements after `;` too.
        for stmt in line.split(';') {
            let stmt = stmt.trim();
            if let Some(rest) = stmt.strip_prefix("import ") {
                for part in rest.split(',') {
                    let name = part.split_whitespace().next().unwrap_or("");
                    if ident(name) {
                        out.push((0, name.to_owned()));
                    }
                }
            } else if let Some(rest) = stmt.strip_prefix("from ") {
                let Some((module, names)) = rest.split_once(" import ") else {
                    continue;
                };
                let module = module.trim();
                let dots = module.len() - module.trim_start_matches('.').len();
                let module = module.trim_start_matches('.');
                if !module.is_empty() && ident(module) {
                    out.push((dots.max(usize::from(dots > 0)), module.to_owned()));
                }
                for name in names.trim_matches(['(', ')', ' ']).split(',') {
                    let name = name.split_whitespace().next().unwrap_or("");
                    if ident(name) && name != "*" {
                        let full = if module.is_empty() {
                            name.to_owned()
                        } else {
                            format!("{module}.{name}")
                        };
                        out.push((dots, full));
                    }
                }
            }
        }
    }
    for call in ["import_module(", "__import__("] {
        for (at, _) in code.match_indices(call).take(MAX_NAMES) {
            let rest = &code[at + call.len()..];
            let rest = rest.trim_start();
            if let Some(q) = rest.chars().next().filter(|c| matches!(c, '"' | '\''))
                && let Some(end) = rest[1..].find(q)
                && ident(&rest[1..=end])
            {
                out.push((0, rest[1..=end].to_owned()));
            }
        }
    }
    out
}

/// The modules JavaScript code names: `require('x')`, `import … from 'x'`, `import 'x'`,
/// `import('x')`, `export … from 'x'`.
fn node_names(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut take = |rest: &str| {
        let rest = rest.trim_start();
        if let Some(q) = rest
            .chars()
            .next()
            .filter(|c| matches!(c, '"' | '\'' | '`'))
            && let Some(end) = rest[1..].find(q)
        {
            let spec = &rest[1..=end];
            if !spec.is_empty() && !spec.contains(['$', '{']) && out.len() < MAX_NAMES {
                out.push(spec.to_owned());
            }
        }
    };
    for call in ["require(", "import("] {
        for (at, _) in code.match_indices(call) {
            take(&code[at + call.len()..]);
        }
    }
    for (at, _) in code.match_indices(" from ") {
        take(&code[at + 6..]);
    }
    for line in code.lines() {
        if let Some(rest) = line.trim_start().strip_prefix("import ") {
            take(rest);
        }
    }
    out
}

/// The file `node DIR` runs: the folder's `package.json` `main`, else its `index.js`.
pub(super) fn node_entry(dir: &str, cwd: &Cwd, files: &View) -> Option<String> {
    let dir = dir.trim_end_matches('/');
    let main = match files.read(cwd, &format!("{dir}/package.json")) {
        Content::Text { text, .. } => serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("main")?.as_str().map(str::to_owned)),
        _ => None,
    };
    main.map(|m| format!("{dir}/{}", m.trim_start_matches("./")))
        .into_iter()
        .chain([format!("{dir}/index.js")])
        .find(|p| files.is_file(cwd, p))
}

/// Python's start-up files in the user's site folders, for a command that runs Python:
/// `usercustomize.py`, `sitecustomize.py` and the `import` lines of `.pth` files.
pub(super) fn python_startup(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let name = command.name();
    if lang_of(name) != Some(Lang::Python) {
        return;
    }
    // `-I` and `-s` leave the user's site out; `-S` the site module altogether.
    let args = command.args();
    if args
        .iter()
        .take_while(|a| a.starts_with('-') && !matches!(a.as_str(), "-c" | "-m"))
        .any(|a| a.len() > 1 && !a.starts_with("--") && a[1..].contains(['I', 's', 'S']))
    {
        return;
    }
    // `PYTHONPATH=lib python3 …`: `sitecustomize.py` and `usercustomize.py` there too.
    let here = cwd;
    for dirs in command
        .env
        .iter()
        .chain(command.prefixed.iter().flatten())
        .filter_map(|w| w.strip_prefix("PYTHONPATH="))
    {
        for dir in dirs
            .split(':')
            .filter(|d| !d.is_empty() && !d.contains('$'))
            .take(8)
        {
            for file in ["sitecustomize.py", "usercustomize.py"] {
                let path = format!("{}/{file}", dir.trim_end_matches('/'));
                if let Content::Text { text, .. } = files.read(here, &path) {
                    let via = format!("`{path}`, which Python runs at its start from `PYTHONPATH`");
                    follow(&text, name, Some(&path), here, files, out);
                    out.push(Ran::Code(text, name.to_owned(), via));
                }
            }
        }
    }
    let home = Cwd::Known(String::new());
    let lib = "~/.local/lib";
    let mut sites: Vec<String> = files
        .list(&home, lib, 64)
        .into_iter()
        .filter(|d| d.starts_with("python"))
        .take(MAX_SITES)
        .map(|d| format!("{lib}/{d}/site-packages"))
        .collect();
    sites.sort();
    for site in sites {
        for file in ["usercustomize.py", "sitecustomize.py"] {
            let path = format!("{site}/{file}");
            if let Content::Text { text, .. } = files.read(&home, &path) {
                let via = format!("`{path}`, which Python runs at every start");
                follow(&text, name, Some(&path), &home, files, out);
                out.push(Ran::Code(text, name.to_owned(), via));
            }
        }
        let mut pth: Vec<String> = files
            .list(&home, &site, 4096)
            .into_iter()
            .filter(|f| {
                std::path::Path::new(f)
                    .extension()
                    .is_some_and(|e| e == "pth")
            })
            .collect();
        pth.sort();
        for file in pth.into_iter().take(MAX_PTH) {
            let path = format!("{site}/{file}");
            if let Content::Text { text, .. } = files.read(&home, &path) {
                let code: Vec<&str> = text
                    .lines()
                    .filter(|l| l.starts_with("import ") || l.starts_with("import\t"))
                    .collect();
                if !code.is_empty() {
                    let via = format!("`{path}`, whose `import` lines Python runs at every start");
                    out.push(Ran::Code(code.join("\n"), name.to_owned(), via));
                }
            }
        }
    }
}

/// Inline code of an interpreter that loads modules (`python3 -c 'import helper'`,
/// `node -e "require('./x')"`): followed from the command's folder.
pub(super) fn inline(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let Some(lang) = lang_of(command.name()) else {
        return;
    };
    if let Some(code) = shell::inline_code(&command.argv) {
        follow(code, command.name(), None, cwd, files, out);
    }
    // `python3 -m tools.clean`: the module beside the command first.
    if lang == Lang::Python
        && let Some(at) = command.argv.iter().position(|a| a == "-m")
        && let Some(module) = command.argv.get(at + 1)
    {
        follow(
            &format!("import {module}"),
            command.name(),
            None,
            cwd,
            files,
            out,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_are_read_from_python_and_javascript() {
        let py = python_names(
            "import os, helper as h\nfrom .lib import a, b\nfrom tools.clean import run\n\
             x = importlib.import_module('plug.x'); __import__(\"y\")\nfrom . import z\n",
        );
        for want in [
            (0, "os"),
            (0, "helper"),
            (1, "lib"),
            (1, "lib.a"),
            (0, "tools.clean"),
            (0, "tools.clean.run"),
            (0, "plug.x"),
            (0, "y"),
            (1, "z"),
        ] {
            assert!(
                py.contains(&(want.0, want.1.to_owned())),
                "{want:?} in {py:?}"
            );
        }
        let js = node_names(
            "const a = require('./a');\nimport b from \"../b.mjs\";\nimport './c';\n\
             const d = await import('pkg');\nexport { e } from './e';\n",
        );
        assert_eq!(js, ["./a", "pkg", "../b.mjs", "./e", "./c"]);
    }
}
