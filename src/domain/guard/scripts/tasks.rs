//! Task runners configured in TOML and INI files: `tox [-e ENV]` (the `commands` of
//! `tox.ini`'s test environments), `poe TASK` (`[tool.poe.tasks]` of `pyproject.toml`)
//! and `cargo make TASK` / `makers TASK` (`Makefile.toml`). Each task's command lines are
//! judged as the shell lines they are; a part only known as the task runs (a
//! substitution of the runner's, a Python function) is asked about.

use toml::Value;

use super::super::finding::Finding;
use super::super::protect::Cwd;
use super::super::shell::{self, SimpleCommand};
use super::files::{Ran, View, read_named};

/// Most tasks followed through their dependencies for one command.
const MAX_TASKS: usize = 32;

/// What `command` runs through one of these runners, pushed onto `out`.
pub(super) fn runs(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    match command.name() {
        "tox" => tox(args, cwd, files, out),
        "poe" => poe(args, cwd, files, out),
        "makers" => cargo_make(args, cwd, files, out),
        "cargo" if args.first().is_some_and(|a| a == "make") => {
            cargo_make(&args[1..], cwd, files, out);
        }
        _ => {}
    }
}

fn ask(what: String) -> Ran {
    Ran::Finding(Finding::ask(
        "guard:computed-command",
        what,
        "Spell the task's command out, or run it yourself in your terminal.",
    ))
}

/// The first word of `args` that is no option, with the words after it.
fn task_and_rest(args: &[String], valued: &[&str]) -> Option<(String, Vec<String>)> {
    let mut k = 0;
    while let Some(a) = args.get(k) {
        if valued.contains(&a.as_str()) {
            k += 2;
            continue;
        }
        if a.starts_with('-') {
            k += 1;
            continue;
        }
        return Some((a.clone(), args[k + 1..].to_vec()));
    }
    None
}

/// `tox [-e a,b] [-- args]`: the `commands` of each environment run (all of `envlist`
/// without `-e`), with `[testenv]`'s where an environment has none of its own.
fn tox(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let config = args
        .iter()
        .position(|a| a == "-c" || a == "--conf")
        .and_then(|k| args.get(k + 1))
        .map_or("tox.ini", String::as_str);
    let Some((text, via)) = read_named(files.read(cwd, config), config, out) else {
        return;
    };
    let sections = ini(&text);
    let value = |section: &str, key: &str| {
        sections
            .iter()
            .find(|(s, k, _)| s == section && k == key)
            .map(|(_, _, v)| v.clone())
    };
    let named = args
        .iter()
        .position(|a| a == "-e")
        .and_then(|k| args.get(k + 1))
        .cloned()
        .or_else(|| {
            args.iter()
                .find_map(|a| a.strip_prefix("-e").map(str::to_owned))
        })
        .filter(|e| !e.is_empty());
    let envs: Vec<String> = named
        .or_else(|| value("tox", "envlist").or_else(|| value("tox", "env_list")))
        .unwrap_or_default()
        .split([',', '\n'])
        .map(|e| e.trim().to_owned())
        .filter(|e| !e.is_empty())
        .take(16)
        .collect();
    let envs = if envs.is_empty() {
        vec!["py".to_owned()]
    } else {
        envs
    };
    for env in envs {
        let own = format!("testenv:{env}");
        let Some(commands) = value(&own, "commands").or_else(|| value("testenv", "commands"))
        else {
            continue;
        };
        for line in commands
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(64)
        {
            // tox's substitutions: its folders, `{posargs}` (what the command line hands
            // on, else its default), `{env:X}` as the variable; others are asked about.
            let line = tox_filled(line, &env, args);
            let line = line.trim_start_matches(['-', '!']).trim().to_owned();
            if line.contains('{') {
                out.push(ask(format!(
                    "runs `{line}` (environment `{env}` of {via}), whose `{{…}}` tox fills in \
                     as it runs"
                )));
            } else {
                out.push(Ran::Script(
                    line,
                    format!("environment `{env}` of {via}, run by `tox`"),
                    None,
                ));
            }
        }
    }
}

