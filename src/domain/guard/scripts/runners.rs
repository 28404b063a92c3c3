//! Task runners that run commands written in a project's files: `just RECIPE` (a
//! `justfile`), `task NAME` (a `Taskfile.yml`), `composer run-script NAME` and composer's own
//! commands (the scripts of `composer.json` and of its events), `deno task NAME` (`deno.json`),
//! and Python run from a folder or a module of the project (`python3
//! pkg/`, `python3 -m pkg`). Each runs what the named entry holds, with the entries it
//! depends on, read from disk through the bounded reader of [`super::files`].

use serde_json::Value;

use super::super::finding::{Finding, operands};
use super::super::protect::{Cwd, resolve};
use super::super::shell::{self, SimpleCommand, basename};
use super::files::{Ran, View, read_named};

/// Most entries followed through their dependencies for one command.
const MAX_ENTRIES: usize = 32;

/// What `command` runs through a task runner's file, pushed onto `out`. `false` when
/// `command` is no task runner this module reads.
pub(super) fn runs(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) -> bool {
    match command.name() {
        "just" => just(command, cwd, files, out),
        "task" | "go-task" => taskfile(command, cwd, files, out),
        "composer" => composer(command, cwd, files, out),
        "deno" if command.args().first().is_some_and(|a| a == "task") => {
            deno_task(command, cwd, files, out);
        }
        "pre-commit" | "prek" => pre_commit(command, cwd, files, out),
        name if name.starts_with("python") => return python(command, cwd, files, out),
        "pytest" | "py.test" => discovered_tests(command.args(), true, cwd, files, out),
        "ssh" | "scp" | "sftp" => ssh_config(command, cwd, files, out),
        _ => return false,
    }
    true
}

/// `deno task NAME [ARGS]`: the task of that name in `deno.json` (or `deno.jsonc`), a
/// command line run by deno's shell, with the tasks it depends on.
fn deno_task(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = &command.args()[1..];
    let mut config: Option<&str> = None;
    let mut k = 0;
    let mut name: Option<&str> = None;
    while let Some(a) = args.get(k) {
        match a.as_str() {
            "-c" | "--config" | "--cwd" => {
                if a != "--cwd" {
                    config = args.get(k + 1).map(String::as_str);
                }
                k += 1;
            }
            a if a.starts_with("--config=") => config = Some(&a["--config=".len()..]),
            a if a.starts_with('-') => {}
            a => {
                name = Some(a);
                break;
            }
        }
        k += 1;
    }
    let Some(name) = name else {
        return;
    };
    let candidates: Vec<&str> = config.map_or_else(|| vec!["deno.json", "deno.jsonc"], |c| vec![c]);
    let Some((text, via)) = candidates
        .iter()
        .find_map(|f| read_named(files.read(cwd, f), f, out))
    else {
        return;
    };
    // `deno.jsonc`: comments on lines of their own left out.
    let text: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let Ok(json) = serde_json::from_str::<Value>(&text) else {
        out.push(Ran::Finding(Finding::ask(
            "guard:code-unknown",
            format!("runs the task `{name}` of {via}, which nagger cannot read"),
            "Run the task's command yourself, or ask the user.",
        )));
        return;
    };
    let rest: Vec<String> = args[k + 1..]
        .iter()
        .map(|a| shell::shell_quote(a))
        .collect();
    let mut wanted = vec![name.to_owned()];
    let mut seen: Vec<String> = Vec::new();
    while let Some(task) = wanted.pop() {
        if seen.contains(&task) || seen.len() >= MAX_ENTRIES {
            continue;
        }
        seen.push(task.clone());
        let entry = &json["tasks"][task.as_str()];
        let line = match entry {
            Value::String(s) => Some(s.as_str()),
            Value::Object(o) => {
                for dep in o
                    .get("dependencies")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    wanted.push(dep.to_owned());
                }
                o.get("command").and_then(Value::as_str)
            }
            _ => None,
        };
        if let Some(line) = line {
            let line = if task == name && !rest.is_empty() {
                format!("{line} {}", rest.join(" "))
            } else {
                line.to_owned()
            };
            out.push(Ran::Script(
                line,
                format!("the task `{task}` of {via}, run by `deno task`"),
                None,
            ));
        }
    }
}

/// `just [-f FILE] [-d DIR] [RECIPE [ARGS]…]`: the named recipe (else the first) and the
/// recipes it depends on.
fn just(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    let mut file: Option<&str> = None;
    let mut wanted: Vec<&str> = Vec::new();
    let mut k = 0;
    while let Some(a) = args.get(k) {
        match a.as_str() {
            "-f" | "--justfile" => {
                file = args.get(k + 1).map(String::as_str);
                k += 1;
            }
            "-d"
            | "--working-directory"
            | "--set"
            | "--shell"
            | "--shell-arg"
            | "--dotenv-path"
            | "--dotenv-filename"
            | "--color"
            | "--command-color"
            | "--chooser" => k += 1,
            "-l" | "--list" | "--summary" | "--dump" | "--evaluate" | "--variables" | "--show"
            | "-s" | "--help" | "--version" | "--init" | "--fmt" | "-n" | "--dry-run" => return,
            a if a.starts_with('-') => {}
            a => wanted.push(a),
        }
        k += 1;
    }
    let names = ["justfile", "Justfile", ".justfile"];
    let (text, via) = match file {
        Some(f) => match read_named(files.read(cwd, f), f, out) {
            Some(read) => read,
            None => return,
        },
        None => match names
            .iter()
            .find_map(|n| read_named(files.read(cwd, n), n, out))
        {
            Some(read) => read,
            None => return,
        },
    };
    let recipes = just_recipes(&text);
    let Some(first) = recipes.first().map(|r| r.name.clone()) else {
        return;
    };
    // `just build release`: words after a recipe that takes parameters are its arguments.
    let mut queue: Vec<String> = Vec::new();
    let mut k = 0;
    while let Some(word) = wanted.get(k) {
        if let Some(recipe) = recipes.iter().find(|r| r.name == *word) {
            queue.push(recipe.name.clone());
            k += 1 + recipe.params;
        } else {
            k += 1;
        }
    }
    if queue.is_empty() {
        let default = recipes
            .iter()
            .find(|r| r.name == "default")
            .map_or(first, |r| r.name.clone());
        queue.push(default);
    }
    let mut seen: Vec<String> = Vec::new();
    while let Some(name) = queue.pop() {
        if seen.contains(&name) || seen.len() >= MAX_ENTRIES {
            continue;
        }
        seen.push(name.clone());
        let Some(recipe) = recipes.iter().find(|r| r.name == name) else {
            continue;
        };
        queue.extend(recipe.deps.iter().cloned());
        let via = format!("recipe `{name}` of {via}");
        match recipe.body.strip_prefix("#!") {
            Some(shebang) => {
                let (line, rest) = shebang.split_once('\n').unwrap_or((shebang, ""));
                let interpreter = interpreter_of(line);
                if shell::is_shell(&interpreter) {
                    out.push(Ran::Script(rest.to_owned(), via, None));
                } else {
                    out.push(Ran::Code(rest.to_owned(), interpreter, via));
                }
            }
            None => out.push(Ran::Script(recipe.body.clone(), via, None)),
        }
    }
}

