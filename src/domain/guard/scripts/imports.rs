//! The project's own modules a Python or Node program loads: `import helper`, `from .lib
//! import x`, `importlib.import_module("tools.clean")`, `require('./lib')`, `import x from
//! '../y.mjs'`, `require('pkg')` from `node_modules`. A module of the same name beside the
//! program comes before the standard library's (`random.py`), so each name is looked up
//! there first. What they hold runs when the program runs, and is read like it, as deep as
//! [`MAX_DEPTH`] and within the call's files. Python's start-up files in the user's site
//! folder (`usercustomize.py`, `sitecustomize.py`, the `import` lines of `.pth` files) run
//! before any Python program and are read for every one.

use super::super::finding::Finding;
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
        file.map(str::to_owned),
    )];
    while let Some((code, dir, depth, of)) = queue.pop() {
        if depth >= MAX_DEPTH {
            continue;
        }
        let mut found = candidates(lang, &code, &dir, cwd, files);
        if lang == Lang::Python
            && let Some(zip) = python_paths(&code, &dir).into_iter().find(|p| {
                let p = p.trim_end_matches('/').to_ascii_lowercase();
                [".zip", ".egg", ".whl", ".pyz"]
                    .iter()
                    .any(|e| p.ends_with(e))
            })
        {
            out.push(Ran::Finding(Finding::ask(
                "guard:code-unknown",
                format!(
                    "runs Python code that puts `{}` on its module path, an archive nagger \
                     does not read",
                    zip.trim_end_matches('/')
                ),
                "Unpack it and load the modules from a folder, or ask the user.",
            )));
        }
        if lang == Lang::Python {
            let dynamic = python_dynamic(&code, &dir, cwd, files);
            found.extend(dynamic.files);
            // A settled file's own ways of loading are the project's.
            if let Some(call) = dynamic.unresolved
                && !of.as_deref().is_some_and(|f| files.settled(cwd, f))
            {
                out.push(Ran::Finding(Finding::ask(
                    "guard:computed-command",
                    format!(
                        "runs Python code that loads code by a name it computes (`{call}`), \
                         which nagger cannot read before it runs"
                    ),
                    "Load the modules by their names, or run the program yourself.",
                )));
            }
        }
        for path in found {
            if seen.contains(&path) {
                continue;
            }
            seen.push(path.clone());
            if path.rsplit('.').next() == Some("pyc") {
                out.push(Ran::Finding(Finding::ask(
                    "guard:code-unknown",
                    format!("loads `{path}`, Python bytecode nagger cannot read"),
                    "Keep the module's source beside it, or ask the user.",
                )));
                continue;
            }
            if let Some(finding) = stale_bytecode(&path, cwd, files) {
                out.push(Ran::Finding(finding));
            }
            if let Content::Text { text, .. } = files.read(cwd, &path) {
                let via = format!("the module `{path}` it loads");
                if files.settled(cwd, &path) {
                    out.push(Ran::OwnCode(text.clone(), runner.to_owned(), via));
                } else {
                    out.push(Ran::Code(text.clone(), runner.to_owned(), via));
                }
                // An installed package's own modules are not followed further.
                if !path.contains("node_modules/") {
                    queue.push((text, folder_prefix(&path), depth + 1, Some(path.clone())));
                }
            }
        }
    }
}

