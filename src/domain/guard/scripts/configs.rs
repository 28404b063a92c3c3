//! Code a tool loads from the project by its own conventions, which no command line
//! names: a test runner's, bundler's or linter's config (`vitest.config.ts`,
//! `jest.config.js`, `eslint.config.mjs`), the setup files and modules such a config
//! names, `latexmkrc` (Perl), Sphinx's `conf.py`, Alembic's `env.py` and migrations, a
//! notebook's cells run by `jupyter nbconvert --execute` or `papermill`, MkDocs' hooks,
//! Hatch's build hook, `//go:generate` lines. Each is read as the code it is.

use super::super::finding::operands;
use super::super::paths::normalize;
use super::super::protect::Cwd;
use super::super::shell::{self, SimpleCommand};
use super::files::{Content, Ran, View, read_named};

/// The JavaScript tools and the config files each loads from the folder it runs in.
const JS_CONFIGS: &[(&[&str], &[&str])] = &[
    (&["jest"], &["jest.config"]),
    (
        &["vitest"],
        &[
            "vitest.config",
            "vite.config",
            "vitest.workspace",
            "vitest.setup",
        ],
    ),
    (&["vite"], &["vite.config"]),
    (
        &["webpack", "webpack-cli", "webpack-dev-server"],
        &["webpack.config"],
    ),
    (&["eslint"], &["eslint.config", ".eslintrc"]),
    (&["prettier"], &["prettier.config", ".prettierrc"]),
    (&["playwright"], &["playwright.config"]),
    (&["next"], &["next.config"]),
    (&["rollup"], &["rollup.config"]),
    (&["mocha"], &[".mocharc"]),
    (&["gulp"], &["gulpfile"]),
    (&["grunt"], &["Gruntfile", "gruntfile"]),
    (&["cypress"], &["cypress.config"]),
    (&["tsup"], &["tsup.config"]),
    (&["astro"], &["astro.config"]),
    (&["nuxt", "nuxi"], &["nuxt.config"]),
    (&["karma"], &["karma.conf"]),
    (&["svelte-kit"], &["svelte.config"]),
    (&["stylelint"], &["stylelint.config", ".stylelintrc"]),
    (&["commitlint"], &["commitlint.config"]),
    (&["remix"], &["remix.config"]),
    (
        &["storybook", "start-storybook", "build-storybook"],
        &[".storybook/main"],
    ),
];

/// Endings of JavaScript and TypeScript code files.
const JS_ENDINGS: &[&str] = &[".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"];

/// Most files one command's configs lead to.
const MAX_FILES: usize = 16;