/// One recipe of a justfile.
struct Recipe {
    name: String,
    /// How many parameters it takes (the words after its name on the command line).
    params: usize,
    deps: Vec<String>,
    /// Its lines, indentation and the `@`/`-` line prefixes taken off.
    body: String,
}

fn just_recipes(text: &str) -> Vec<Recipe> {
    let mut recipes: Vec<Recipe> = Vec::new();
    let mut current: Option<Recipe> = None;
    for line in text.lines() {
        let indented = line.starts_with([' ', '\t']);
        if indented {
            if let Some(recipe) = current.as_mut() {
                let body = line.trim_start().trim_start_matches(['@', '-']);
                recipe.body.push_str(body);
                recipe.body.push('\n');
            }
            continue;
        }
        if let Some(done) = current.take() {
            recipes.push(done);
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('[') {
            continue;
        }
        // `name param *rest: dep1 (dep2 arg)`, not `x := value` nor `set …`/`alias …`.
        let Some((head, deps)) = trimmed.split_once(':') else {
            continue;
        };
        if deps.starts_with('=') || head.starts_with("set ") || head.starts_with("export ") {
            continue;
        }
        let head = head.trim_start_matches('@');
        let mut words = head.split_whitespace();
        let Some(name) = words.next() else {
            continue;
        };
        if name == "alias" || name == "import" || name == "mod" {
            continue;
        }
        let params = words.filter(|w| !w.starts_with(['*', '+'])).count();
        let deps = deps
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == '&')
            .filter(|d| !d.is_empty() && !d.starts_with(['"', '\'', '#']))
            .map(str::to_owned)
            .collect();
        current = Some(Recipe {
            name: name.to_owned(),
            params,
            deps,
            body: String::new(),
        });
    }
    recipes.extend(current);
    recipes
}

/// The interpreter a `#!` line names: `/usr/bin/env python3` → `python3`.
fn interpreter_of(line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        [env, rest @ ..] if basename(env) == "env" => rest
            .iter()
            .find(|w| !w.starts_with('-'))
            .map_or("sh", |w| basename(w))
            .to_owned(),
        [program, ..] => basename(program).to_owned(),
        [] => "sh".to_owned(),
    }
}

/// `task [NAME…]`: the named tasks of `Taskfile.yml` (else `default`), their `deps` and
/// the tasks their `cmds` call.
fn taskfile(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    if args.iter().any(|a| {
        matches!(
            a.as_str(),
            "-l" | "--list"
                | "-a"
                | "--list-all"
                | "--summary"
                | "-n"
                | "--dry"
                | "--help"
                | "--version"
                | "--init"
        )
    }) {
        return;
    }
    let mut file: Option<&str> = None;
    let mut wanted: Vec<String> = Vec::new();
    let mut k = 0;
    while let Some(a) = args.get(k) {
        match a.as_str() {
            "-t" | "--taskfile" => {
                file = args.get(k + 1).map(String::as_str);
                k += 1;
            }
            "-d" | "--dir" | "-o" | "--output" => k += 1,
            "--" => break,
            a if a.starts_with('-') || a.contains('=') => {}
            a => wanted.push(a.to_owned()),
        }
        k += 1;
    }
    let names = [
        "Taskfile.yml",
        "taskfile.yml",
        "Taskfile.yaml",
        "taskfile.yaml",
        "Taskfile.dist.yml",
        "taskfile.dist.yml",
    ];
    let read = match file {
        Some(f) => read_named(files.read(cwd, f), f, out),
        None => names
            .iter()
            .find_map(|n| read_named(files.read(cwd, n), n, out)),
    };
    let Some((text, via)) = read else {
        return;
    };
    let Ok(docs) = yaml_rust2::YamlLoader::load_from_str(&text) else {
        return;
    };
    let Some(tasks) = docs.first().map(|d| &d["tasks"]) else {
        return;
    };
    if wanted.is_empty() {
        wanted.push("default".to_owned());
    }
    let mut seen: Vec<String> = Vec::new();
    while let Some(name) = wanted.pop() {
        if seen.contains(&name) || seen.len() >= MAX_ENTRIES {
            continue;
        }
        seen.push(name.clone());
        let task = &tasks[name.as_str()];
        let mut lines: Vec<String> = Vec::new();
        let mut step = |item: &yaml_rust2::Yaml, wanted: &mut Vec<String>| {
            if let Some(cmd) = item.as_str() {
                lines.push(cmd.to_owned());
            } else if let Some(cmd) = item["cmd"].as_str() {
                lines.push(cmd.to_owned());
            } else if let Some(other) = item["task"].as_str() {
                wanted.push(other.to_owned());
            }
        };
        // `name: cmd`, `name: [cmds]`, or `name: {cmds: […], deps: […]}`.
        if task.as_str().is_some() {
            step(task, &mut wanted);
        } else if let Some(list) = task.as_vec() {
            for item in list {
                step(item, &mut wanted);
            }
        } else {
            for item in task["cmds"].as_vec().into_iter().flatten() {
                step(item, &mut wanted);
            }
            for dep in task["deps"].as_vec().into_iter().flatten() {
                if let Some(d) = dep.as_str().or_else(|| dep["task"].as_str()) {
                    wanted.push(d.to_owned());
                }
            }
        }
        if !lines.is_empty() {
            out.push(Ran::Script(
                lines.join("\n"),
                format!("task `{name}` of {via}"),
                None,
            ));
        }
    }
}

