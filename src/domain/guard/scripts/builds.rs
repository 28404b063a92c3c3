//! Code that build, install and test tools run from a project's own files without naming
//! them: `pip install .` runs `setup.py`, `pytest` runs every `conftest.py` on the way to
//! the tests, `nox` runs `noxfile.py`, `invoke` runs `tasks.py`, `cargo build` runs
//! `build.rs`, `gradle` runs `build.gradle`. Python is read as the code it is; the other
//! languages are not read, and what names nagger's own files is refused.

use super::super::finding::operands;
use super::super::paths::normalize;
use super::super::protect::{Cwd, named_bare, named_finding, named_in_code, resolve};
use super::super::shell::SimpleCommand;
use super::files::{Ran, View, read_named};

/// Most folders looked in for `conftest.py` for one command.
const MAX_TEST_FOLDERS: usize = 8;

/// What `command` runs from the project's build and test files, pushed onto `out`.
pub(super) fn runs(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let name = command.name();
    let args = command.args();
    let python_module = args
        .iter()
        .position(|a| a == "-m")
        .and_then(|k| args.get(k + 1).map(|m| (m.as_str(), &args[k + 2..])))
        .filter(|_| name.starts_with("python"));
    match (name, python_module) {
        ("pip" | "pip3", _) => pip(args, cwd, files, out),
        (_, Some(("pip", rest))) => pip(rest, cwd, files, out),
        ("uv", _) if args.first().is_some_and(|a| a == "pip") => pip(&args[1..], cwd, files, out),
        ("pytest" | "py.test", _) => pytest(args, cwd, files, out),
        (_, Some(("pytest", rest))) => pytest(rest, cwd, files, out),
        // `python3 -m build [DIR]`, `uv build`, `pyproject-build`: the project's backend.
        (_, Some(("build", rest))) => {
            let dir = operands(rest).first().copied().unwrap_or(".");
            build_backend(
                dir.trim_end_matches('/'),
                "python -m build",
                cwd,
                files,
                out,
            );
        }
        ("pyproject-build", _) => {
            let dir = operands(args).first().copied().unwrap_or(".");
            build_backend(dir.trim_end_matches('/'), name, cwd, files, out);
        }
        ("uv", _) if args.first().is_some_and(|a| a == "build") => {
            let dir = operands(&args[1..]).first().copied().unwrap_or(".");
            build_backend(dir.trim_end_matches('/'), "uv build", cwd, files, out);
        }
        ("nox", _) => python_file("noxfile.py", "nox", cwd, files, out),
        (_, Some(("nox", _))) => python_file("noxfile.py", "nox", cwd, files, out),
        ("invoke" | "inv", _) => python_file("tasks.py", "invoke", cwd, files, out),
        ("fab", _) => python_file("fabfile.py", "fab", cwd, files, out),
        ("cargo", _) => cargo(args, cwd, files, out),
        ("gradle" | "gradlew" | "./gradlew", _) => {
            for file in [
                "build.gradle",
                "build.gradle.kts",
                "settings.gradle",
                "settings.gradle.kts",
            ] {
                named(file, name, cwd, files, out);
            }
        }
        ("rake", _) => {
            for file in ["Rakefile", "rakefile", "Rakefile.rb"] {
                named(file, "rake", cwd, files, out);
            }
        }
        _ => {}
    }
}

/// `pip install|wheel|download PATH`, `pip install -e PATH`: a local project's
/// `setup.py` runs to build it.
fn pip(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let Some(sub) = args.iter().find(|a| !a.starts_with('-')) else {
        return;
    };
    if !matches!(sub.as_str(), "install" | "wheel" | "download" | "develop") {
        return;
    }
    let mut local: Vec<&str> = Vec::new();
    let mut k = 0;
    while let Some(a) = args.get(k) {
        match a.as_str() {
            "-e" | "--editable" => {
                local.extend(args.get(k + 1).map(String::as_str));
                k += 1;
            }
            a if a.starts_with("--editable=") => local.push(&a["--editable=".len()..]),
            // Options that take a value: not a project.
            "-r" | "--requirement" | "-c" | "--constraint" | "-t" | "--target" | "-i"
            | "--index-url" | "--extra-index-url" | "-f" | "--find-links" | "--prefix"
            | "--root" | "--python" | "-w" | "--wheel-dir" | "-d" | "--dest" => k += 1,
            a if a.starts_with('-') => {}
            a if a == sub => {}
            // A path, not a package name: `.`, `./x`, `../x`, `/x`, `x/`.
            a if a == "." || a.starts_with(['.', '/', '~']) || a.ends_with('/') => local.push(a),
            _ => {}
        }
        k += 1;
    }
    for dir in local.into_iter().take(MAX_TEST_FOLDERS) {
        let dir = dir
            .split(['[', '#'])
            .next()
            .unwrap_or(dir)
            .trim_end_matches('/');
        let dir = if dir.is_empty() { "." } else { dir };
        python_file(&format!("{dir}/setup.py"), "pip", cwd, files, out);
        build_backend(dir, "pip", cwd, files, out);
    }
}