/// A tox command line with tox's substitutions filled in where they are known.
fn tox_filled(line: &str, env: &str, args: &[String]) -> String {
    let posargs: Vec<String> = args
        .iter()
        .position(|a| a == "--")
        .map(|k| {
            args[k + 1..]
                .iter()
                .map(|a| shell::shell_quote(a))
                .collect()
        })
        .unwrap_or_default();
    let mut out = String::new();
    let mut rest = line;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let inner = &rest[open + 1..open + close];
        let (name, default) = inner
            .split_once(':')
            .map_or((inner, None), |(n, d)| (n, Some(d)));
        let value = match name {
            "posargs" if posargs.is_empty() => default.unwrap_or("").to_owned(),
            "posargs" => posargs.join(" "),
            "toxinidir" | "tox_root" => ".".into(),
            "toxworkdir" | "work_dir" => ".tox".into(),
            "envdir" | "env_dir" => format!(".tox/{env}"),
            "envtmpdir" | "env_tmp_dir" => format!(".tox/{env}/tmp"),
            "envlogdir" | "env_log_dir" => format!(".tox/{env}/log"),
            "envbindir" | "env_bin_dir" => format!(".tox/{env}/bin"),
            "envsitepackagesdir" | "env_site_packages_dir" => format!(".tox/{env}/lib"),
            "envpython" | "env_python" | "basepython" => "python".into(),
            "envname" | "env_name" => env.to_owned(),
            "homedir" => "~".into(),
            "temp_dir" => ".tox/.tmp".into(),
            "/" => "/".into(),
            ":" => ":".into(),
            "env" => default
                .map(|d| d.split(':').next().unwrap_or(d))
                .map_or_else(|| "{env}".to_owned(), |v| format!("${v}")),
            _ => format!("{{{inner}}}"),
        };
        out.push_str(&value);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

/// INI text as `(section, key, value)`, a value's indented lines after it joined by new
/// lines.
fn ini(text: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    let mut section = String::new();
    for raw in text.lines().take(4096) {
        let line = raw.trim_end();
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            name.trim().clone_into(&mut section);
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(last) = out.last_mut() {
                last.2.push('\n');
                last.2.push_str(trimmed);
            }
            continue;
        }
        if let Some((key, value)) = trimmed.split_once('=') {
            out.push((
                section.clone(),
                key.trim().to_owned(),
                value.trim().to_owned(),
            ));
        }
    }
    out
}

/// `poe TASK [args]`: the task of `[tool.poe.tasks]` in `pyproject.toml` (or
/// `poe_tasks.toml`), a command, a shell script, or a sequence of tasks.
fn poe(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let Some((name, rest)) = task_and_rest(args, &["-C", "--directory", "--root"]) else {
        return;
    };
    let (table, via) = match ["pyproject.toml", "poe_tasks.toml"]
        .iter()
        .find_map(|f| read_named(files.read(cwd, f), f, out))
    {
        Some((text, via)) => match toml::from_str::<Value>(&text) {
            Ok(v) => (v, via),
            Err(_) => return,
        },
        None => return,
    };
    let tasks = table
        .get("tool")
        .and_then(|t| t.get("poe"))
        .and_then(|p| p.get("tasks"))
        .or_else(|| table.get("tasks"))
        .cloned();
    let Some(tasks) = tasks else {
        return;
    };
    let rest: Vec<String> = rest.iter().map(|a| shell::shell_quote(a)).collect();
    let mut wanted = vec![name.clone()];
    let mut seen: Vec<String> = Vec::new();
    while let Some(task) = wanted.pop() {
        if seen.contains(&task) || seen.len() >= MAX_TASKS {
            continue;
        }
        seen.push(task.clone());
        let via = format!("the task `{task}` of {via}, run by `poe`");
        let extra = if task == name {
            rest.join(" ")
        } else {
            String::new()
        };
        match tasks.get(&task) {
            Some(Value::String(cmd)) => out.push(Ran::Script(
                format!("{cmd} {extra}").trim().to_owned(),
                via,
                None,
            )),
            Some(Value::Array(items)) => {
                wanted.extend(items.iter().filter_map(|i| i.as_str().map(str::to_owned)));
            }
            Some(Value::Table(t)) => {
                if let Some(cmd) = t
                    .get("cmd")
                    .or_else(|| t.get("shell"))
                    .and_then(Value::as_str)
                {
                    out.push(Ran::Script(
                        format!("{cmd} {extra}").trim().to_owned(),
                        via.clone(),
                        None,
                    ));
                }
                if let Some(seq) = t.get("sequence").and_then(Value::as_array) {
                    for step in seq.iter().take(MAX_TASKS) {
                        match step {
                            Value::String(s) => wanted.push(s.clone()),
                            Value::Table(t) => {
                                if let Some(cmd) = t
                                    .get("cmd")
                                    .or_else(|| t.get("shell"))
                                    .and_then(Value::as_str)
                                {
                                    out.push(Ran::Script(cmd.to_owned(), via.clone(), None));
                                }
                            }
                            _ => {}
                        }
                    }
                }
                if let Some(target) = t.get("script").and_then(Value::as_str) {
                    out.push(ask(format!(
                        "runs the Python function `{target}` ({via}), which nagger does not follow"
                    )));
                }
                if let Some(deps) = t.get("deps").and_then(Value::as_array) {
                    wanted.extend(deps.iter().filter_map(|d| d.as_str().map(str::to_owned)));
                }
            }
            _ => {}
        }
    }
}