/// Composer's own commands, which run no script of `composer.json`.
const COMPOSER_OWN: &[&str] = &[
    "about",
    "archive",
    "audit",
    "browse",
    "bump",
    "check-platform-reqs",
    "clear-cache",
    "config",
    "create-project",
    "depends",
    "diagnose",
    "dump-autoload",
    "exec",
    "fund",
    "global",
    "help",
    "init",
    "install",
    "licenses",
    "list",
    "outdated",
    "prohibits",
    "reinstall",
    "remove",
    "require",
    "search",
    "self-update",
    "show",
    "status",
    "suggests",
    "update",
    "validate",
    "why",
    "why-not",
    "i",
    "u",
];

/// `composer run-script NAME`, `composer run NAME`, `composer NAME`: the script of that name
/// in `composer.json`, with the scripts it calls (`@other`).
fn composer(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let ops = operands(command.args());
    // Composer's own commands run the scripts of their events.
    let autoload = ["pre-autoload-dump", "post-autoload-dump"];
    let update = ["pre-update-cmd", "post-update-cmd"];
    let events: Vec<&str> = match ops.first().copied() {
        Some("install" | "i") | None => {
            [&["pre-install-cmd", "post-install-cmd"][..], &autoload].concat()
        }
        Some("update" | "u" | "upgrade" | "require" | "r" | "remove" | "rm") => {
            [&update[..], &autoload].concat()
        }
        Some("dump-autoload" | "dumpautoload") => autoload.to_vec(),
        Some("create-project") => vec!["post-root-package-install", "post-create-project-cmd"],
        Some("archive") => vec!["pre-archive-cmd", "post-archive-cmd"],
        _ => Vec::new(),
    };
    let name = match ops.as_slice() {
        ["run-script" | "run", name, ..] => *name,
        [name, ..] if !COMPOSER_OWN.contains(name) => *name,
        _ if !events.is_empty() => "",
        _ => return,
    };
    let dir = command
        .args()
        .iter()
        .position(|a| a == "-d" || a == "--working-dir")
        .and_then(|k| command.args().get(k + 1))
        .map(String::as_str);
    let file = dir.map_or_else(
        || "composer.json".to_owned(),
        |d| format!("{d}/composer.json"),
    );
    let Some((text, via)) = read_named(files.read(cwd, &file), &file, out) else {
        return;
    };
    let Ok(json) = serde_json::from_str::<Value>(&text) else {
        return;
    };
    let scripts = &json["scripts"];
    let mut wanted: Vec<String> = if name.is_empty() {
        events.iter().map(|e| (*e).to_owned()).collect()
    } else {
        vec![name.to_owned()]
    };
    let mut seen: Vec<String> = Vec::new();
    while let Some(name) = wanted.pop() {
        if seen.contains(&name) || seen.len() >= MAX_ENTRIES {
            continue;
        }
        seen.push(name.clone());
        let entries: Vec<&str> = match &scripts[name.as_str()] {
            Value::String(s) => vec![s.as_str()],
            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
            _ => continue,
        };
        let mut lines = Vec::new();
        for entry in entries {
            match entry.strip_prefix('@') {
                Some(rest) if rest.starts_with("php ") || rest.starts_with("composer ") => {
                    lines.push(rest.to_owned());
                }
                Some(rest) if rest.starts_with("putenv ") => {}
                Some(other) => {
                    wanted.push(other.split_whitespace().next().unwrap_or("").to_owned());
                }
                // `Vendor\\Class::method`: PHP the guard does not see.
                None if entry.contains("::") && !entry.contains(' ') => {}
                None => lines.push(entry.to_owned()),
            }
        }
        if !lines.is_empty() {
            let resolved = dir.and_then(|d| resolve(cwd, d)).map(Cwd::Known);
            out.push(Ran::Script(
                lines.join("\n"),
                format!("script `{name}` of {via}"),
                resolved,
            ));
        }
    }
}