/// Bytecode Python would run in place of the module `source` (`__pycache__/x.*.pyc`) that
/// need not be what the source says: compiled to be run without looking at the source
/// (`--invalidation-mode unchecked-hash`), or stamped with the source's time and size
/// while the source changed after it was written (rewritten, its time set back to the
/// stamp). Asked about: nagger reads the source, Python would run the bytecode.
pub(super) fn stale_bytecode(source: &str, cwd: &Cwd, files: &View) -> Option<Finding> {
    use std::io::Read as _;
    use std::os::unix::fs::MetadataExt as _;
    let stem = source.strip_suffix(".py")?;
    let (dir, name) = match stem.rsplit_once('/') {
        Some((dir, name)) => (format!("{dir}/"), name),
        None => (String::new(), stem),
    };
    // `PYTHONPYCACHEPREFIX=build/pyc`: the bytecode lives under that folder, at the
    // source's own folder's full path.
    let cache = match files.pycache_prefix() {
        Some(prefix) => {
            let folder = files.full(cwd, if dir.is_empty() { "." } else { &dir })?;
            let folder: std::path::PathBuf = folder.components().collect();
            format!(
                "{}/{}",
                prefix.trim_end_matches('/'),
                folder.to_string_lossy().trim_start_matches('/')
            )
        }
        None => format!("{dir}__pycache__"),
    };
    let compiled: Vec<String> = files
        .list(cwd, &cache, 256)
        .into_iter()
        .filter(|f| {
            f.strip_prefix(name).is_some_and(|rest| {
                rest.starts_with('.')
                    && std::path::Path::new(rest)
                        .extension()
                        .is_some_and(|e| e == "pyc")
            })
        })
        .take(4)
        .collect();
    if compiled.is_empty() {
        return None;
    }
    let src = std::fs::metadata(files.full(cwd, source)?).ok()?;
    for pyc in compiled {
        let shown = format!("{cache}/{pyc}");
        let Some(full) = files.full(cwd, &shown) else {
            continue;
        };
        let Ok(file) = crate::base::files::open_regular(&full) else {
            continue;
        };
        let mut bytes = Vec::new();
        if file.take(1 << 20).read_to_end(&mut bytes).is_err() || bytes.len() < 16 {
            continue;
        }
        let word =
            |k: usize| u32::from_le_bytes([bytes[k], bytes[k + 1], bytes[k + 2], bytes[k + 3]]);
        let flags = word(4);
        let unchecked = flags & 0b11 == 0b01;
        // Python runs it in the source's place: compiled not to be checked, or stamped
        // with the source's time and size.
        let used = unchecked
            || flags == 0
                && i64::from(word(8)) == src.mtime() & 0xffff_ffff
                && u64::from(word(12)) == src.size() & 0xffff_ffff;
        if !used {
            continue;
        }
        let text = match files.read_unjudged(cwd, source) {
            Content::Text { text, .. } => text,
            _ => String::new(),
        };
        let why = match super::bytecode::may_be_compiled_from(&bytes, &text) {
            Some(true) => None,
            Some(false) => Some("its code names what the source does not"),
            None if unchecked => Some("compiled to be run without a look at the source"),
            None => None,
        };
        if let Some(why) = why {
            return Some(Finding::ask(
                "guard:code-unknown",
                format!(
                    "loads `{source}`, for which Python runs the bytecode `{shown}` ({why}): \
                     code nagger cannot read, which need not be the source's"
                ),
                "Delete the `__pycache__` folder (or run with `PYTHONDONTWRITEBYTECODE=1 \
                 python -B` after deleting it), or ask the user.",
            ));
        }
    }
    None
}

/// The files the names `code` loads may be, beside it in `dir`, that exist.
fn candidates(lang: Lang, code: &str, dir: &str, cwd: &Cwd, files: &View) -> Vec<String> {
    let exists = |p: &str| files.is_file(cwd, p);
    let mut out = Vec::new();
    match lang {
        Lang::Python => {
            // Folders the code puts on its module path are searched after its own.
            let mut bases = vec![dir.to_owned()];
            bases.extend(python_paths(code, dir));
            // `PYTHONPATH=tools python3 …`: searched after the program's own folder.
            bases.extend(
                files
                    .python_path()
                    .iter()
                    .map(|d| format!("{}/", d.trim_end_matches('/'))),
            );
            for (dots, module) in python_names(code) {
                // `from . import x` and `from .m import x` are relative to the package;
                // a plain name is looked up beside the program first.
                let rel = module.replace('.', "/");
                let searched = if dots > 0 { &bases[..1] } else { &bases[..] };
                for start in searched {
                    let mut base = start.clone();
                    for _ in 1..dots {
                        base.push_str("../");
                    }
                    let sources = [
                        format!("{base}{rel}.py"),
                        format!("{base}{rel}/__init__.py"),
                    ];
                    let mut any = false;
                    for path in sources {
                        if exists(&path) {
                            out.push(path);
                            any = true;
                        }
                    }
                    // Found only as bytecode (`helper.pyc` beside it): loaded all the same.
                    let compiled = format!("{base}{rel}.pyc");
                    if !any && exists(&compiled) {
                        out.push(compiled);
                    }
                }
            }
        }
        Lang::Node => {
            for spec in node_names(code) {
                // `require(".")`, `require("..")`: the folder's package.
                let spec = if matches!(spec.as_str(), "." | "..") {
                    format!("{spec}/")
                } else {
                    spec
                };
                if spec.starts_with("./") || spec.starts_with("../") || spec.starts_with('/') {
                    let base = if spec.starts_with('/') {
                        spec.clone()
                    } else {
                        format!("{dir}{spec}")
                    };
                    out.extend(node_file_or_folder(&base, cwd, files));
                } else if spec.starts_with('#') {
                    // `require('#fmt')`: the `imports` map of the nearest `package.json`.
                    out.extend(package_imports(&spec, dir, cwd, files));
                } else if !spec.starts_with("node:") && !spec.contains(['$', '`']) {
                    // The package itself by its own name (`require('d')` in package `d`).
                    if let Some(own) = own_package(&spec, dir, cwd, files) {
                        out.extend(node_file_or_folder(&own, cwd, files));
                    }
                    // A package (`fmt`, `fmt/sub`, `@scope/fmt`): in the nearest
                    // `node_modules` from the program's folder up, then the folders of
                    // `NODE_PATH`.
                    let ups = ["", "../", "../../", "../../../", "../../../../"];
                    let found = ups
                        .iter()
                        .map(|up| format!("{dir}{up}node_modules/{spec}"))
                        .chain(
                            files
                                .python_path()
                                .iter()
                                .map(|d| format!("{}/{spec}", d.trim_end_matches('/'))),
                        )
                        .map(|base| node_file_or_folder(&base, cwd, files))
                        .find(|found| !found.is_empty());
                    out.extend(found.into_iter().flatten());
                }
            }
        }
    }
    out
}

