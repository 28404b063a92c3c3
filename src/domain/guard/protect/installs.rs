//! Installs and builds that put programs into a folder they are told: `npm i -g --prefix
//! P`, `pip install --prefix P` or `--target T`, `PYTHONUSERBASE=P pip install --user`,
//! `PIPX_BIN_DIR=D pipx install`, `UV_TOOL_BIN_DIR=D uv tool install`, `cargo install
//! --root R`, `GOBIN=D go install`, `go build -o D/`, `rustc --out-dir D`. Whatever a
//! package calls its programs lands there, a `nagger` of its own included: told the
//! folder of the nagger program, such a command may put another program in its place.

use super::super::shell::{SimpleCommand, basename, option_values};

/// The folders `command` writes programs into because it is told to, as written.
pub(super) fn program_folders(command: &SimpleCommand) -> Vec<String> {
    let env = |name: &str| {
        command
            .env_value(name)
            .map(|v| v.trim_matches(['"', '\'']).to_owned())
            .filter(|v| !v.is_empty())
    };
    let bin = |prefix: &str| format!("{}/bin", prefix.trim_end_matches('/'));
    let mut args: &[String] = command.args();
    let mut name = command.name();
    let program = command.argv.first().map_or("", String::as_str);
    // `python3 -m pip install …`
    if name.starts_with("python") && args.len() >= 2 && args[0] == "-m" {
        name = basename(&args[1]);
        args = &args[2..];
    }
    // The subcommand: the first word that is neither an option nor the value of one
    // (`npm --prefix P install -g x`).
    let sub = {
        let mut k = 0;
        loop {
            match args.get(k).map(String::as_str) {
                None => break "",
                Some("--prefix" | "--root" | "-C" | "--cwd" | "--dir") => k += 2,
                Some(a) if a.starts_with('-') => k += 1,
                Some(a) => break a,
            }
        }
    };
    let mut out = Vec::new();
    // `VENV/bin/python -m pip install`, `VENV/bin/pip install`: the environment's own
    // folder of programs takes what the packages bring.
    if (name.starts_with("pip") && name != "pipx" && sub == "install")
        && let Some((folder, _)) = program.rsplit_once('/')
    {
        out.push(if folder.is_empty() {
            "/".to_owned()
        } else {
            folder.to_owned()
        });
    }
    match name {
        "npm" | "pnpm" | "yarn" | "bun" => {
            let global = args
                .iter()
                .any(|a| matches!(a.as_str(), "-g" | "--global" | "--location=global"));
            let installs = matches!(
                sub,
                "i" | "install" | "add" | "link" | "ln" | "update" | "up" | "upgrade"
            );
            // `npm config set prefix P`: where every later global install goes.
            let words: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
            if let [config, set, rest @ ..] = words.as_slice()
                && config.as_str() == "config"
                && set.as_str() == "set"
                && let Some(k) = rest.iter().position(|w| w.as_str() == "prefix")
            {
                out.extend(rest.get(k + 1).map(|p| bin(p)));
            }
            if installs && (global || matches!(sub, "link" | "ln")) {
                let prefixes = option_values(args, &[], &["--prefix"]);
                out.extend(prefixes.into_iter().map(bin));
                for var in ["NPM_CONFIG_PREFIX", "npm_config_prefix", "PREFIX"] {
                    out.extend(env(var).as_deref().map(bin));
                }
            }
        }
        // `pip install`, `pip3.12 install`, `uv pip install`.
        _ if (name.starts_with("pip") && name != "pipx" && sub == "install")
            || (name == "uv" && sub == "pip") =>
        {
            out.extend(option_values(args, &[], &["--prefix"]).into_iter().map(bin));
            out.extend(
                option_values(args, &["-t"], &["--target"])
                    .into_iter()
                    .map(bin),
            );
            // `--user`, `PIP_USER=1`: the user base's `bin` (`PYTHONUSERBASE`, else
            // `~/.local`). Without a base given, only a package the agent can have
            // written counts (a path, URL, wheel, `-r`/`-e`): an index's `black` brings
            // the programs its name says.
            let user = args.iter().any(|a| a == "--user")
                || env("PIP_USER")
                    .is_some_and(|v| matches!(v.as_str(), "1" | "true" | "yes" | "on"));
            let own_package = args.iter().filter(|a| !a.starts_with('-')).any(|o| {
                let lower = o.to_ascii_lowercase();
                o.contains(['/', ':'])
                    || o.starts_with('.')
                    || [".whl", ".gz", ".zip"].iter().any(|e| lower.ends_with(e))
            }) || args
                .iter()
                .any(|a| matches!(a.as_str(), "-r" | "-e" | "--requirement" | "--editable"));
            if user {
                match env("PYTHONUSERBASE") {
                    Some(base) => out.push(bin(&base)),
                    None if own_package => out.push("~/.local/bin".to_owned()),
                    None => {}
                }
            }
        }
        "pipx"
            if matches!(
                sub,
                "install" | "inject" | "upgrade" | "reinstall" | "install-all"
            ) =>
        {
            out.extend(env("PIPX_BIN_DIR"));
            // `--force` puts a package's programs over those already in pipx's folder.
            if args.iter().any(|a| a == "--force" || a == "-f") {
                out.push("~/.local/bin".to_owned());
            }
            // Packages put into the environment of `nagger` itself bring their programs
            // into its folder of programs.
            if matches!(sub, "inject" | "runpip") {
                let ops: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
                if let Some(venv) = ops.get(1) {
                    let home = env("PIPX_HOME").unwrap_or_else(|| "~/.local/share/pipx".to_owned());
                    out.push(format!("{}/venvs/{venv}/bin", home.trim_end_matches('/')));
                }
            }
        }
        "uv" if sub == "tool" => {
            out.extend(env("UV_TOOL_BIN_DIR"));
            out.extend(env("XDG_BIN_HOME"));
            // `--force` puts a package's programs over those already there.
            if args.iter().any(|a| a == "--force") {
                out.push("~/.local/bin".to_owned());
            }
        }
        "cargo" if sub == "install" => {
            out.extend(option_values(args, &[], &["--root"]).into_iter().map(bin));
            out.extend(env("CARGO_INSTALL_ROOT").as_deref().map(bin));
        }
        "go" if sub == "install" => out.extend(env("GOBIN")),
        "go" if sub == "build" => {
            // `-o DIR/` (or a folder that exists): the program is named after its package.
            out.extend(
                option_values(args, &["-o"], &[])
                    .into_iter()
                    .filter(|o| o.ends_with('/') || std::path::Path::new(o).is_dir())
                    .map(|o| o.trim_end_matches('/').to_owned()),
            );
        }
        "rustc" => out.extend(
            option_values(args, &[], &["--out-dir"])
                .into_iter()
                .map(str::to_owned),
        ),
        _ => {}
    }
    out.retain(|f| !f.is_empty());
    out
}