/// `python3 pkg/` (a folder's `__main__.py`), `python3 -m pkg` (a module of the folder it
/// runs in: `pkg.py` or `pkg/__main__.py`).
fn python(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) -> bool {
    let args = command.args();
    let at = args.iter().position(|a| a == "-m");
    let module = at.and_then(|k| args.get(k + 1));
    let after = at.map_or(&[][..], |k| args.get(k + 2..).unwrap_or(&[]));
    let runner = command.name().to_owned();
    match module.map(String::as_str) {
        // The standard library's runners of a script or module: `-m cProfile x.py`,
        // `-m pdb -m pkg`, `-m runpy MODULE`, `-m doctest x.txt` (whose examples run).
        Some(runner_module @ ("runpy" | "doctest" | "cProfile" | "profile" | "trace" | "pdb")) => {
            let doctest = runner_module == "doctest";
            let mut k = 0;
            let mut taken = 0;
            while let Some(a) = after.get(k) {
                k += 1;
                if taken >= 8 {
                    break;
                }
                // Options with a value: `-o FILE`, `-s SORT`, `-c CMD` (pdb's commands run
                // as the debugger's; the program is what matters here).
                if matches!(a.as_str(), "-o" | "-s" | "-c" | "--outfile" | "--sort") {
                    k += 1;
                    continue;
                }
                let module = if a == "-m" || a == "--module" {
                    let Some(m) = after.get(k) else { break };
                    k += 1;
                    Some(m.as_str())
                } else if a.starts_with('-') {
                    continue;
                } else if runner_module == "runpy"
                    || (doctest && !is_python(a) && !a.contains('/') && !files.is_file(cwd, a))
                {
                    Some(a.as_str())
                } else {
                    None
                };
                taken += 1;
                let candidates = match module {
                    Some(m) => {
                        let path = m.replace('.', "/");
                        vec![format!("{path}.py"), format!("{path}/__main__.py")]
                    }
                    None => vec![a.clone()],
                };
                for file in candidates {
                    if let Some((text, via)) = read_named(files.read(cwd, &file), &file, out) {
                        if doctest {
                            // A doctest file's examples, and a module's docstrings', run.
                            push_examples(&text, &via, cwd, files, out);
                        }
                        // The runners run the file they are given as Python, whatever
                        // its name (`-m cProfile notes.txt`); doctest reads other files
                        // for their examples only.
                        if module.is_some() || is_python(&file) || !doctest {
                            python_code(text, Some(&file), &runner, via, cwd, files, out);
                        }
                        break;
                    }
                }
                // The rest are the program's own arguments.
                if !doctest {
                    break;
                }
            }
            return true;
        }
        // `-m code < file`: the interactive interpreter runs the lines it reads.
        Some("code") => {
            for file in command.reads_from.iter().take(4) {
                if let Some((text, via)) = read_named(files.read(cwd, file), file, out) {
                    python_code(text, Some(file), &runner, via, cwd, files, out);
                }
            }
            return true;
        }
        // `-m timeit -s 'import x' 'stmt'`: its words are Python code.
        Some("timeit") => {
            let code: Vec<&str> = after
                .iter()
                .filter(|a| !a.starts_with('-'))
                .map(String::as_str)
                .collect();
            let via = "`-m timeit` code".to_owned();
            python_code(code.join("\n"), None, &runner, via, cwd, files, out);
            return true;
        }
        // Test runners find their files by name: `test*.py`, `*_test.py`, `conftest.py`.
        Some(tests @ ("unittest" | "pytest")) => {
            discovered_tests(after, tests == "pytest", cwd, files, out);
            return true;
        }
        _ => {}
    }
    // Bytecode or a zip application (`python3 x.pyc`, `python3 app.pyz`), or a module
    // found only as bytecode: code nagger cannot read.
    let bytecode = |name: &str| {
        std::path::Path::new(name).extension().is_some_and(|e| {
            ["pyc", "pyo", "pyz", "zip"]
                .iter()
                .any(|b| e.eq_ignore_ascii_case(b))
        })
    };
    let script = args
        .iter()
        .take_while(|a| !matches!(a.as_str(), "-c" | "-m"))
        .find(|a| !a.starts_with('-'));
    let module_bytecode = module.filter(|m| !m.contains('/')).and_then(|m| {
        let path = m.replace('.', "/");
        let source = [format!("{path}.py"), format!("{path}/__main__.py")];
        (!source.iter().any(|f| files.is_file(cwd, f)))
            .then(|| format!("{path}.pyc"))
            .filter(|f| files.is_file(cwd, f))
    });
    if let Some(file) = script
        .filter(|f| bytecode(f) && files.is_file(cwd, f))
        .cloned()
        .or(module_bytecode)
    {
        out.push(Ran::Finding(super::super::finding::Finding::ask(
            "guard:code-unknown",
            format!("runs `{file}`, Python bytecode or a zipped program nagger cannot read"),
            "Run its source, or ask the user.",
        )));
        return true;
    }
    let candidates: Vec<String> = match module {
        Some(m) if !m.contains('/') => {
            let path = m.replace('.', "/");
            vec![format!("{path}.py"), format!("{path}/__main__.py")]
        }
        Some(_) => return false,
        None => {
            let Some(target) = args
                .iter()
                .find(|a| !a.starts_with('-'))
                // A folder by any spelling: `pkg`, `pkg/`, `.`, `pkg/.`, `src/..`.
                .filter(|a| {
                    !a.contains('.')
                        || a.ends_with('/')
                        || files.exists(cwd, a) && !files.is_file(cwd, a)
                })
            else {
                return false;
            };
            let folder = super::super::paths::normalize(target);
            let folder = if folder.is_empty() {
                ".".to_owned()
            } else {
                folder
            };
            let main = format!("{}/__main__.py", folder.trim_end_matches('/'));
            // `python3 app` of a folder holding only `__main__.pyc`: bytecode.
            if !files.is_file(cwd, &main) && files.is_file(cwd, &format!("{main}c")) {
                out.push(Ran::Finding(super::super::finding::Finding::ask(
                    "guard:code-unknown",
                    format!("runs `{main}c`, Python bytecode nagger cannot read"),
                    "Run its source, or ask the user.",
                )));
                return true;
            }
            vec![main]
        }
    };
    let runner = command.name().to_owned();
    for file in candidates {
        if let Some((text, via)) = read_named(files.read(cwd, &file), &file, out) {
            out.push(Ran::Code(text, runner, via));
            return true;
        }
    }
    false
}