/// The nearest `package.json` from `dir` up: its folder (as a prefix of names) and what
/// it holds.
fn nearest_package(dir: &str, cwd: &Cwd, files: &View) -> Option<(String, serde_json::Value)> {
    ["", "../", "../../", "../../../", "../../../../"]
        .iter()
        .find_map(|up| {
            let folder = format!("{dir}{up}");
            match files.read(cwd, &format!("{folder}package.json")) {
                Content::Text { text, .. } => serde_json::from_str(&text).ok().map(|v| (folder, v)),
                _ => None,
            }
        })
}

/// The files a `#name` specifier may load through the `imports` of the nearest
/// `package.json` (every condition's, `#lib/*` patterns filled in).
fn package_imports(spec: &str, dir: &str, cwd: &Cwd, files: &View) -> Vec<String> {
    let Some((folder, manifest)) = nearest_package(dir, cwd, files) else {
        return Vec::new();
    };
    let Some(imports) = manifest
        .get("imports")
        .and_then(serde_json::Value::as_object)
    else {
        return Vec::new();
    };
    let mut targets: Vec<String> = Vec::new();
    for (key, value) in imports.iter().take(64) {
        let filled = match key.split_once('*') {
            Some((head, tail)) => spec
                .strip_prefix(head)
                .and_then(|r| r.strip_suffix(tail))
                .map(str::to_owned),
            None => (key == spec).then(String::new),
        };
        let Some(star) = filled else { continue };
        let mut stack = vec![value];
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::String(t) => targets.push(t.replace('*', &star)),
                serde_json::Value::Object(o) => stack.extend(o.values().take(16)),
                serde_json::Value::Array(a) => stack.extend(a.iter().take(16)),
                _ => {}
            }
        }
    }
    targets
        .iter()
        .filter(|t| t.starts_with("./") && !t.contains(".."))
        .take(8)
        .flat_map(|t| node_file_or_folder(&format!("{folder}{}", &t[2..]), cwd, files))
        .collect()
}

/// The folder of the nearest `package.json` when `spec` names that package itself
/// (`d` or `d/sub` in the package named `d`).
fn own_package(spec: &str, dir: &str, cwd: &Cwd, files: &View) -> Option<String> {
    let (folder, manifest) = nearest_package(dir, cwd, files)?;
    let name = manifest.get("name")?.as_str()?;
    let rest = spec.strip_prefix(name)?;
    if !(rest.is_empty() || rest.starts_with('/')) || manifest.get("exports").is_none() {
        return None;
    }
    let folder = folder.trim_end_matches('/');
    let folder = if folder.is_empty() { "." } else { folder };
    Some(format!("{folder}{rest}"))
}