/// Most bytes of a local package's `package.json` read.
const MAX_MANIFEST: u64 = 256 * 1024;

/// The local packages `npm install ./dir` (`file:dir`, `pnpm add ./dir`, `yarn add
/// file:dir`, `bun add ./dir`, a packed `x-1.0.0.tgz`) installs, as written: their
/// programs land in `node_modules/.bin`, which a shell may search before the nagger
/// program's folder, or in the global folder of programs. The second list holds the
/// folders installed without being named: the current one, which `npm install -g`,
/// `npm link`, `pnpm link --global`, `yarn link` and `bun link` put among the global
/// programs when no package is named.
pub(super) fn local_packages(command: &SimpleCommand) -> (Vec<String>, Vec<String>) {
    let name = command.name();
    if !matches!(name, "npm" | "pnpm" | "yarn" | "bun") {
        return (Vec::new(), Vec::new());
    }
    let args = command.args();
    // Options whose value is the next word, not a package.
    let takes_value = |a: &str| {
        matches!(
            a,
            "--prefix"
                | "-C"
                | "--cwd"
                | "--dir"
                | "-w"
                | "--workspace"
                | "--filter"
                | "--registry"
                | "--cache"
                | "--userconfig"
                | "--globalconfig"
                | "--tag"
                | "--omit"
                | "--include"
        )
    };
    let Some(at) = args.iter().position(|a| {
        matches!(
            a.as_str(),
            "install" | "i" | "add" | "in" | "isntall" | "link" | "ln"
        )
    }) else {
        return (Vec::new(), Vec::new());
    };
    let mut operands = Vec::new();
    let mut k = at + 1;
    while let Some(a) = args.get(k) {
        k += 1;
        if takes_value(a) {
            k += 1;
        } else if !a.starts_with('-') {
            operands.push(a.as_str());
        }
    }
    let global = args
        .iter()
        .any(|a| matches!(a.as_str(), "-g" | "--global" | "--location=global"));
    let links = matches!(args[at].as_str(), "link" | "ln");
    let current = if operands.is_empty() && (global || links) {
        vec![".".to_owned()]
    } else {
        Vec::new()
    };
    let named = operands
        .into_iter()
        .filter_map(|a| {
            let path = super::super::paths::here_and_home(a.strip_prefix("file:").unwrap_or(a));
            let path = path.as_str();
            let lower = path.to_ascii_lowercase();
            (a.starts_with("file:")
                || path == "."
                || path == ".."
                || path.starts_with("./")
                || path.starts_with("../")
                || path.starts_with('/')
                || path.starts_with('~')
                || (!path.contains(':')
                    && [".tgz", ".tar.gz", ".tar"]
                        .iter()
                        .any(|e| lower.ends_with(e))))
            .then(|| path.to_owned())
        })
        .collect();
    (named, current)
}