/// Pushes onto `out` the code `command` loads from the project by convention.
pub(super) fn runs(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let (tool, args) = tool_of(command);
    super::outdirs::runs(command, tool, args, cwd, files, out);
    if let Some((_, names)) = JS_CONFIGS.iter().find(|(tools, _)| tools.contains(&tool)) {
        let mut found: Vec<String> = shell::option_values(args, &["-c"], &["--config"])
            .into_iter()
            .filter(|v| JS_ENDINGS.iter().any(|e| v.ends_with(e)))
            .map(str::to_owned)
            .collect();
        for name in *names {
            for ending in JS_ENDINGS {
                let file = format!("{name}{ending}");
                if files.is_file(cwd, &file) {
                    found.push(file);
                }
            }
        }
        js_files(found, tool, cwd, files, out);
        return;
    }
    match tool {
        "latexmk" => {
            let mut rc: Vec<String> = shell::option_values(args, &["-r"], &[])
                .into_iter()
                .map(str::to_owned)
                .collect();
            rc.extend(["latexmkrc".to_owned(), ".latexmkrc".to_owned()]);
            for file in rc.into_iter().take(4) {
                code_file(&file, "perl", tool, cwd, files, out);
            }
        }
        "sphinx-build" | "sphinx-autobuild" => {
            let conf = shell::option_values(args, &["-c"], &[])
                .first()
                .map(|d| (*d).to_owned())
                .or_else(|| sphinx_source(args))
                .unwrap_or_else(|| ".".to_owned());
            code_file(&format!("{conf}/conf.py"), "python3", tool, cwd, files, out);
        }
        "alembic" => alembic(args, cwd, files, out),
        "papermill" => {
            if let Some(notebook) = operands(args).first() {
                notebook_cells(notebook, tool, cwd, files, out);
            }
        }
        "jupyter" | "jupyter-nbconvert" | "jupyter-execute" => {
            let executes = tool == "jupyter-execute"
                || args.first().is_some_and(|a| a == "execute")
                || args.iter().any(|a| a == "--execute");
            if executes {
                for notebook in operands(args)
                    .into_iter()
                    .filter(|a| has_ending(a, "ipynb"))
                    .take(8)
                {
                    notebook_cells(notebook, tool, cwd, files, out);
                }
            }
        }
        "mkdocs" => mkdocs_hooks(cwd, files, out),
        "mim" => mim(args, cwd, files, out),
        "hatch" | "hatchling" => {
            code_file("hatch_build.py", "python3", tool, cwd, files, out);
        }
        "go" if args.first().is_some_and(|a| a == "generate") => {
            go_generate(&args[1..], cwd, files, out);
        }
        _ => {}
    }
}

/// The tool a command runs, and its arguments: `npx vitest run` is `vitest run`, `pnpm
/// exec eslint .` is `eslint .`.
fn tool_of(command: &SimpleCommand) -> (&str, &[String]) {
    let name = command.name();
    let args = command.args();
    // `python3 -m mkdocs build` is `mkdocs build`.
    if (name.starts_with("python") || name.starts_with("pypy"))
        && args.first().is_some_and(|a| a == "-m")
        && let Some(module) = args.get(1)
    {
        return (module.as_str(), &args[2..]);
    }
    let runner = matches!(name, "npx" | "bunx" | "pnpx")
        || matches!(name, "pnpm" | "yarn" | "npm" | "bun")
            && args
                .first()
                .is_some_and(|a| matches!(a.as_str(), "exec" | "dlx" | "x"));
    if !runner {
        return (name, args);
    }
    let skip = usize::from(!matches!(name, "npx" | "bunx" | "pnpx"));
    let rest = &args[skip.min(args.len())..];
    match rest.iter().position(|a| !a.starts_with('-')) {
        Some(k) => {
            let tool = rest[k].rsplit('/').next().unwrap_or(&rest[k]);
            let tool = tool
                .split('@')
                .next()
                .filter(|t| !t.is_empty())
                .unwrap_or(tool);
            (tool, &rest[k + 1..])
        }
        None => (name, args),
    }
}

/// Config files of a JavaScript tool, the modules they import and the code files they
/// name (`setupFiles: ['./test/setup.ts']`, `globalSetup: './global-setup.ts'`).
fn js_files(mut queue: Vec<String>, tool: &str, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let mut seen: Vec<String> = Vec::new();
    while let Some(file) = queue.pop() {
        let file = normalize(file.trim_start_matches("./"));
        if seen.contains(&file) || seen.len() >= MAX_FILES {
            continue;
        }
        seen.push(file.clone());
        let Some((text, via)) = read_named(files.read(cwd, &file), &file, out) else {
            continue;
        };
        let folder = file.rsplit_once('/').map_or("", |(d, _)| d);
        for named in super::super::code::strings(&text) {
            let named = named.trim();
            if named.contains('\n') || !JS_ENDINGS.iter().any(|e| named.ends_with(e)) {
                continue;
            }
            let path = if named.starts_with('/') || folder.is_empty() {
                named.trim_start_matches("./").to_owned()
            } else {
                format!("{folder}/{}", named.trim_start_matches("./"))
            };
            if files.is_file(cwd, &path) {
                queue.push(path);
            }
        }
        super::imports::follow(&text, "node", Some(&file), cwd, files, out);
        out.push(Ran::Code(
            text,
            "node".into(),
            format!("{via}, which `{tool}` loads"),
        ));
    }
}