/// The files Node may load for `base`: the file itself or with an extension, else the
/// folder's entries (every one its `package.json` `exports` names for `.`, whichever
/// condition Node picks, its `main`, its `index.js`). Empty when there is none.
fn node_file_or_folder(base: &str, cwd: &Cwd, files: &View) -> Vec<String> {
    let exists = |p: &str| files.is_file(cwd, p);
    for ext in ["", ".js", ".cjs", ".mjs", ".ts", ".json"] {
        let path = format!("{base}{ext}");
        if exists(&path) {
            return vec![path];
        }
    }
    if !files.is_dir(cwd, base) {
        return Vec::new();
    }
    let manifest = match files.read(cwd, &format!("{base}/package.json")) {
        Content::Text { text, .. } => serde_json::from_str::<serde_json::Value>(&text).ok(),
        _ => None,
    };
    let mut entries: Vec<String> = Vec::new();
    if let Some(m) = &manifest {
        // `"exports": "./x.js"`, `{".": "./x.js"}`, `{".": {"require": …, "import": …,
        // "node": …, "default": …}}`, or conditions at the top.
        let dot = m.get("exports").map(|e| e.get(".").unwrap_or(e));
        let mut stack: Vec<&serde_json::Value> = dot.into_iter().collect();
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::String(s) => entries.push(s.clone()),
                serde_json::Value::Object(o) => stack.extend(o.values().take(16)),
                serde_json::Value::Array(a) => stack.extend(a.iter().take(16)),
                _ => {}
            }
            if entries.len() >= 8 {
                break;
            }
        }
        if let Some(main) = m.get("main").and_then(serde_json::Value::as_str) {
            entries.push(main.to_owned());
        }
    }
    entries
        .iter()
        .filter(|e| !e.contains(".."))
        .map(|e| format!("{base}/{}", e.trim_start_matches("./")))
        .flat_map(|e| {
            ["", ".js", "/index.js"]
                .into_iter()
                .map(move |x| format!("{e}{x}"))
        })
        .chain(["index.js", "index.cjs", "index.mjs", "index.ts"].map(|i| format!("{base}/{i}")))
        .filter(|p| exists(p))
        .fold(Vec::new(), |mut all, p| {
            if !all.contains(&p) && all.len() < 8 {
                all.push(p);
            }
            all
        })
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

/// Most folders Python code adds to its module path that are searched.
const MAX_PATHS: usize = 8;
/// Most files one computed load may stand for.
const MAX_LOADED: usize = 32;

/// The folders Python code puts on its module path, as a command in the program's
/// folder names them: `sys.path.insert(0, 'tools')`, `sys.path.append("lib")`,
/// `site.addsitedir('x')` (relative to where it runs) and the same joined to the
/// program's own folder (`os.path.join(os.path.dirname(__file__), 'lib')`).
fn python_paths(code: &str, dir: &str) -> Vec<String> {
    let mut out = Vec::new();
    for call in ["sys.path.insert(", "sys.path.append(", "site.addsitedir("] {
        for (at, _) in code.match_indices(call).take(MAX_PATHS) {
            let args = call_args(&code[at + call.len()..]);
            let Some(folder) = string_literals(args).pop() else {
                continue;
            };
            let base = if args.contains("__file__") { dir } else { "" };
            let path = format!("{base}{}/", folder.trim_end_matches('/'));
            if !out.contains(&path) && out.len() < MAX_PATHS {
                out.push(path);
            }
        }
    }
    out
}

/// What Python code loads by a name it computes (`import_module('plugins.' + x)`,
/// `runpy.run_path(f)` over `glob.glob('plugins/*.py')`, `exec(open(p).read())`): the files
/// it may load, and the call when what it loads cannot be told.
#[derive(Default)]
struct Dynamic {
    files: Vec<String>,
    unresolved: Option<String>,
}