/// Whether the package in folder `dir` brings a program named `nagger`: its `bin` names
/// one (or is one program and the package is called so), or the folder `directories.bin`
/// names holds one. `None` when its manifest cannot be read (a packed archive, a file
/// that is not one).
pub(super) fn brings_nagger(dir: &std::path::Path) -> Option<bool> {
    use std::io::Read;
    let file = crate::base::files::open_regular(&dir.join("package.json")).ok()?;
    let mut text = String::new();
    file.take(MAX_MANIFEST).read_to_string(&mut text).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
    let named = |n: &str| basename(n).eq_ignore_ascii_case("nagger");
    let by_bin = match &manifest["bin"] {
        serde_json::Value::String(_) => manifest["name"]
            .as_str()
            .is_some_and(|n| named(n.rsplit('/').next().unwrap_or(n))),
        serde_json::Value::Object(bins) => bins.keys().any(|k| named(k)),
        _ => false,
    };
    let by_folder = manifest["directories"]["bin"]
        .as_str()
        .is_some_and(|folder| {
            std::fs::read_dir(dir.join(folder)).is_ok_and(|entries| {
                entries
                    .flatten()
                    .take(4096)
                    .any(|e| named(&e.file_name().to_string_lossy()))
            })
        });
    Some(by_bin || by_folder)
}