/// The module an option of node's loads (`-r F`, `--import=F`, `--loader F`,
/// `--test-reporter=./r.mjs`), given the option and the word after it.
pub(super) fn node_module_option<'a>(word: &'a str, next: Option<&'a str>) -> Option<&'a str> {
    const TAKES: &[&str] = &[
        "-r",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "--test-reporter",
    ];
    if TAKES.contains(&word) {
        return next;
    }
    let (name, value) = word.split_once('=')?;
    TAKES
        .iter()
        .any(|t| t.starts_with("--") && *t == name)
        .then_some(value)
}

/// What node loads before its program or instead of one: the files of `-r`/`--require`,
/// `--import` and `--loader` (each form), and under `--test` the test files it finds
/// (`*.test.js`, `*_test.mjs`, `test-*.js`, the files of `test` folders) or is given.
pub(super) fn node_loads(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    let mut loaded: Vec<String> = Vec::new();
    for (k, a) in args.iter().enumerate() {
        if a == "--" || !a.starts_with('-') && k > 0 && !args[k - 1].starts_with('-') {
            break;
        }
        let file = node_module_option(a, args.get(k + 1).map(String::as_str));
        // `--import 'data:text/javascript,CODE'`: the code itself.
        if let Some(code) = file
            .and_then(|f| f.strip_prefix("data:"))
            .and_then(|d| d.split_once(','))
            .map(|(_, code)| crate::base::text::percent_decoded(code))
        {
            out.push(Ran::Code(
                code,
                "node".into(),
                "a data: module node loads".into(),
            ));
            continue;
        }
        if let Some(file) = file.filter(|f| f.starts_with('.') || f.starts_with('/')) {
            loaded.push(file.to_owned());
        }
        // `--env-file=F`: the `NODE_OPTIONS` it sets loads modules too.
        let env_file = match a.as_str() {
            "--env-file" | "--env-file-if-exists" => args.get(k + 1).map(String::as_str),
            a => a
                .strip_prefix("--env-file=")
                .or_else(|| a.strip_prefix("--env-file-if-exists=")),
        };
        if let Some(env_file) = env_file
            && let Some((text, _)) = read_named(files.read(cwd, env_file), env_file, out)
        {
            for line in text.lines().take(256) {
                let line = line.trim().trim_start_matches("export ");
                let Some(value) = line.strip_prefix("NODE_OPTIONS=") else {
                    continue;
                };
                let words: Vec<&str> = value.trim_matches(['"', '\'']).split_whitespace().collect();
                for (i, w) in words.iter().enumerate() {
                    let f = node_module_option(w, words.get(i + 1).copied());
                    if let Some(f) = f.filter(|f| f.starts_with('.') || f.starts_with('/')) {
                        loaded.push(f.to_owned());
                    }
                }
            }
        }
    }
    if args.iter().any(|a| a == "--test") {
        let given: Vec<&String> = args
            .iter()
            .filter(|a| !a.starts_with('-') && !loaded.contains(a))
            .collect();
        let test_file = |n: &str| {
            let code = [".js", ".mjs", ".cjs", ".ts", ".mts"]
                .iter()
                .any(|e| n.ends_with(e));
            code && (n.contains(".test.")
                || n.contains("-test.")
                || n.contains("_test.")
                || n.starts_with("test-")
                || n.starts_with("test."))
        };
        if given.is_empty() {
            for folder in [".", "test", "tests"] {
                for name in files.list(cwd, folder, 256) {
                    if folder != "." || test_file(&name) {
                        loaded.push(format!("{folder}/{name}"));
                    }
                }
            }
        } else {
            for g in given {
                // A folder: every test file under it, and every module in a `test` folder.
                if files.is_dir(cwd, g) {
                    let top = g.trim_end_matches('/').to_owned();
                    let in_test = top.rsplit('/').next() == Some("test");
                    let mut folders = vec![(top, 0, in_test)];
                    while let Some((folder, depth, in_test)) = folders.pop() {
                        for name in files.list(cwd, &folder, 256) {
                            let path = format!("{folder}/{name}");
                            if files.is_dir(cwd, &path) {
                                if depth < 4 && name != "node_modules" && !name.starts_with('.') {
                                    folders.push((path, depth + 1, in_test || name == "test"));
                                }
                            } else if test_file(&name)
                                || in_test
                                    && [".js", ".mjs", ".cjs"].iter().any(|e| name.ends_with(e))
                            {
                                loaded.push(path);
                            }
                            if loaded.len() >= MAX_TEST_FILES {
                                break;
                            }
                        }
                    }
                } else if g.contains(['*', '?']) {
                    // `node --test 'packages/*/test/*.test.js'`: node (or the shell)
                    // expands the pattern.
                    loaded.extend(expand_pattern(g, cwd, files));
                } else {
                    loaded.push(g.clone());
                }
            }
        }
    }
    for file in loaded.iter().take(MAX_TEST_FILES) {
        // `-r ./x`: node tries the name as given, then with its extensions.
        let found = ["", ".js", ".cjs", ".mjs", "/index.js"]
            .iter()
            .map(|ext| format!("{file}{ext}"))
            .find(|f| files.is_file(cwd, f));
        let Some(file) = found else {
            continue;
        };
        if let Some((text, via)) = read_named(files.read(cwd, &file), &file, out) {
            // With the modules it loads (`require('#fmt')`, `require('./lib')`).
            super::imports::follow(&text, "node", Some(&file), cwd, files, out);
            out.push(Ran::Code(text, "node".into(), via));
        }
    }
}