fn python_dynamic(code: &str, dir: &str, cwd: &Cwd, files: &View) -> Dynamic {
    let mut found = Dynamic::default();
    // Patterns the code globs for: a loaded name that is not spelled out may be any file
    // they match.
    let mut patterns: Vec<String> = Vec::new();
    for call in ["glob(", "iglob(", ".glob(", ".rglob("] {
        for (at, _) in code.match_indices(call).take(MAX_PATHS) {
            patterns.extend(string_literals(call_args(&code[at + call.len()..])));
        }
    }
    let listed = |pattern: &str, found: &mut Dynamic| {
        let (folder, name) = pattern.rsplit_once('/').unwrap_or(("", pattern));
        let shown = if folder.is_empty() { "." } else { folder };
        for entry in files.list(cwd, shown, MAX_LOADED) {
            if super::super::paths::wildcard(name, &entry)
                && std::path::Path::new(&entry)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("py"))
            {
                let path = if folder.is_empty() {
                    entry
                } else {
                    format!("{folder}/{entry}")
                };
                if !found.files.contains(&path) {
                    found.files.push(path);
                }
            }
        }
    };
    const LOADERS: &[(&str, bool)] = &[
        // (call, whether it takes a module name rather than a path)
        ("import_module(", true),
        ("__import__(", true),
        ("run_module(", true),
        ("run_path(", false),
        ("spec_from_file_location(", false),
        ("load_source(", false),
        ("exec(open(", false),
        ("exec(compile(open(", false),
    ];
    for &(call, by_module) in LOADERS {
        for (at, _) in code.match_indices(call).take(MAX_NAMES) {
            let args = call_args(&code[at + call.len()..]);
            // `spec_from_file_location(name, path)`: the path is the second argument.
            let arg = if call.starts_with("spec_from") || call.starts_with("load_source") {
                args.split_once(',').map_or("", |(_, rest)| rest)
            } else {
                args.split(',').next().unwrap_or("")
            }
            .trim();
            match literal_prefix(arg) {
                // Spelled out whole: a module name is read with the other imports.
                Some((text, true)) if by_module => {
                    let rel = text.replace('.', "/");
                    for path in [format!("{dir}{rel}.py"), format!("{dir}{rel}/__init__.py")] {
                        if files.is_file(cwd, &path) && !found.files.contains(&path) {
                            found.files.push(path);
                        }
                    }
                }
                Some((text, true)) => found.files.push(text),
                // `'plugins.' + name`: any module of that package.
                Some((text, false)) if !text.is_empty() => {
                    let pattern = if by_module {
                        format!("{dir}{}/*", text.trim_end_matches('.').replace('.', "/"))
                    } else {
                        format!("{text}*")
                    };
                    listed(&pattern, &mut found);
                }
                _ if !patterns.is_empty() => {
                    for pattern in &patterns {
                        listed(pattern, &mut found);
                    }
                }
                _ => {
                    found
                        .unresolved
                        .get_or_insert_with(|| format!("{call}{arg})"));
                }
            }
        }
    }
    django(code, dir, cwd, files, &mut found.files);
    found.files.truncate(MAX_LOADED);
    found
}

/// Django's modules a `manage.py` (or `wsgi.py`, `asgi.py`) loads by the names it keeps
/// in strings: the settings module `DJANGO_SETTINGS_MODULE` names, and the modules of the
/// project's own apps the settings list in `INSTALLED_APPS` (their models, admin,
/// signals, migrations and management commands), which Django imports on every
/// `manage.py` command.
fn django(code: &str, dir: &str, cwd: &Cwd, files: &View, out: &mut Vec<String>) {
    let mut found = Vec::new();
    django_modules(code, dir, cwd, files, &mut found);
    // Past the files read for one load, what changed since git kept it comes first.
    found.sort_by_key(|f| files.settled(cwd, f));
    for file in found {
        if !out.contains(&file) {
            out.push(file);
        }
    }
}

fn django_modules(code: &str, dir: &str, cwd: &Cwd, files: &View, found: &mut Vec<String>) {
    const KEY: &str = "DJANGO_SETTINGS_MODULE";
    let Some(at) = code.find(KEY) else {
        return;
    };
    let line = code[at + KEY.len()..].lines().next().unwrap_or("");
    let Some(module) = string_literals(line.trim_start_matches(['"', '\'']))
        .into_iter()
        .next()
        .filter(|m| {
            !m.is_empty()
                && m.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        })
    else {
        return;
    };
    let push = |path: String, found: &mut Vec<String>| {
        if files.is_file(cwd, &path) && !found.contains(&path) {
            found.push(path);
        }
    };
    let rel = module.replace('.', "/");
    let settings = [format!("{dir}{rel}.py"), format!("{dir}{rel}/__init__.py")];
    let Some(settings) = settings.into_iter().find(|p| files.is_file(cwd, p)) else {
        return;
    };
    push(settings.clone(), found);
    let Content::Text { text, .. } = files.read(cwd, &settings) else {
        return;
    };
    let Some(apps_at) = text.find("INSTALLED_APPS") else {
        return;
    };
    let after = &text[apps_at..];
    let Some(open) = after.find(['[', '(']) else {
        return;
    };
    // The list, across its lines, up to its closing bracket.
    let list = &after[open + 1..];
    let end = list.find([']', ')']).unwrap_or(list.len()).min(16_384);
    for app in string_literals(&list[..end])
        .into_iter()
        .filter(|a| !a.starts_with("django."))
        .take(MAX_NAMES)
    {
        // `blog`, `blog.apps.BlogConfig`: the app's folder is the longest prefix that is
        // a folder of the project.
        let parts: Vec<&str> = app.split('.').collect();
        let Some(folder) = (1..=parts.len())
            .rev()
            .map(|k| format!("{dir}{}", parts[..k].join("/")))
            .find(|f| files.is_dir(cwd, f))
        else {
            continue;
        };
        for module in [
            "__init__.py",
            "apps.py",
            "models.py",
            "admin.py",
            "signals.py",
        ] {
            push(format!("{folder}/{module}"), found);
        }
        for sub in ["models", "migrations", "management/commands"] {
            let sub = format!("{folder}/{sub}");
            for entry in files.list(cwd, &sub, MAX_LOADED) {
                if std::path::Path::new(&entry)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("py"))
                {
                    push(format!("{sub}/{entry}"), found);
                }
            }
        }
    }
}