/// An in-tree build backend (`[build-system] build-backend = "bk"`, `backend-path =
/// ["tools"]` in `pyproject.toml`): the module a build of the project at `dir` imports
/// and runs, with the modules it loads.
fn build_backend(dir: &str, tool: &str, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let manifest = format!("{dir}/pyproject.toml");
    let Some((text, _)) = read_named(files.read(cwd, &manifest), &manifest, out) else {
        return;
    };
    let Ok(table) = toml::from_str::<toml::Value>(&text) else {
        return;
    };
    let system = table.get("build-system");
    let Some(backend) = system
        .and_then(|s| s.get("build-backend"))
        .and_then(toml::Value::as_str)
    else {
        return;
    };
    let module = backend
        .split(':')
        .next()
        .unwrap_or(backend)
        .replace('.', "/");
    let paths = system
        .and_then(|s| s.get("backend-path"))
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_str)
        .take(8);
    for path in paths {
        let base = format!("{dir}/{}", path.trim_end_matches('/'));
        for file in [
            format!("{base}/{module}.py"),
            format!("{base}/{module}/__init__.py"),
        ] {
            if let Some((code, via)) = read_named(files.read(cwd, &file), &file, out) {
                super::imports::follow(&code, "python3", Some(&file), cwd, files, out);
                out.push(Ran::Code(
                    code,
                    "python3".into(),
                    format!("{via}, the build backend `{tool}` runs"),
                ));
            }
        }
    }
}

/// `pytest [PATH…]`: the `conftest.py` of the folder it starts in, of each folder it is
/// handed and of the usual test folders.
fn pytest(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    // `--basetemp DIR`: pytest empties the folder before the run.
    for dir in super::super::shell::option_values(args, &[], &["--basetemp"]) {
        out.push(Ran::Script(
            format!("rm -rf -- {}", super::super::shell::shell_quote(dir)),
            "`pytest --basetemp`, which empties that folder first".to_owned(),
            None,
        ));
    }
    let mut folders: Vec<String> = vec![".".into(), "tests".into(), "test".into()];
    for op in operands(args) {
        let path = op.split("::").next().unwrap_or(op);
        let folder = if std::path::Path::new(path)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("py"))
        {
            path.rsplit_once('/').map_or(".", |(d, _)| d)
        } else {
            path
        };
        // Each folder from the start down to the one handed.
        let mut at = String::new();
        for part in folder.trim_end_matches('/').split('/') {
            at = if at.is_empty() {
                part.to_owned()
            } else {
                format!("{at}/{part}")
            };
            folders.push(normalize(&at));
        }
    }
    let mut seen = Vec::new();
    for folder in folders {
        if seen.len() >= MAX_TEST_FOLDERS {
            break;
        }
        if seen.contains(&folder) {
            continue;
        }
        seen.push(folder.clone());
        let file = if folder == "." || folder.is_empty() {
            "conftest.py".to_owned()
        } else {
            format!("{folder}/conftest.py")
        };
        python_file(&file, "pytest", cwd, files, out);
    }
}

/// `cargo build|test|run|check|clippy|bench|doc|install …`: the package's `build.rs`.
fn cargo(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let Some(sub) = args
        .iter()
        .find(|a| !a.starts_with('-') && !a.starts_with('+'))
    else {
        return;
    };
    if !matches!(
        sub.as_str(),
        "build"
            | "b"
            | "test"
            | "t"
            | "run"
            | "r"
            | "check"
            | "c"
            | "clippy"
            | "bench"
            | "doc"
            | "d"
            | "install"
            | "rustc"
            | "miri"
            | "nextest"
            | "llvm-cov"
            | "tarpaulin"
    ) {
        return;
    }
    let path = args
        .iter()
        .position(|a| a == "--path")
        .and_then(|k| args.get(k + 1))
        .map(String::as_str)
        .or_else(|| args.iter().find_map(|a| a.strip_prefix("--path=")));
    if sub == "install" && path.is_none() {
        return;
    }
    let manifest_dir = args
        .iter()
        .position(|a| a == "--manifest-path")
        .and_then(|k| args.get(k + 1))
        .map(String::as_str)
        .or_else(|| args.iter().find_map(|a| a.strip_prefix("--manifest-path=")))
        .map(|m| m.rsplit_once('/').map_or(".", |(d, _)| d));
    let dir = path.or(manifest_dir).unwrap_or(".");
    named(&format!("{dir}/build.rs"), "cargo", cwd, files, out);
}

/// A Python file a tool runs: its code, judged as the code it is. Nothing when missing.
fn python_file(file: &str, tool: &str, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let Some(full) = resolve(cwd, file) else {
        return;
    };
    let shown = normalize(&full);
    if let Some((text, via)) = read_named(files.read(cwd, file), &shown, out) {
        out.push(Ran::Code(
            text,
            "python3".into(),
            format!("{via}, which `{tool}` runs"),
        ));
    }
}

/// A file in a language the guard does not read, which `tool` runs: refused when it names
/// nagger's own files.
fn named(file: &str, tool: &str, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    if let Some((text, _)) = read_named(files.read_unjudged(cwd, file), file, out)
        && (named_in_code(&text, None) || named_bare(&text, None))
    {
        out.push(Ran::Finding(named_finding(&format!("{tool} (`{file}`)"))));
    }
}