/// Whether `name` ends with `.ending`, in any case.
fn has_ending(name: &str, ending: &str) -> bool {
    std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(ending))
}

/// `file`, read as `runner`'s code that `tool` runs.
fn code_file(file: &str, runner: &str, tool: &str, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let Some((text, via)) = read_named(files.read(cwd, file), file, out) else {
        return;
    };
    super::imports::follow(&text, runner, Some(file), cwd, files, out);
    out.push(Ran::Code(
        text,
        runner.into(),
        format!("{via}, which `{tool}` runs"),
    ));
}

/// `sphinx-build [OPTIONS] SOURCE OUTPUT`: the source folder (options with a value
/// left out).
fn sphinx_source(args: &[String]) -> Option<String> {
    super::super::finding::operands_with(
        args,
        &["-b", "-d", "-c", "-D", "-A", "-t", "-j", "-w"],
        &[],
    )
    .first()
    .map(|s| (*s).to_owned())
}

/// `alembic upgrade|downgrade|…`: `env.py` and the migrations of the script folder
/// `alembic.ini` (or `-c FILE`) names.
fn alembic(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let ini = shell::option_values(args, &["-c"], &["--config"])
        .first()
        .map_or_else(|| "alembic.ini".to_owned(), |v| (*v).to_owned());
    let folder = match files.read(cwd, &ini) {
        Content::Text { text, .. } => text
            .lines()
            .find_map(|l| {
                let (key, value) = l.split_once('=')?;
                (key.trim() == "script_location").then(|| value.trim().replace("%(here)s/", ""))
            })
            .unwrap_or_else(|| "alembic".to_owned()),
        _ => "alembic".to_owned(),
    };
    code_file(
        &format!("{folder}/env.py"),
        "python3",
        "alembic",
        cwd,
        files,
        out,
    );
    let versions = format!("{folder}/versions");
    for entry in files.list(cwd, &versions, MAX_FILES) {
        if has_ending(&entry, "py") {
            code_file(
                &format!("{versions}/{entry}"),
                "python3",
                "alembic",
                cwd,
                files,
                out,
            );
        }
    }
}

/// A notebook's code cells, read as the Python (with IPython's `!` lines) they are.
fn notebook_cells(notebook: &str, tool: &str, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let Some((text, via)) = read_named(files.read(cwd, notebook), notebook, out) else {
        return;
    };
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
        out.push(Ran::Finding(super::super::finding::Finding::ask(
            "guard:code-unknown",
            format!("runs the notebook `{notebook}` through `{tool}`, which does not read as one"),
            "Ask the user.",
        )));
        return;
    };
    let mut code = String::new();
    for cell in json["cells"].as_array().into_iter().flatten().take(512) {
        if cell["cell_type"].as_str() != Some("code") {
            continue;
        }
        match &cell["source"] {
            serde_json::Value::String(s) => code.push_str(s),
            serde_json::Value::Array(lines) => {
                for line in lines.iter().filter_map(serde_json::Value::as_str) {
                    code.push_str(line);
                }
            }
            _ => {}
        }
        code.push('\n');
    }
    out.push(Ran::Code(
        code,
        "python3".into(),
        format!("{via}, whose cells `{tool}` runs"),
    ));
}