/// The text of a call's arguments: `rest` is what follows its `(`, up to the `)` that
/// closes it.
fn call_args(rest: &str) -> &str {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (k, c) in rest.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[') => depth += 1,
            (None, ')' | ']') if depth == 0 => return &rest[..k],
            (None, ')' | ']') => depth -= 1,
            (None, '\n') if depth == 0 => return &rest[..k],
            _ => {}
        }
    }
    rest
}

/// The string literals in `text`, in order.
fn string_literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(['"', '\'']) {
        let q = rest[start..].chars().next().unwrap_or('"');
        let after = &rest[start + 1..];
        let Some(end) = after.find(q) else { break };
        out.push(after[..end].to_owned());
        rest = &after[end + 1..];
    }
    out
}

/// The text an expression starts with when it starts with string literals joined by
/// `+`, and whether that is the whole expression (`'a.' + 'b'`: `("a.b", true)`;
/// `'plugins.' + x`: `("plugins.", false)`); `None` when it starts with no literal.
fn literal_prefix(expr: &str) -> Option<(String, bool)> {
    let mut text = String::new();
    let mut rest = expr.trim();
    loop {
        let q = rest.chars().next().filter(|c| matches!(c, '"' | '\''))?;
        let end = rest[1..].find(q)?;
        text.push_str(&rest[1..=end]);
        rest = rest[end + 2..].trim_start();
        if rest.is_empty() {
            return Some((text, true));
        }
        let Some(next) = rest.strip_prefix('+') else {
            return Some((text, false));
        };
        rest = next.trim_start();
        if !rest.starts_with(['"', '\'']) {
            return Some((text, false));
        }
    }
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
    // The user's site, and a virtual environment's: the one the interpreter is in
    // (`.venv/bin/python`), and the project's own (`.venv`, `venv`: a line that activates
    // one runs its `python`).
    let mut libs: Vec<(String, Cwd)> = vec![("~/.local/lib".to_owned(), home.clone())];
    if let Some((bin, _)) = name.rsplit_once('/')
        && let Some(prefix) = bin.strip_suffix("/bin").or((bin == "bin").then_some("."))
    {
        libs.push((format!("{prefix}/lib"), cwd.clone()));
    }
    for venv in [".venv", "venv", "env"] {
        if files.is_file(cwd, &format!("{venv}/pyvenv.cfg")) {
            libs.push((format!("{venv}/lib"), cwd.clone()));
        }
    }
    let mut sites: Vec<(String, Cwd)> = Vec::new();
    for (lib, at) in libs {
        let mut found: Vec<String> = files
            .list(&at, &lib, 64)
            .into_iter()
            .filter(|d| d.starts_with("python") || d.starts_with("pypy"))
            .take(MAX_SITES)
            .map(|d| format!("{lib}/{d}/site-packages"))
            .collect();
        found.sort();
        sites.extend(found.into_iter().map(|site| (site, at.clone())));
    }
    sites.truncate(MAX_SITES);
    for (site, home) in sites {
        let home = &home;
        for file in ["usercustomize.py", "sitecustomize.py"] {
            let path = format!("{site}/{file}");
            if let Content::Text { text, .. } = files.read(home, &path) {
                let via = format!("`{path}`, which Python runs at every start");
                follow(&text, name, Some(&path), home, files, out);
                out.push(Ran::Code(text, name.to_owned(), via));
            }
            // Only as bytecode: run all the same, and not readable.
            let compiled = format!("{path}c");
            if !files.is_file(home, &path) && files.is_file(home, &compiled) {
                out.push(Ran::Finding(Finding::ask(
                    "guard:code-unknown",
                    format!("starts Python, which runs `{compiled}`, bytecode nagger cannot read"),
                    "Remove it, or ask the user.",
                )));
            }
        }
        let mut pth: Vec<String> = files
            .list(home, &site, 4096)
            .into_iter()
            .filter(|f| {
                std::path::Path::new(f)
                    .extension()
                    .is_some_and(|e| e == "pth")
            })
            .collect();
        pth.sort();
        pth.truncate(MAX_PTH);
        // The folders the `.pth` files name, one a line (relative to the site).
        let mut added: Vec<String> = Vec::new();
        for file in &pth {
            if let Content::Text { text, .. } = files.read(home, &format!("{site}/{file}")) {
                for line in text.lines().take(64) {
                    let line = line.trim();
                    if line.is_empty() || line.starts_with('#') || line.starts_with("import") {
                        continue;
                    }
                    let folder = if line.starts_with('/') || line.starts_with('~') {
                        line.to_owned()
                    } else {
                        format!("{site}/{line}")
                    };
                    if added.len() < 8 && !added.contains(&folder) {
                        added.push(folder);
                    }
                }
            }
        }
        for file in pth {
            let path = format!("{site}/{file}");
            if let Content::Text { text, .. } = files.read(home, &path) {
                let code: Vec<&str> = text
                    .lines()
                    .filter(|l| l.starts_with("import ") || l.starts_with("import\t"))
                    .collect();
                if !code.is_empty() {
                    // The folders every `.pth` of the site adds are searched too.
                    let mut code = code.join("\n");
                    for folder in &added {
                        code = format!("import sys; sys.path.append({folder:?})\n{code}");
                    }
                    // The modules they import are found in the site folder first.
                    follow(&code, name, Some(&path), home, files, out);
                    let via = format!("`{path}`, whose `import` lines Python runs at every start");
                    out.push(Ran::Code(code, name.to_owned(), via));
                }
            }
        }
    }
}