/// The local Python packages `pip install ./dir` (`-e .`, `pip3`, `python3 -m pip`, `uv pip`,
/// `pipx install`, `uv tool install`, `--from`/`--spec DIR`) installs, as written: their
/// programs land in the environment's `bin`, which an activated environment puts first
/// on PATH, or in the user's folder of programs (`~/.local/bin`).
pub(super) fn local_python_packages(command: &SimpleCommand) -> Vec<String> {
    let mut args: &[String] = command.args();
    let name = command.name();
    let pip = if name.starts_with("python") && args.len() >= 2 && args[0] == "-m" {
        let module = args[1].clone();
        args = &args[2..];
        module.starts_with("pip")
    } else if name == "uv" && args.first().is_some_and(|a| a == "pip" || a == "tool") {
        args = &args[1..];
        true
    } else if name == "pipx" {
        true
    } else {
        name.starts_with("pip") && name != "pipx"
    };
    if !pip || args.first().is_none_or(|a| a != "install") {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut k = 1;
    while let Some(a) = args.get(k) {
        k += 1;
        if matches!(a.as_str(), "-e" | "--editable") {
            if let Some(dir) = args.get(k) {
                out.push(dir.clone());
                k += 1;
            }
            continue;
        }
        if matches!(
            a.as_str(),
            "-r" | "--requirement"
                | "-c"
                | "--constraint"
                | "-t"
                | "--target"
                | "--prefix"
                | "--root"
                | "-i"
                | "--index-url"
                | "--extra-index-url"
                | "-f"
                | "--find-links"
                | "--python"
                | "--suffix"
                | "--pip-args"
                | "--with"
                | "-w"
        ) {
            k += 1;
            continue;
        }
        // `uv tool install --from ./dir cli`, `pipx install --spec ./dir cli`: the
        // package comes from the folder.
        if matches!(a.as_str(), "--from" | "--spec") {
            if let Some(dir) = args.get(k) {
                out.push(dir.clone());
            }
            k += 1;
            continue;
        }
        if a.starts_with('-') {
            continue;
        }
        let lower = a.to_ascii_lowercase();
        if a == "."
            || a.starts_with("./")
            || a.starts_with("../")
            || a.starts_with('/')
            || a.starts_with('~')
            || [".whl", ".tar.gz", ".zip", ".tgz"]
                .iter()
                .any(|e| lower.ends_with(e))
        {
            out.push(a.clone());
        }
    }
    out
}

/// Whether the Python project in folder `dir` declares a program named `nagger`
/// (`[project.scripts]`, `console_scripts`, an entry in `setup.py`): a line that gives
/// `nagger` a value in its build files. `None` when none of them can be read.
pub(super) fn declares_nagger(dir: &std::path::Path) -> Option<bool> {
    use std::io::Read;
    let mut read_any = false;
    for file in ["pyproject.toml", "setup.cfg", "setup.py"] {
        let Ok(f) = crate::base::files::open_regular(&dir.join(file)) else {
            continue;
        };
        let mut text = String::new();
        if f.take(MAX_MANIFEST).read_to_string(&mut text).is_err() {
            continue;
        }
        read_any = true;
        let declares = text.lines().any(|line| {
            let line = line.trim().trim_start_matches(['"', '\'']);
            line.strip_prefix("nagger").is_some_and(|rest| {
                rest.trim_start_matches(['"', '\''])
                    .trim_start()
                    .starts_with('=')
            })
        });
        if declares {
            return Some(true);
        }
    }
    read_any.then_some(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folders(line: &str) -> Vec<String> {
        let parsed = crate::domain::guard::shell::parse(line);
        program_folders(parsed.commands.last().expect("a command"))
    }

    #[test]
    fn folders_programs_are_installed_into_when_told() {
        assert_eq!(folders("npm i -g --prefix /opt/x pkg"), vec!["/opt/x/bin"]);
        assert_eq!(
            folders("npm install -g pkg --prefix=/opt/x"),
            vec!["/opt/x/bin"]
        );
        assert_eq!(
            folders("NPM_CONFIG_PREFIX=/p npm install -g pkg"),
            vec!["/p/bin"]
        );
        assert_eq!(folders("pip install --prefix /p pkg"), vec!["/p/bin"]);
        assert_eq!(
            folders("python3 -m pip install --prefix=/p pkg"),
            vec!["/p/bin"]
        );
        assert_eq!(
            folders("PYTHONUSERBASE=/p pip install --user pkg"),
            vec!["/p/bin"]
        );
        assert_eq!(
            folders("PIPX_BIN_DIR=/d pipx install --force pkg"),
            vec!["/d", "~/.local/bin"]
        );
        assert_eq!(
            folders("UV_TOOL_BIN_DIR=/d uv tool install pkg"),
            vec!["/d"]
        );
        assert_eq!(folders("cargo install --root /r x"), vec!["/r/bin"]);
        assert_eq!(folders("GOBIN=/d go install ./..."), vec!["/d"]);
        assert_eq!(folders("go build -o /d/ ./cmd/x"), vec!["/d"]);
        assert_eq!(
            folders("rustc main.rs --crate-name x --out-dir /d"),
            vec!["/d"]
        );
        for plain in [
            "npm install",
            "npm i -g typescript",
            "pip install -r requirements.txt",
            "pipx install black",
            "cargo install ripgrep",
            "go build -o app ./cmd/app",
        ] {
            assert!(folders(plain).is_empty(), "{plain}");
        }
    }
}