/// The modules perl loads before its program: `-MMod`, `-mMod`, `-d:Mod` (`Devel::Mod`),
/// looked up in the folders `-I` names.
pub(super) fn perl_loads(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    let mut dirs: Vec<String> = Vec::new();
    let mut modules: Vec<String> = Vec::new();
    let mut code: Vec<String> = Vec::new();
    // `PERL5LIB=. perl …`: folders searched before the system's.
    for word in command.env.iter().chain(command.prefixed.iter().flatten()) {
        if let Some(list) = word
            .strip_prefix("PERL5LIB=")
            .or_else(|| word.strip_prefix("PERLLIB="))
        {
            dirs.extend(list.split(':').filter(|d| !d.is_empty()).map(str::to_owned));
        }
    }
    let mut k = 0;
    let mut script = None;
    while let Some(a) = args.get(k) {
        if a == "--" {
            script = args.get(k + 1);
            break;
        }
        if !a.starts_with('-') {
            script = Some(a);
            break;
        }
        if a == "-I" {
            dirs.extend(args.get(k + 1).cloned());
            k += 1;
        } else if let Some(d) = a.strip_prefix("-I") {
            dirs.push(d.to_owned());
        } else if let Some(m) = a.strip_prefix("-M").or_else(|| a.strip_prefix("-m")) {
            let m = m.trim_start_matches('-');
            let (name, list) = m.split_once('=').unwrap_or((m, ""));
            // `-Mlib=.`: a folder searched first.
            if name == "lib" {
                dirs.extend(list.split(',').filter(|d| !d.is_empty()).map(str::to_owned));
            } else {
                modules.push(name.split(' ').next().unwrap_or(name).to_owned());
            }
        } else if let Some(m) = a.strip_prefix("-d:") {
            modules.push(format!("Devel::{}", m.split('=').next().unwrap_or(m)));
        } else if matches!(a.as_str(), "-e" | "-E") {
            code.extend(args.get(k + 1).cloned());
            k += 1;
        }
        k += 1;
    }
    if let Some(file) = script
        && let super::files::Content::Text { text, .. } = files.read(cwd, file)
    {
        code.push(text);
    }
    // What the code loads by name: `use X;`, `require X;`, and the folders `use lib` adds.
    let mut seen: Vec<String> = Vec::new();
    let mut queue: Vec<(String, usize)> = code.into_iter().map(|c| (c, 0)).collect();
    let mut read = 0;
    while let Some((text, depth)) = queue.pop() {
        let (named, libs) = perl_uses(&text);
        dirs.extend(libs);
        let wanted: Vec<String> = if depth == 0 {
            modules.drain(..).chain(named).collect()
        } else {
            named
        };
        for module in wanted {
            if seen.contains(&module) || read >= 16 {
                continue;
            }
            seen.push(module.clone());
            let rel = format!("{}.pm", module.replace("::", "/"));
            for dir in &dirs {
                let file = perl_module_file(dir, &rel, cwd, files);
                if let Some((text, via)) = read_named(files.read(cwd, &file), &file, out) {
                    read += 1;
                    if depth < 3 {
                        queue.push((text.clone(), depth + 1));
                    }
                    out.push(Ran::Code(text, "perl".into(), via));
                    break;
                }
            }
        }
    }
    // Modules named only by options, with no code to read.
    for module in modules.into_iter().take(8) {
        let rel = format!("{}.pm", module.replace("::", "/"));
        for dir in &dirs {
            let file = perl_module_file(dir, &rel, cwd, files);
            if let Some((text, via)) = read_named(files.read(cwd, &file), &file, out) {
                out.push(Ran::Code(text, "perl".into(), via));
                break;
            }
        }
    }
}

/// The file Perl loads for the module file `rel` (`X/Y.pm`) in the folder `dir`: its
/// compiled form `X/Y.pmc` when there is one (Perl takes it first), else `rel`.
fn perl_module_file(dir: &str, rel: &str, cwd: &Cwd, files: &View) -> String {
    let file = format!("{}/{rel}", dir.trim_end_matches('/'));
    let compiled = format!("{file}c");
    if files.exists(cwd, &compiled) {
        compiled
    } else {
        file
    }
}

/// The modules Perl code loads by name (`use X::Y;`, `require X;`, not pragmas) and the
/// folders its `use lib` lines add.
fn perl_uses(code: &str) -> (Vec<String>, Vec<String>) {
    const PRAGMAS: &[&str] = &[
        "strict",
        "warnings",
        "utf8",
        "feature",
        "vars",
        "constant",
        "parent",
        "base",
        "integer",
        "bytes",
        "open",
        "overload",
        "sort",
        "subs",
        "version",
        "diagnostics",
        "autodie",
    ];
    let mut modules = Vec::new();
    let mut dirs = Vec::new();
    for statement in code.split([';', '\n', '{', '}']).take(4096) {
        let words: Vec<&str> = statement.split_whitespace().collect();
        let (Some(&verb), Some(&name)) = (words.first(), words.get(1)) else {
            continue;
        };
        if !matches!(verb, "use" | "require" | "no") {
            continue;
        }
        if name == "lib" {
            for w in &words[2..] {
                let d = w.trim_matches(|c: char| "'\"(),qw".contains(c));
                if !d.is_empty() {
                    dirs.push(d.to_owned());
                }
            }
            continue;
        }
        let name = name.trim_end_matches(['(', ')']);
        let bare = name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
            && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        if bare && !PRAGMAS.contains(&name) && modules.len() < 64 {
            modules.push(name.to_owned());
        }
    }
    (modules, dirs)
}

/// Whether `name` is a Python source file's.
fn is_python(name: &str) -> bool {
    std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("py"))
}