/// The start-up files a debugger runs as code of its language: `.pdbrc` in the home and
/// the working folder for `python3 -m pdb` (its lines that are no debugger command, and
/// those after `!`, are Python), `.perldb` for `perl -d` (Perl).
pub(super) fn debugger_startup(
    command: &SimpleCommand,
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) {
    let name = command.name();
    let args = command.args();
    let base = basename(name);
    let (file, python) = if lang_of(name) == Some(Lang::Python)
        && args.windows(2).any(|w| w[0] == "-m" && w[1] == "pdb")
        || matches!(base, "pdb" | "pdb3")
        || base.starts_with("pdb3.")
    {
        (".pdbrc", true)
    } else if base.starts_with("perl")
        && args
            .iter()
            .take_while(|a| a.starts_with('-') && *a != "--")
            .any(|a| a.starts_with("-d") || (!a.starts_with("--") && a[1..].contains('d')))
    {
        (".perldb", false)
    } else {
        return;
    };
    let home = Cwd::Known(String::new());
    for (at, path) in [(&home, format!("~/{file}")), (cwd, file.to_owned())] {
        if let Content::Text { text, .. } = files.read(at, &path) {
            let code = if python { pdb_python(&text) } else { text };
            let via = format!("`{path}`, which the debugger runs at its start");
            let runner = if python { "python3" } else { "perl" };
            if python {
                follow(&code, runner, Some(&path), at, files, out);
            }
            out.push(Ran::Code(code, runner.to_owned(), via));
        }
    }
}

/// pdb's commands that are not Python: the lines of a `.pdbrc` pdb does not run as code.
const PDB_COMMANDS: &[&str] = &[
    "h",
    "help",
    "w",
    "where",
    "bt",
    "d",
    "down",
    "u",
    "up",
    "b",
    "break",
    "tbreak",
    "cl",
    "clear",
    "disable",
    "enable",
    "ignore",
    "condition",
    "commands",
    "s",
    "step",
    "n",
    "next",
    "unt",
    "until",
    "j",
    "jump",
    "l",
    "list",
    "ll",
    "longlist",
    "a",
    "args",
    "p",
    "pp",
    "whatis",
    "source",
    "display",
    "undisplay",
    "interact",
    "alias",
    "unalias",
    "r",
    "return",
    "c",
    "cont",
    "continue",
    "q",
    "quit",
    "exit",
    "debug",
    "retval",
    "rv",
    "run",
    "restart",
    "end",
    "silent",
];