/// `cargo make TASK` / `makers TASK`: the task of `Makefile.toml` (`command` and `args`,
/// a `script`, `run_task`), with its `dependencies`.
fn cargo_make(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let file = args
        .iter()
        .position(|a| a == "--makefile")
        .and_then(|k| args.get(k + 1))
        .map_or("Makefile.toml", String::as_str);
    let name = task_and_rest(
        args,
        &[
            "--makefile",
            "-p",
            "--profile",
            "-e",
            "--env",
            "-t",
            "--task",
            "--cwd",
        ],
    )
    .map_or_else(|| "default".to_owned(), |(t, _)| t);
    let Some((text, via)) = read_named(files.read(cwd, file), file, out) else {
        return;
    };
    let Ok(table) = toml::from_str::<Value>(&text) else {
        return;
    };
    let Some(tasks) = table.get("tasks") else {
        return;
    };
    let mut wanted = vec![name];
    let mut seen: Vec<String> = Vec::new();
    while let Some(task) = wanted.pop() {
        if seen.contains(&task) || seen.len() >= MAX_TASKS {
            continue;
        }
        seen.push(task.clone());
        let Some(t) = tasks.get(&task) else { continue };
        let via = format!("the task `{task}` of {via}, run by `cargo make`");
        if let Some(cmd) = t.get("command").and_then(Value::as_str) {
            let mut words = vec![cmd.to_owned()];
            words.extend(
                t.get("args")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_owned),
            );
            push_line(&words, &via, out);
        }
        match t.get("script") {
            Some(Value::String(s)) => push_script(s, &via, out),
            Some(Value::Array(lines)) => {
                let text: Vec<&str> = lines.iter().filter_map(Value::as_str).collect();
                push_script(&text.join("\n"), &via, out);
            }
            Some(Value::Table(s)) => {
                if let Some(Value::Array(lines)) = s.get("main") {
                    let text: Vec<&str> = lines.iter().filter_map(Value::as_str).collect();
                    push_script(&text.join("\n"), &via, out);
                } else if s.get("file").is_some() {
                    out.push(ask(format!(
                        "runs a script file ({via}), which nagger does not follow"
                    )));
                }
            }
            _ => {}
        }
        for key in ["dependencies", "run_task"] {
            match t.get(key) {
                Some(Value::Array(deps)) => wanted.extend(deps.iter().filter_map(|d| {
                    d.as_str()
                        .map(str::to_owned)
                        .or_else(|| d.get("name")?.as_str().map(str::to_owned))
                })),
                Some(Value::String(d)) => wanted.push(d.clone()),
                Some(Value::Table(d)) => {
                    if let Some(n) = d.get("name").and_then(Value::as_str) {
                        wanted.push(n.to_owned());
                    }
                }
                _ => {}
            }
        }
    }
}

/// A program and its arguments as a shell line; `${…}` (cargo make's own variables) is
/// only known as the task runs.
fn push_line(words: &[String], via: &str, out: &mut Vec<Ran>) {
    // `${@}`: the task's own arguments (none given here); a variable of the environment
    // as the shell reads it.
    let words: Vec<String> = words
        .iter()
        .filter(|w| *w != "${@}")
        .map(|w| w.replace("${CARGO_MAKE_WORKING_DIRECTORY}", "."))
        .collect();
    if words
        .iter()
        .any(|w| w.contains("${") && !simple_variable(w))
    {
        out.push(ask(format!(
            "runs `{}` ({via}), whose `${{…}}` cargo make fills in as it runs",
            words.join(" ")
        )));
        return;
    }
    let line: Vec<String> = words
        .iter()
        .map(|w| {
            if w.contains("${") {
                format!("\"{w}\"")
            } else {
                shell::shell_quote(w)
            }
        })
        .collect();
    out.push(Ran::Script(line.join(" "), via.to_owned(), None));
}

/// Whether `word`'s `${…}` are plain variables of the environment (`${HOME}/x`), which
/// the shell reads as cargo make does.
fn simple_variable(word: &str) -> bool {
    word.match_indices("${").all(|(at, _)| {
        word[at + 2..].find('}').is_some_and(|end| {
            let name = &word[at + 2..at + 2 + end];
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
    })
}

/// A task's script: shell lines (cargo make runs them with the shell), `${…}` as the
/// shell would read it.
fn push_script(text: &str, via: &str, out: &mut Vec<Ran>) {
    if text.starts_with("#!") && !text.starts_with("#!/bin/sh") && !text.starts_with("#!/bin/bash")
    {
        out.push(ask(format!(
            "runs a script in another language ({via}), which nagger does not read"
        )));
        return;
    }
    out.push(Ran::Script(text.to_owned(), via.to_owned(), None));
}