/// busybox's `mim [-f FILE] [TARGET…]`: the shell lines of the targets in its spec file
/// (`Mimfile`), each target's lines one script, run as they are written (no variables of
/// its own). Without a target, every target's lines are read.
fn mim(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let file = shell::option_values(args, &["-f"], &[])
        .last()
        .map_or_else(|| "Mimfile".to_owned(), |f| (*f).to_owned());
    let Some((text, via)) = read_named(files.read(cwd, &file), &file, out) else {
        return;
    };
    let wanted: Vec<&str> = super::super::finding::operands_with(args, &["-f", "-o", "-O"], &[]);
    let mut target: Option<String> = None;
    let mut script = String::new();
    let push = |target: &Option<String>, script: &mut String, out: &mut Vec<Ran>| {
        if let Some(t) = target
            && (wanted.is_empty() || wanted.contains(&t.as_str()))
            && !script.trim().is_empty()
        {
            out.push(Ran::Script(
                std::mem::take(script),
                format!("the target `{t}` of {via}, which `mim` runs"),
                None,
            ));
        }
        script.clear();
    };
    for line in text.lines().take(4000) {
        if let Some(body) = line
            .strip_prefix('\t')
            .or_else(|| line.strip_prefix("    "))
        {
            script.push_str(body);
            script.push('\n');
        } else if let Some((name, _)) = line.split_once(':')
            && !line.starts_with([' ', '#'])
            && !name.trim().is_empty()
        {
            push(&target, &mut script, out);
            target = Some(name.trim().to_owned());
        }
    }
    push(&target, &mut script, out);
}

/// MkDocs' `hooks:` in `mkdocs.yml`: Python files it loads.
fn mkdocs_hooks(cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let Content::Text { text, .. } = files.read(cwd, "mkdocs.yml") else {
        return;
    };
    let mut in_hooks = false;
    for line in text.lines().take(2000) {
        if line.starts_with("hooks:") {
            in_hooks = true;
            continue;
        }
        if in_hooks {
            let Some(item) = line.trim_start().strip_prefix("- ") else {
                if !line.starts_with([' ', '\t']) && !line.trim().is_empty() {
                    in_hooks = false;
                }
                continue;
            };
            let file = item.trim().trim_matches(['"', '\'']);
            code_file(file, "python3", "mkdocs", cwd, files, out);
        }
    }
}

/// `go generate [PACKAGES]`: the `//go:generate` lines of the packages' `.go` files, run
/// as commands in their folders.
fn go_generate(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let mut folders: Vec<(String, bool)> = operands(args)
        .into_iter()
        .filter(|a| a.starts_with('.') || has_ending(a, "go"))
        .map(|a| match a.strip_suffix("/...") {
            Some(root) => (root.to_owned(), true),
            None => (a.to_owned(), false),
        })
        .collect();
    if folders.is_empty() {
        folders.push((".".to_owned(), false));
    }
    let mut read = 0;
    while let Some((folder, deep)) = folders.pop() {
        if read >= MAX_FILES * 4 {
            out.push(Ran::Finding(super::super::finding::Finding::ask(
                "guard:code-unknown",
                "runs `go generate` over more files than nagger reads".to_owned(),
                "Run it on one package, or ask the user.",
            )));
            return;
        }
        let entries = if has_ending(&folder, "go") {
            vec![String::new()]
        } else {
            files.list(cwd, &folder, 256)
        };
        for entry in entries {
            let path = if entry.is_empty() {
                folder.clone()
            } else {
                normalize(&format!("{folder}/{entry}"))
            };
            if has_ending(&path, "go") {
                read += 1;
                let Some((text, via)) = read_named(files.read(cwd, &path), &path, out) else {
                    continue;
                };
                let dir = path.rsplit_once('/').map_or(".", |(d, _)| d);
                for line in text
                    .lines()
                    .filter_map(|l| l.strip_prefix("//go:generate "))
                {
                    out.push(Ran::Script(
                        line.trim().to_owned(),
                        format!("a `//go:generate` line of {via}"),
                        super::super::protect::resolve(cwd, dir).map(|d| Cwd::Known(normalize(&d))),
                    ));
                }
            } else if deep
                && !entry.starts_with(['.', '_'])
                && entry != "testdata"
                && entry != "vendor"
                && files.exists(cwd, &path)
                && !files.is_file(cwd, &path)
            {
                folders.push((path, true));
            }
        }
    }
}