/// The Python a `.pdbrc` runs: lines after `!`, and lines whose first word is no pdb
/// command (pdb runs those as Python statements).
fn pdb_python(text: &str) -> String {
    let mut code = Vec::new();
    for line in text.lines().take(4096) {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix('!') {
            code.push(rest);
            continue;
        }
        let word = line
            .split(|c: char| c.is_whitespace() || c == ';')
            .next()
            .unwrap_or("");
        if line.is_empty() || line.starts_with('#') || PDB_COMMANDS.contains(&word) {
            continue;
        }
        code.push(line);
    }
    code.join("\n")
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
        follow_module(module, command, cwd, files, out);
    }
    if lang == Lang::Python {
        python_environment(command, cwd, files, out);
    }
}

/// The module `module` that `command` (a Python) imports by name, followed from its
/// folder.
fn follow_module(
    module: &str,
    command: &SimpleCommand,
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) {
    follow(
        &format!("import {module}"),
        command.name(),
        None,
        cwd,
        files,
        out,
    );
}

/// What Python is told to load or trust by its options and variables besides the
/// program: the module of a warning category (`-W ignore::w.W`, `PYTHONWARNINGS`) and
/// of a breakpoint hook (`PYTHONBREAKPOINT=tools.hook.run`), both imported as the
/// program runs; bytecode run without a look at its source (`--check-hash-based-pycs
/// never`); modules loaded from a zip (`PYTHONPATH=lib.zip`), which nagger does not read.
fn python_environment(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    let env: Vec<(&str, &str)> = command
        .env
        .iter()
        .chain(command.prefixed.iter().flatten())
        .filter_map(|w| w.split_once('='))
        .collect();
    let var = |name: &str| env.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| *v);
    let mut modules: Vec<String> = Vec::new();
    let mut warnings: Vec<&str> = var("PYTHONWARNINGS").into_iter().collect();
    for (k, a) in args.iter().enumerate() {
        if a == "-W" {
            warnings.extend(args.get(k + 1).map(String::as_str));
        } else if let Some(w) = a.strip_prefix("-W").filter(|w| !w.is_empty()) {
            warnings.push(w);
        }
        if a == "-c" || a == "-m" || !a.starts_with('-') {
            break;
        }
    }
    for spec in warnings.iter().flat_map(|w| w.split(',')).take(8) {
        // `action:message:category:module:lineno`: the category's module is imported.
        if let Some(category) = spec.split(':').nth(2)
            && let Some((module, _)) = category.rsplit_once('.')
        {
            modules.push(module.to_owned());
        }
    }
    // `python3 -m trace --module fmt`, `-m cProfile -m fmt`: a module the tool runs.
    if let Some(m) = args.iter().position(|a| a == "-m")
        && args
            .get(m + 1)
            .is_some_and(|t| matches!(t.as_str(), "trace" | "cProfile" | "profile" | "pdb"))
        && let Some(k) = args[m + 2..]
            .iter()
            .position(|a| a == "--module" || a == "-m")
        && let Some(module) = args.get(m + 2 + k + 1)
    {
        modules.push(module.clone());
    }
    if let Some(hook) = var("PYTHONBREAKPOINT")
        && let Some((module, _)) = hook.rsplit_once('.')
    {
        modules.push(module.to_owned());
    }
    for module in modules.iter().take(8) {
        if module
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            follow_module(module, command, cwd, files, out);
        }
    }
    let never = args.iter().enumerate().any(|(k, a)| {
        a == "--check-hash-based-pycs=never"
            || a == "--check-hash-based-pycs" && args.get(k + 1).is_some_and(|v| v == "never")
    });
    if never {
        out.push(Ran::Finding(Finding::ask(
            "guard:code-unknown",
            "runs Python's bytecode without a look at its sources (`--check-hash-based-pycs \
             never`): code nagger cannot read, which need not be the sources'"
                .into(),
            "Run Python without the option, or ask the user.",
        )));
    }
    let zipped = var("PYTHONPATH")
        .into_iter()
        .flat_map(|p| p.split(':'))
        .find(|p| {
            let p = p.to_ascii_lowercase();
            [".zip", ".egg", ".whl", ".pyz"]
                .iter()
                .any(|e| p.ends_with(e))
                || !p.is_empty() && files.is_file(cwd, &p)
        });
    if let Some(zip) = zipped {
        out.push(Ran::Finding(Finding::ask(
            "guard:code-unknown",
            format!("loads modules from `{zip}`, an archive nagger does not read"),
            "Unpack it and run the modules from a folder, or ask the user.",
        )));
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