/// The commands an ssh configuration makes ssh run: `ProxyCommand`, `LocalCommand`,
/// `KnownHostsCommand` and `Match exec "…"`, from the file `-F` names (else
/// `~/.ssh/config`). Even `ssh -G` (which only prints) runs `Match exec`.
fn ssh_config(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    let given = shell::option_values(args, &["-F"], &[]);
    let file = given
        .last()
        .map_or_else(|| "~/.ssh/config".to_owned(), |f| (*f).to_owned());
    let Some((text, via)) = read_named(files.read(cwd, &file), &file, out) else {
        return;
    };
    for line in text.lines().take(4096) {
        let line = line.trim();
        let (key, rest) = line
            .split_once(|c: char| c.is_whitespace() || c == '=')
            .unwrap_or((line, ""));
        let rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '=');
        let key = key.to_ascii_lowercase();
        let script = match key.as_str() {
            "proxycommand" | "localcommand" | "knownhostscommand" => Some(rest.to_owned()),
            "match" => {
                let lower = rest.to_ascii_lowercase();
                lower.find("exec").map(|at| {
                    let after = rest[at + 4..].trim_start();
                    match after.strip_prefix('"') {
                        Some(q) => q.split('"').next().unwrap_or(q).to_owned(),
                        None => after.split_whitespace().next().unwrap_or("").to_owned(),
                    }
                })
            }
            _ => None,
        };
        if let Some(script) = script.filter(|s| !s.is_empty() && s != "none") {
            out.push(Ran::Script(script, format!("{via}, which ssh runs"), None));
        }
    }
}

/// Most test files a test runner's discovery is read in.
const MAX_TEST_FILES: usize = 32;

/// The files a Python test runner finds and imports (`python3 -m unittest`, `pytest`):
/// `test*.py`, `*_test.py` and `conftest.py` in the folders it is given (else where it
/// runs) and in their `test`/`tests` folders, and the files it is given by name.
fn discovered_tests(args: &[String], pytest: bool, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let mut folders: Vec<String> = Vec::new();
    let mut named: Vec<String> = Vec::new();
    // pytest runs the examples of `test*.txt` (or `--doctest-glob`'s files) and, with
    // `--doctest-modules`, of every module's docstrings.
    let globs: Vec<&str> = shell::option_values(args, &[], &["--doctest-glob"]);
    let doctest_glob = |n: &str| {
        pytest
            && if globs.is_empty() {
                n.starts_with("test")
                    && std::path::Path::new(n)
                        .extension()
                        .is_some_and(|e| e == "txt")
            } else {
                globs.iter().any(|g| simple_glob(g, n))
            }
    };
    let doctest_modules = pytest && args.iter().any(|a| a == "--doctest-modules");
    let mut examples: Vec<String> = Vec::new();
    let mut skip_value = false;
    for a in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        if a == "--doctest-glob" {
            skip_value = true;
            continue;
        }
        if a.starts_with('-') || a == "discover" {
            continue;
        }
        let path = a.split("::").next().unwrap_or(a);
        if is_python(path) {
            named.push(path.to_owned());
        } else if files.is_dir(cwd, path) {
            folders.push(path.trim_end_matches('/').to_owned());
        } else if !path.contains('/') {
            // `python3 -m unittest test_x.Case`: a module by its dotted name.
            let module = path.split('.').next().unwrap_or(path);
            named.push(format!("{module}.py"));
        }
    }
    if folders.is_empty() && named.is_empty() {
        folders.push(".".to_owned());
    }
    let test_file = |n: &str| {
        is_python(n) && (n.starts_with("test") || n.ends_with("_test.py") || n == "conftest.py")
    };
    for folder in folders.clone() {
        for sub in ["test", "tests"] {
            let path = format!("{folder}/{sub}");
            if files.is_dir(cwd, &path) {
                folders.push(path);
            }
        }
    }
    for folder in &folders {
        for name in files.list(cwd, folder, 256) {
            if test_file(&name) {
                named.push(format!("{folder}/{name}"));
            } else if doctest_glob(&name) || doctest_modules && is_python(&name) {
                examples.push(format!("{folder}/{name}"));
            }
        }
    }
    for file in named.iter().take(MAX_TEST_FILES) {
        // Imported as modules: their bytecode may run in their place.
        if let Some(finding) = super::imports::stale_bytecode(file, cwd, files) {
            out.push(Ran::Finding(finding));
        }
        if let Some((text, via)) = read_named(files.read(cwd, file), file, out) {
            if doctest_modules {
                push_examples(&text, &via, cwd, files, out);
            }
            python_code(text, Some(file), "python3", via, cwd, files, out);
        }
    }
    for file in examples.iter().take(MAX_TEST_FILES) {
        if let Some((text, via)) = read_named(files.read(cwd, file), file, out) {
            push_examples(&text, &via, cwd, files, out);
            // `--doctest-modules` imports each module.
            if is_python(file) {
                python_code(text, Some(file), "python3", via, cwd, files, out);
            }
        }
    }
}

/// The doctest examples of `text` (read through `via`), judged as Python code.
fn push_examples(text: &str, via: &str, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let code = doctest_examples(text);
    if !code.is_empty() {
        let via = format!("the examples of {via}");
        python_code(code, None, "python3", via, cwd, files, out);
    }
}

/// The files a pattern of `*` and `?` wildcards matches on disk, folder by folder
/// (`**` any folders below, four deep), at most [`MAX_TEST_FILES`].
fn expand_pattern(pattern: &str, cwd: &Cwd, files: &View) -> Vec<String> {
    let mut found: Vec<String> = vec![String::new()];
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    for (k, part) in parts.iter().enumerate() {
        let last = k + 1 == parts.len();
        let mut next: Vec<String> = Vec::new();
        for base in &found {
            let folder = if base.is_empty() { "." } else { base.as_str() };
            let join = |name: &str| {
                if base.is_empty() {
                    name.to_owned()
                } else {
                    format!("{base}/{name}")
                }
            };
            if *part == "**" {
                // This folder and every one below it, four deep.
                let mut level = vec![base.clone()];
                for _ in 0..4 {
                    let mut deeper = Vec::new();
                    for f in &level {
                        let at = if f.is_empty() { "." } else { f.as_str() };
                        for name in files.list(cwd, at, 256) {
                            let path = if f.is_empty() {
                                name.clone()
                            } else {
                                format!("{f}/{name}")
                            };
                            if !name.starts_with('.')
                                && name != "node_modules"
                                && files.is_dir(cwd, &path)
                            {
                                deeper.push(path);
                            }
                        }
                    }
                    next.extend(level);
                    level = deeper;
                }
                next.extend(level);
            } else if part.contains(['*', '?']) {
                for name in files.list(cwd, folder, 256) {
                    if !name.starts_with('.') && wildcard(part, &name) {
                        let path = join(&name);
                        if last || files.is_dir(cwd, &path) {
                            next.push(path);
                        }
                    }
                }
            } else {
                next.push(join(part));
            }
            if next.len() > MAX_TEST_FILES * 4 {
                break;
            }
        }
        found = next;
    }
    found.retain(|f| !f.is_empty() && files.is_file(cwd, f));
    found.truncate(MAX_TEST_FILES);
    found
}

/// A name against a pattern of `*` and `?` wildcards.
fn wildcard(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut i, mut j, mut star, mut back) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            back = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            back += 1;
            j = back;
        } else {
            return false;
        }
    }
    while i < p.len() && p[i] == '*' {
        i += 1;
    }
    i == p.len()
}

/// A file name against a pattern of `*` wildcards (`test*.txt`, `*.rst`).
fn simple_glob(pattern: &str, name: &str) -> bool {
    let pattern = pattern.rsplit('/').next().unwrap_or(pattern);
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            let Some(tail) = name.strip_prefix(head) else {
                return false;
            };
            if rest.is_empty() {
                return true;
            }
            (0..=tail.len())
                .filter(|&i| tail.is_char_boundary(i))
                .any(|i| simple_glob(rest, &tail[i..]))
        }
    }
}

/// Python code that runs: judged, with the project's modules it imports.
fn python_code(
    text: String,
    file: Option<&str>,
    runner: &str,
    via: String,
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) {
    super::imports::follow(&text, runner, file, cwd, files, out);
    if file.is_some_and(|f| files.settled(cwd, f)) {
        out.push(Ran::OwnCode(text, runner.to_owned(), via));
    } else {
        out.push(Ran::Code(text, runner.to_owned(), via));
    }
}

/// The code of the examples in a doctest text or docstrings: the lines after `>>> ` and
/// their `... ` continuations.
fn doctest_examples(text: &str) -> String {
    let mut code = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix(">>>") {
            code.push(rest.strip_prefix(' ').unwrap_or(rest).to_owned());
        } else if let Some(rest) = t.strip_prefix("...")
            && !code.is_empty()
        {
            code.push(format!(" {}", rest.strip_prefix(' ').unwrap_or(rest)));
        }
    }
    code.join("\n")
}

/// `pre-commit run [HOOK]` (and `prek`): the local hooks of `.pre-commit-config.yaml`
/// (or `-c FILE`), whose `entry` with its `args` is a command line run on the project's
/// files. Hooks from other repositories are code pinned elsewhere, not read here.
fn pre_commit(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    let sub = operands(args).first().copied();
    // `install`: every commit runs them from then on, where the guard no longer reads them.
    if !matches!(
        sub,
        None | Some("run" | "try-repo" | "hook-impl" | "install" | "install-hooks")
    ) {
        return;
    }
    let mut config: Option<&str> = None;
    let mut wanted: Option<&str> = None;
    let mut k = 0;
    while let Some(a) = args.get(k) {
        match a.as_str() {
            "-c" | "--config" => {
                config = args.get(k + 1).map(String::as_str);
                k += 1;
            }
            "--hook-stage"
            | "--from-ref"
            | "--to-ref"
            | "--files"
            | "-s"
            | "-o"
            | "--source"
            | "--origin"
            | "--commit-msg-filename"
            | "--remote-name"
            | "--remote-url"
            | "--hook-type" => k += 1,
            a if a.starts_with('-') || matches!(a, "run" | "install" | "install-hooks") => {}
            a => {
                wanted.get_or_insert(a);
            }
        }
        k += 1;
    }
    let name = config.unwrap_or(".pre-commit-config.yaml");
    let Some((text, via)) = read_named(files.read(cwd, name), name, out) else {
        return;
    };
    let Ok(docs) = yaml_rust2::YamlLoader::load_from_str(&text) else {
        return;
    };
    let Some(repos) = docs.first().and_then(|d| d["repos"].as_vec()) else {
        return;
    };
    let mut entries = 0;
    for repo in repos {
        if repo["repo"].as_str() != Some("local") {
            continue;
        }
        for hook in repo["hooks"].as_vec().into_iter().flatten() {
            let id = hook["id"].as_str().unwrap_or("");
            if wanted.is_some_and(|w| w != id) {
                continue;
            }
            // `pygrep` takes a regex and `fail` a message, not a command.
            if matches!(hook["language"].as_str(), Some("pygrep" | "fail")) {
                continue;
            }
            let Some(entry) = hook["entry"].as_str() else {
                continue;
            };
            let mut line = entry.to_owned();
            for arg in hook["args"].as_vec().into_iter().flatten() {
                if let Some(arg) = arg.as_str() {
                    line.push(' ');
                    line.push_str(&shell::shell_quote(arg));
                }
            }
            out.push(Ran::Script(line, format!("{via}, hook `{id}`"), None));
            entries += 1;
            if entries >= MAX_ENTRIES {
                return;
            }
        }
    }
}
