//! Wrappers: commands that run another command. Prefixes such as `sudo`, `env`, `timeout`
//! and `xargs` are peeled off a simple command's words; scripts handed to a shell or to
//! `eval`, `watch`, `su -c`, `ssh` and `find -exec` are parsed as commands of their own.

use super::command::Assignment;
use super::command::{SimpleCommand, Via};
use super::lexer::split_words;
use super::limits::MAX_ASSIGNMENTS;
use super::limits::MAX_DEPTH;
use super::parser::{Context, Io, Parser, parse_script};
use super::remote::Remote;
use super::words::{
    basename, has_flag, is_assignment_name, is_shell, reads_program_from_stdin, shell_quote,
    short_cluster, subscript_commands, value_script,
};

/// Most wrapper prefixes peeled off one simple command.
const MAX_PREFIXES: usize = 32;

/// `text` with each `$$name` / `$${name}` read as `${!name}`, when it holds one.
fn escaped_reference(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut found = false;
    let mut rest = text;
    while let Some(at) = rest.find("$$") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let braced = after.strip_prefix('{');
        let body = braced.unwrap_or(after);
        let len = body
            .bytes()
            .take_while(|b| *b == b'_' || b.is_ascii_alphanumeric())
            .count();
        let starts = body
            .bytes()
            .next()
            .is_some_and(|b| b == b'_' || b.is_ascii_alphabetic());
        if !starts || (braced.is_some() && body.as_bytes().get(len) != Some(&b'}')) {
            out.push_str("$$");
            rest = after;
            continue;
        }
        found = true;
        out.push_str("${!");
        out.push_str(&body[..len]);
        out.push('}');
        rest = &body[len + usize::from(braced.is_some())..];
    }
    out.push_str(rest);
    found.then_some(out)
}

/// Most aliases of one line remembered for the commands after them.
const MAX_ALIASES: usize = 64;

impl Parser<'_, '_> {
    /// Record one simple command and the commands it runs in turn. Returns the context
    /// and name of a shell that reads its program from stdin, for here-documents.
    pub(super) fn emit(
        &mut self,
        argv: Vec<String>,
        ctx: &Context,
        io: Io,
        pipeline: u32,
        stage: u32,
        depth: usize,
    ) -> Option<(Context, String)> {
        // A bare redirection (`> file`) truncates its file as `: > file` does; one that
        // reads (`done < file`) feeds the compound command before it.
        // `{ …; } 2>/dev/null`: a sink truncates nothing.
        let mut io = io;
        if argv.is_empty() {
            io.writes_to
                .retain(|w| !matches!(w.as_str(), "/dev/null" | "/dev/stderr" | "/dev/stdout"));
        }
        let argv = if argv.is_empty() && !(io.writes_to.is_empty() && io.reads_from.is_empty()) {
            vec![":".to_owned()]
        } else {
            argv
        };
        if argv.is_empty() || self.out.full() {
            return None;
        }
        // `alias n=nagger` on an earlier line, then `n uninstall`: the alias's value
        // with the words after it (an alias is not expanded again inside itself).
        let argv = match self
            .out
            .aliases
            .iter()
            .rposition(|(name, _)| *name == argv[0])
        {
            Some(at) => {
                let (name, value) = self.out.aliases.remove(at);
                let expanded = if value.contains([';', '|', '&', '<', '>', '(', '`', '$', '\n']) {
                    // A command line of its own: read whole, and the redirections of
                    // the use kept on a command of their own.
                    let rest: Vec<String> = argv[1..].iter().map(|w| shell_quote(w)).collect();
                    let script = format!("{value} {}", rest.join(" "));
                    let inner = ctx.within(Via::Script(format!("alias {name}")), ctx.sudo);
                    parse_script(script.as_bytes(), depth + 1, &inner, self.out);
                    vec![":".to_owned()]
                } else {
                    let mut words = split_words(&value);
                    words.extend(argv[1..].iter().cloned());
                    words
                };
                self.out.aliases.insert(at, (name, value));
                if expanded.is_empty() {
                    return None;
                }
                expanded
            }
            None => argv,
        };
        let peeled = peel_prefixes(argv);
        if peeled.exhausted {
            self.out.too_deep = true;
        }
        if peeled.argv.is_empty() {
            return None;
        }
        let sudo = ctx.sudo || peeled.sudo;
        // `env GIT_SSH_COMMAND='…' git fetch`: a command line in the environment.
        for word in peeled.original.iter().flatten() {
            if let Some((name, value)) = word.split_once('=')
                && let Some(script) = value_script(name, value)
                && self.out.charge(value.len())
            {
                let ctx = ctx.within(Via::Script(format!("{name}=")), false);
                parse_script(script.as_bytes(), depth + 1, &ctx, self.out);
            }
        }
        let mut argv = peeled.argv;
        // `cp --ta=D`: the long option it abbreviates, spelled out for every check.
        if let Some(first) = argv.first()
            && let Some(spelled) =
                super::longopts::spelled_out(super::words::basename(first), &argv[1..])
        {
            argv.truncate(1);
            argv.extend(spelled);
        }
        let command = SimpleCommand {
            argv,
            prefixes: peeled.prefixes,
            prefixed: peeled.original,
            sudo,
            via: ctx.via.clone(),
            pipeline,
            stage,
            writes_to: io.writes_to,
            appends_to: io.appends_to,
            reads_from: io.reads_from,
            substitutions: io.substitutions,
            computed: io.computed,
            stdin_texts: io.stdin_texts,
            stdin_literal: false,
            env: io.env,
            frame: ctx.frame,
        };
        let name = command.name().to_owned();
        let runs_scripts = follows(&name) || builds_with(&name);
        let argv = if runs_scripts {
            command.argv.clone()
        } else {
            Vec::new()
        };
        // Builtins that take a variable's name read an array's subscript as a number,
        // running what it substitutes (`test -v 'a[$(…)]'`, `printf -v 'a[$(…)]' x`,
        // `unset 'a[$(…)]'`, `read 'a[$(…)]'`).
        if matches!(
            name.as_str(),
            "test"
                | "["
                | "[["
                | "printf"
                | "unset"
                | "read"
                | "let"
                | "mapfile"
                | "readarray"
                | "wait"
                | "getopts"
        ) {
            let scripts: Vec<String> = command.argv[1..]
                .iter()
                .flat_map(|a| subscript_commands(a))
                .take(16)
                .collect();
            for script in scripts {
                let ctx = ctx.within(
                    Via::Script(format!("`{name}` read as a variable's subscript")),
                    sudo,
                );
                parse_script(script.as_bytes(), depth + 1, &ctx, self.out);
            }
        }
        // `hash -p /bin/rm ls`: from now on `ls` runs that program.
        if name == "hash"
            && let Some(k) = command.argv.iter().position(|a| a == "-p")
            && let (Some(program), Some(alias)) = (command.argv.get(k + 1), command.argv.get(k + 2))
            && self.out.aliases.len() < MAX_ALIASES
        {
            self.out.aliases.push((alias.clone(), shell_quote(program)));
        }
        self.out.commands.push(command);
        if !runs_scripts {
            return None;
        }

        let inner = |how: String| ctx.within(Via::Script(how), sudo);
        if is_shell(&name) {
            if let Some((script, params)) = shell_c_script(&argv) {
                let ctx = inner(format!("{name} -c"));
                let script = with_positional(script, params);
                // `f=x sh -c 'rm -rf $f'`, `env f=x sh -c …`: the script sees what its
                // shell was given in its environment.
                let given: Vec<String> = self
                    .out
                    .commands
                    .last()
                    .map(|c| {
                        c.env
                            .iter()
                            .chain(c.prefixed.iter().flatten())
                            .filter_map(|w| w.split_once('='))
                            .filter(|(n, _)| {
                                !n.is_empty()
                                    && n.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
                            })
                            .map(|(n, v)| format!("export {n}={}", super::words::shell_quote(v)))
                            .collect()
                    })
                    .unwrap_or_default();
                let script = if given.is_empty() {
                    script
                } else {
                    format!("{}; {script}", given.join("; "))
                };
                // `env -C dir sh -c '…'`: the script starts in the wrapper's folder.
                let folders = self
                    .out
                    .commands
                    .last()
                    .map(wrapper_folders)
                    .unwrap_or_default();
                let script = if folders.is_empty() {
                    script
                } else {
                    let cds: Vec<String> = folders
                        .iter()
                        .map(|d| format!("cd {}", shell_quote(d)))
                        .collect();
                    format!("{} && {{ {script}\n}}", cds.join(" && "))
                };
                parse_script(script.as_bytes(), depth + 1, &ctx, self.out);
            } else if reads_program_from_stdin(&argv) {
                let mut elevated = ctx.clone();
                elevated.sudo = sudo;
                return Some((elevated, name));
            }
            return None;
        }
        if option_runs(&name) || builds_with(&name) {
            for (how, script) in option_scripts(&argv) {
                if !self.out.charge(script.len()) {
                    break;
                }
                parse_script(script.as_bytes(), depth + 1, &inner(how), self.out);
            }
            if name != "ssh" {
                return None;
            }
        }
        match name.as_str() {
            "trap" => {
                // `trap 'script' EXIT`: the script runs when the signal comes.
                let ops: Vec<&String> = argv[1..]
                    .iter()
                    .skip_while(|a| a.starts_with('-') && *a != "-")
                    .collect();
                if let [script, _, ..] = ops.as_slice()
                    && script.as_str() != "-"
                {
                    parse_script(script.as_bytes(), depth + 1, &inner(name), self.out);
                }
            }
            "alias" => {
                // `alias x='rm -rf ~'`: what `x` runs from now on.
                for value in argv[1..].iter().filter_map(|a| a.split_once('=')) {
                    let ctx = inner(format!("alias {}", value.0));
                    parse_script(value.1.as_bytes(), depth + 1, &ctx, self.out);
                    if self.out.aliases.len() < MAX_ALIASES {
                        self.out
                            .aliases
                            .push((value.0.to_owned(), value.1.to_owned()));
                    }
                }
            }
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                let at = self.out.commands.len();
                let computed = &self.out.commands[at - 1].computed;
                // `declare -n r=t`, `local -a a=(…)`, `typeset -l x=…`: what the
                // attributes make of the value.
                let flags: String = argv[1..]
                    .iter()
                    .filter_map(|a| a.strip_prefix('-'))
                    .collect();
                let set: Vec<Assignment> = argv[1..]
                    .iter()
                    .filter(|a| !a.starts_with(['-', '+']))
                    .filter_map(|a| {
                        let (name, value) = a.split_once('=')?;
                        let value_of = |v: &str| {
                            if flags.contains('l') {
                                v.to_lowercase()
                            } else if flags.contains('u') {
                                v.to_uppercase()
                            } else {
                                v.to_owned()
                            }
                        };
                        let known = !computed.contains(a) && !flags.contains(['A', 'i']);
                        is_assignment_name(name.as_bytes()).then(|| Assignment {
                            at,
                            name: name.trim_end_matches('+').to_owned(),
                            value: known.then(|| value_of(value)),
                            raw: value.to_owned(),
                            each: false,
                            array: flags.contains('a'),
                            nameref: flags.contains('n'),
                            append: name.ends_with('+'),
                        })
                    })
                    .collect();
                for a in &set {
                    if let Some(value) = &a.value
                        && let Some(script) = value_script(&a.name, value)
                    {
                        let ctx = inner(format!("{}=", a.name));
                        parse_script(script.as_bytes(), depth + 1, &ctx, self.out);
                    }
                    for script in subscript_commands(&a.raw) {
                        let ctx = inner(format!("`{}` read as a number", a.name));
                        parse_script(script.as_bytes(), depth + 1, &ctx, self.out);
                    }
                }
                let room = MAX_ASSIGNMENTS.saturating_sub(self.out.assignments.len());
                self.out.assignments.extend(set.into_iter().take(room));
            }
            ":::" if command_prefixes_parallel(&self.out.commands) => {
                // `parallel ::: 'cmd' …`: each argument is a command line.
                for script in &argv[1..] {
                    parse_script(
                        script.as_bytes(),
                        depth + 1,
                        &inner("parallel :::".into()),
                        self.out,
                    );
                }
            }
            "tmux" => {
                // `tmux new-session -d 'cmd'`, `send-keys 'cmd' Enter`, `run-shell 'cmd'`.
                let sub = argv[1..]
                    .iter()
                    .find(|a| !a.starts_with('-'))
                    .cloned()
                    .unwrap_or_default();
                let runs = matches!(
                    sub.as_str(),
                    "new-session"
                        | "new"
                        | "new-window"
                        | "neww"
                        | "split-window"
                        | "splitw"
                        | "respawn-pane"
                        | "respawnp"
                        | "respawn-window"
                        | "respawnw"
                        | "run-shell"
                        | "run"
                        | "send-keys"
                        | "send"
                        | "set-buffer"
                        | "setb"
                );
                if runs {
                    let at = argv.iter().position(|a| *a == sub).unwrap_or(0);
                    let script = if matches!(sub.as_str(), "send-keys" | "send") {
                        tmux_typed(&argv[at + 1..])
                    } else if matches!(sub.as_str(), "set-buffer" | "setb") {
                        // The text a `paste-buffer` types into a pane.
                        let j = skip_options(&argv, at + 1, "btn", &[]);
                        argv[j.min(argv.len())..].join(" ")
                    } else {
                        let j = skip_options(&argv, at + 1, "stnecFxylTbp", &[]);
                        argv[j.min(argv.len())..].join(" ")
                    };
                    parse_script(
                        script.as_bytes(),
                        depth + 1,
                        &inner(format!("tmux {sub}")),
                        self.out,
                    );
                }
            }
            "script" => {
                let script = argv.iter().enumerate().find_map(|(k, a)| {
                    let cluster = short_cluster(a).is_some_and(|f| f.ends_with('c'));
                    if cluster || a == "--command" {
                        argv.get(k + 1).cloned()
                    } else {
                        a.strip_prefix("--command=").map(str::to_owned)
                    }
                });
                if let Some(script) = script {
                    parse_script(script.as_bytes(), depth + 1, &inner(name), self.out);
                }
            }
            "git" => {
                for (how, script) in git_scripts(&argv) {
                    let cost = match &script {
                        GitRun::Shell(s) => s.len(),
                        GitRun::Argv(a) => a.iter().map(String::len).sum(),
                    };
                    if !self.out.charge(cost) {
                        break;
                    }
                    let ctx = inner(how);
                    match script {
                        GitRun::Shell(script) => {
                            parse_script(script.as_bytes(), depth + 1, &ctx, self.out);
                        }
                        GitRun::Argv(run) => {
                            self.emit(run, &ctx, Io::default(), pipeline, stage, depth + 1);
                        }
                    }
                }
            }
            "eval" => {
                let script = argv[1..].join(" ");
                parse_script(script.as_bytes(), depth + 1, &inner(name.clone()), self.out);
                // `eval rm -rf \$$x`: an escaped `$` before a reference, which the first
                // expansion turns into a reference to the variable `x` names. Its words
                // reach here as `$$x`; that reading is `${!x}`.
                if let Some(indirect) = escaped_reference(&script) {
                    parse_script(indirect.as_bytes(), depth + 1, &inner(name), self.out);
                }
            }
            "watch" => {
                let j = skip_options(&argv, 1, "nq", &["interval"]);
                let script = argv.get(j..).unwrap_or(&[]).join(" ");
                parse_script(script.as_bytes(), depth + 1, &inner(name), self.out);
            }
            "su" | "runuser" | "flock" | "sg" => {
                let script = argv.iter().enumerate().find_map(|(k, a)| {
                    if a == "-c" || a == "--command" {
                        argv.get(k + 1).cloned()
                    } else {
                        a.strip_prefix("--command=").map(str::to_owned)
                    }
                });
                if let Some(script) = script {
                    let elevated = matches!(name.as_str(), "su" | "runuser");
                    let ctx = ctx.within(Via::Script(format!("{name} -c")), elevated);
                    parse_script(script.as_bytes(), depth + 1, &ctx, self.out);
                }
            }
            "ssh" => {
                // `ssh [options] host command…`: the command runs on the remote host.
                let host = skip_options(&argv, 1, "BbcDEeFIiJLlmOoPpQRSWw", &[]);
                let command = argv.get(host + 1..).unwrap_or(&[]);
                let command = match command.split_first() {
                    Some((first, rest)) if first == "--" => rest,
                    _ => command,
                };
                if !command.is_empty() {
                    let script = command.join(" ");
                    let ctx = inner(format!("ssh {}", argv[host]));
                    parse_script(script.as_bytes(), depth + 1, &ctx, self.out);
                }
            }
            "fd" | "fdfind" if depth < MAX_DEPTH => {
                // `fd PATTERN DIR -x CMD`: the find command that runs CMD on the same files.
                if let Some(find) = super::fd::as_find(&argv) {
                    self.emit(
                        find,
                        &inner(format!("{name} --exec")),
                        Io::default(),
                        pipeline,
                        stage,
                        depth + 1,
                    );
                }
            }
            "find" if depth < MAX_DEPTH => {
                // With `-maxdepth 0` the only files found are the start points: `{}` is
                // each of them (`find ~/.local/bin -maxdepth 0 -exec cp x {}/nagger \;`).
                let starts: Vec<String> = super::words::find_starts(&argv[1..])
                    .iter()
                    .take(8)
                    .cloned()
                    .collect();
                let only_starts = argv.windows(2).any(|w| w[0] == "-maxdepth" && w[1] == "0")
                    && !starts.is_empty();
                let mut k = 1;
                while k < argv.len() {
                    let action = argv[k].as_str();
                    k += 1;
                    if !matches!(action, "-exec" | "-execdir" | "-ok" | "-okdir") {
                        continue;
                    }
                    let end = argv[k..]
                        .iter()
                        .position(|a| a == ";" || a == "+")
                        .map_or(argv.len(), |p| k + p);
                    let run = argv[k..end].to_vec();
                    k = end + 1;
                    if !self.out.charge(run.iter().map(String::len).sum()) {
                        break;
                    }
                    let ctx = inner(format!("find {action}"));
                    if only_starts && action == "-exec" && run.iter().any(|a| a.contains("{}")) {
                        for start in &starts {
                            let filled = run.iter().map(|a| a.replace("{}", start)).collect();
                            self.emit(filled, &ctx, Io::default(), pipeline, stage, depth + 1);
                        }
                        continue;
                    }
                    self.emit(run, &ctx, Io::default(), pipeline, stage, depth + 1);
                }
            }
            "find"
                if argv
                    .iter()
                    .any(|a| a.starts_with("-exec") || a.starts_with("-ok")) =>
            {
                self.out.too_deep = true;
            }
            _ => {
                // `docker exec app rm -rf /data`: a command run in a container or on
                // a machine, judged as ssh's is.
                match super::remote::command(&argv) {
                    Some((how, Remote::Argv(run)))
                        if self.out.charge(run.iter().map(String::len).sum()) =>
                    {
                        self.emit(run, &inner(how), Io::default(), pipeline, stage, depth + 1);
                    }
                    Some((how, Remote::Script(line))) if self.out.charge(line.len()) => {
                        parse_script(line.as_bytes(), depth + 1, &inner(how), self.out);
                    }
                    _ => {}
                }
            }
        }
        None
    }
}

/// Programs whose words the parser follows into the commands they run: shells, `eval`,
/// `watch`, `su -c`, `ssh`, `find -exec`, `fd -x`, `git`'s aliases and commands, `trap`,
/// `alias`, `tmux`, `script`, the declarations that set command-holding variables,
/// The folders the wrappers in front of `command` move it into, in order: `env -C dir`
/// (past `-u NAME`), `sudo -D dir`, `nsenter`/`unshare --wd`, `systemd-run
/// --working-directory`, `bwrap --chdir`, `proot -w`.
pub fn wrapper_folders(command: &SimpleCommand) -> Vec<String> {
    let Some(words) = &command.prefixed else {
        return Vec::new();
    };
    let wrappers = &words[..words.len().saturating_sub(command.argv.len())];
    let mut out = Vec::new();
    let mut current = "";
    let mut k = 0;
    while let Some(word) = wrappers.get(k) {
        k += 1;
        if !word.starts_with('-') {
            let name = basename(word);
            const MOVERS: &[&str] = &[
                "env",
                "sudo",
                "nsenter",
                "unshare",
                "systemd-run",
                "bwrap",
                "proot",
                "firejail",
            ];
            if MOVERS.contains(&name) {
                current = name;
            } else if !word.contains(['=', '/']) {
                // Another wrapper; a path is a value of the current one's options
                // (`bwrap --bind / /`).
                current = "";
            }
            continue;
        }
        // `systemd-run -p WorkingDirectory=dir`: a property of the unit.
        if current == "systemd-run" {
            let property = match word.as_str() {
                "-p" | "--property" => {
                    k += 1;
                    wrappers.get(k - 1).map(String::as_str)
                }
                w => w
                    .strip_prefix("--property=")
                    .or_else(|| w.strip_prefix("-p")),
            };
            if let Some(dir) = property.and_then(|p| p.strip_prefix("WorkingDirectory=")) {
                out.push(dir.trim_start_matches(['-', '!']).to_owned());
                continue;
            }
            if property.is_some() {
                continue;
            }
        }
        let (short, long): (&[u8], &[&str]) = match current {
            "env" => (b"C", &["chdir"]),
            "sudo" => (b"D", &["chdir"]),
            "nsenter" | "unshare" => (b"w", &["wd"]),
            "systemd-run" => (b"", &["working-directory"]),
            "bwrap" => (b"", &["chdir"]),
            "proot" => (b"w", &["cwd"]),
            "firejail" => (b"", &["private-cwd"]),
            _ => continue,
        };
        // Options of the wrapper that take a value of their own (`env -u NAME`).
        let valued: &[u8] = match current {
            "env" => b"uSa",
            "sudo" => b"ugpChrtTU",
            _ => b"",
        };
        if word.len() == 2
            && valued.contains(&word.as_bytes()[1])
            && !short.contains(&word.as_bytes()[1])
        {
            k += 1;
            continue;
        }
        let value = if let Some(rest) = word.strip_prefix("--") {
            match rest.split_once('=') {
                Some((key, value)) if long.contains(&key) => Some(value.to_owned()),
                None if long.contains(&rest) => {
                    k += 1;
                    wrappers.get(k - 1).cloned()
                }
                _ => None,
            }
        } else {
            // A cluster of short options whose last letter (or one followed by the
            // value itself) is the folder option: `-C dir`, `-iC dir`, `-Cdir`.
            let letters = &word.as_bytes()[1..];
            letters.iter().position(|b| short.contains(b)).map(|i| {
                let attached = &word[i + 2..];
                if attached.is_empty() {
                    k += 1;
                    wrappers.get(k - 1).cloned().unwrap_or_default()
                } else {
                    attached.to_owned()
                }
            })
        };
        out.extend(value);
    }
    out
}

/// `parallel :::`, and the programs that take a command line in an option.
pub fn follows(name: &str) -> bool {
    is_shell(name)
        || matches!(
            name,
            "eval"
                | "watch"
                | "su"
                | "runuser"
                | "flock"
                | "sg"
                | "find"
                | "fd"
                | "fdfind"
                | "ssh"
                | "trap"
                | "alias"
                | "git"
                | "script"
                | "export"
                | "tmux"
                | ":::"
                | "declare"
                | "typeset"
                | "local"
                | "readonly"
        )
        || option_runs(name)
        || super::remote::runs_elsewhere(name)
}

/// Terminal emulators: they run the command they are given in a new window.
const TERMINALS: &[&str] = &[
    "xterm",
    "uxterm",
    "urxvt",
    "rxvt",
    "st",
    "foot",
    "konsole",
    "alacritty",
    "terminator",
    "tilix",
    "xfce4-terminal",
    "lxterminal",
    "mate-terminal",
    "gnome-terminal",
    "kitty",
    "wezterm",
    "ghostty",
    "qterminal",
    "sakura",
    "terminology",
    "x-terminal-emulator",
    "eterm",
    "kgx",
    "ptyxis",
];

/// Programs that run a command line given in one of their options or words, besides the
/// wrappers peeled off the front: see [`option_scripts`].
fn option_runs(name: &str) -> bool {
    TERMINALS.contains(&name)
        || matches!(
            name,
            "ssh"
                | "tar"
                | "gtar"
                | "bsdtar"
                | "zip"
                | "rsync"
                | "scp"
                | "sftp"
                | "sshfs"
                | "ncat"
                | "nc"
                | "netcat"
                | "screen"
                | "xdotool"
                | "prlimit"
                | "cgexec"
                | "sshpass"
                | "bwrap"
                | "sort"
                | "gsort"
                | "gcc"
                | "cc"
                | "g++"
                | "c++"
                | "clang"
                | "clang++"
                | "gfortran"
        )
}

/// Build tools that run a program an option names in place of their own (npm's script
/// shell, `make SHELL=`, cargo's wrappers, go's `-toolexec`): those programs are read,
/// while what else the tool runs stays the tool's to tell.
fn builds_with(name: &str) -> bool {
    matches!(
        name,
        "npm" | "pnpm" | "yarn" | "npx" | "make" | "gmake" | "bmake" | "cargo" | "go" | "rustc"
    )
}

/// `words` as one command line that runs them as they are.
fn quoted_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words after `-e` (or `--command`): one word is a command line of its own (`-e 'a;
/// b'`), several are a program and its arguments.
fn run_words(words: &[String]) -> Option<String> {
    match words {
        [] => None,
        [one] => Some(one.clone()),
        many => Some(quoted_line(many)),
    }
}

/// Typed text (`screen -X stuff`, `xdotool type`): `\n`, `\r` and `^M` end lines.
/// What `tmux send-keys` types: its keys one after the other, with no space between
/// (`send-keys 'tr' 'ust' Enter` types `trust` and a newline). A key name stands for
/// its key (`Enter`, `C-m` a newline, `Space` a space), `-l` sends every word as text,
/// `-H` sends each word as a character's hexadecimal code, and `-X` sends copy-mode
/// commands, which type nothing.
fn tmux_typed(args: &[String]) -> String {
    let mut literal = false;
    let mut hex = false;
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        if arg == "--" {
            k += 1;
            break;
        }
        let Some(flags) = short_cluster(arg) else {
            break;
        };
        k += 1;
        for (pos, flag) in flags.char_indices() {
            match flag {
                'l' => literal = true,
                'H' => hex = true,
                'X' => return String::new(),
                'c' | 'N' | 't' => {
                    if pos + 1 == flags.len() {
                        k += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    let mut text = String::new();
    for key in args.get(k..).unwrap_or(&[]) {
        if hex {
            let code = u32::from_str_radix(key.trim_start_matches("0x"), 16).ok();
            text.extend(code.and_then(char::from_u32));
            continue;
        }
        if literal {
            text.push_str(key);
            continue;
        }
        match key.as_str() {
            "Enter" | "C-m" | "KPEnter" | "C-j" | "C-c" | "C-d" | "C-u" | "M-Enter" => {
                text.push('\n');
            }
            "Space" => text.push(' '),
            "Tab" | "C-i" => text.push('\t'),
            "Escape" | "BSpace" | "Up" | "Down" | "Left" | "Right" | "Home" | "End" | "C-l"
            | "C-a" | "C-e" => {}
            other => text.push_str(other),
        }
    }
    text
}

fn typed(text: &str) -> String {
    text.replace("\\n", "\n")
        .replace("\\r", "\n")
        .replace("^M", "\n")
        .replace('\r', "\n")
}

/// The command lines `argv` runs through its options or words: `tar
/// --checkpoint-action=exec=…`, `--to-command`, `-I`; `zip -TT`; `rsync -e`; `ssh -o
/// ProxyCommand=…` (and `LocalCommand`, `KnownHostsCommand`); `ncat -e`/`-c`; text typed
/// into another terminal (`screen -X stuff`, `xdotool type`); a terminal emulator's
/// command (`xterm -e …`, `gnome-terminal -- …`, `kitty …`); and the command of
/// `prlimit`, `cgexec`, `sshpass` and `bwrap`. Each with how it runs.
fn option_scripts(argv: &[String]) -> Vec<(String, String)> {
    let name = basename(argv.first().map_or("", String::as_str));
    let args = argv.get(1..).unwrap_or(&[]);
    let mut out: Vec<(String, String)> = Vec::new();
    let mut push = |how: &str, script: Option<String>| {
        if let Some(script) = script.filter(|s| !s.trim().is_empty()) {
            out.push((format!("{name} {how}"), script));
        }
    };
    let values = |short: &[&str], long: &[&str]| -> Vec<String> {
        super::words::option_values(args, short, long)
            .into_iter()
            .map(str::to_owned)
            .collect()
    };
    match name {
        "tar" | "gtar" | "bsdtar" => {
            for v in values(&[], &["--checkpoint-action"]) {
                push(
                    "--checkpoint-action",
                    v.strip_prefix("exec=").map(str::to_owned),
                );
            }
            for (how, short, long) in [
                ("--to-command", &[][..], &["--to-command"][..]),
                ("-I", &["-I"][..], &["--use-compress-program"][..]),
                (
                    "--info-script",
                    &["-F"][..],
                    &["--info-script", "--new-volume-script"][..],
                ),
                ("--rsh-command", &[][..], &["--rsh-command"][..]),
            ] {
                for v in values(short, long) {
                    // `--to-command=sh`: each member's text is handed to the shell or
                    // interpreter to run, text the archive holds and nagger does not read.
                    let words: Vec<&str> = v.split_whitespace().collect();
                    let reads_code = how == "--to-command"
                        && words.len() == 1
                        && super::words::interpreter(basename(words[0])).is_some();
                    if reads_code {
                        let flag = if super::words::is_shell(basename(words[0]))
                            || basename(words[0]).starts_with("python")
                        {
                            "-c"
                        } else {
                            "-e"
                        };
                        push(how, Some(format!("{v} {flag} \"$(archive-member-text)\"")));
                    } else {
                        push(how, Some(v));
                    }
                }
            }
        }
        // Programs a build tool runs in place of its own: npm's script shell, make's
        // `SHELL=`, cargo's wrappers, runners and linkers, go's `-toolexec` and `-exec`.
        "npm" | "pnpm" | "yarn" | "npx" => {
            for v in values(&[], &["--script-shell"]) {
                push("--script-shell", Some(shell_quote(&v)));
            }
            // `--editor=prog`, `--browser=prog`: run by `npm config edit`, `npm docs` ….
            for (how, long) in [("--editor", "--editor"), ("--browser", "--browser")] {
                for v in values(&[], &[long]) {
                    push(how, Some(v));
                }
            }
            // `npm init` runs its init module: `--init-module=F`, else `~/.npm-init.js`.
            let ops: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
            if ops.len() == 1 && matches!(ops[0].as_str(), "init" | "create" | "innit") {
                let modules = values(&[], &["--init-module"]);
                if modules.is_empty() {
                    push("init", Some("node ~/.npm-init.js".into()));
                }
                for v in modules {
                    push("--init-module", Some(format!("node {}", shell_quote(&v))));
                }
            }
            // `npm pkg set scripts.x='…'`: a script stored to run later by name.
            let ops: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
            if let [pkg, set, pairs @ ..] = ops.as_slice()
                && pkg.as_str() == "pkg"
                && set.as_str() == "set"
            {
                for pair in pairs.iter().take(16) {
                    if let Some((key, value)) = pair.split_once('=')
                        && key.starts_with("scripts.")
                    {
                        push("pkg set", Some(value.to_owned()));
                    }
                }
            }
            // `npm config set script-shell prog`, `npm config set node-options=…`: stored
            // for every later run.
            let ops: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
            if let [config, set, pairs @ ..] = ops.as_slice()
                && matches!(config.as_str(), "config" | "c")
                && set.as_str() == "set"
            {
                let mut k = 0;
                while let Some(word) = pairs.get(k) {
                    let (key, value) = if let Some((key, value)) = word.split_once('=') {
                        (key, Some(value.to_owned()))
                    } else {
                        k += 1;
                        (word.as_str(), pairs.get(k).map(|v| (*v).clone()))
                    };
                    k += 1;
                    let Some(value) = value else {
                        continue;
                    };
                    match key {
                        "script-shell" | "shell" | "git" | "editor" | "browser" => {
                            push("config set", Some(shell_quote(&value)));
                        }
                        "init-module" | "init.module" => {
                            push("config set", Some(format!("node {}", shell_quote(&value))));
                        }
                        "node-options" => {
                            push(
                                "config set",
                                super::words::value_script("NODE_OPTIONS", &value),
                            );
                        }
                        _ => {}
                    }
                }
            }
        }
        "make" | "gmake" | "bmake" => {
            for a in args.iter().take_while(|a| *a != "--") {
                // `make SHELL=prog`, `make CC=prog`: a variable given on the command line
                // names a program the rules run.
                let Some((var, v)) = a.split_once('=') else {
                    continue;
                };
                let var = var.trim_end_matches([':', ':', '+', '?', '!']);
                // The value is a command line, as make's rules put it in front of their
                // words (`make CC='sh g.txt'` runs `sh g.txt -o hello hello.c`).
                if matches!(var, "SHELL" | "MAKESHELL") || super::words::runs_value(var) {
                    push(&format!("{var}="), Some(v.to_owned()));
                }
            }
        }
        // `sort --compress-program=prog`: runs the program on its temporary files (and
        // with `-d` to read them back).
        "sort" | "gsort" => {
            // What it is handed is the sorted text of its files: a shell or interpreter
            // there runs their lines.
            let files: Vec<&String> = args
                .iter()
                .filter(|a| !a.starts_with('-') && !a.contains('='))
                .take(8)
                .collect();
            for v in values(&[], &["--compress-program"]) {
                let v = v.strip_prefix('=').unwrap_or(&v).to_owned();
                if files.is_empty() {
                    push("--compress-program", Some(v));
                } else {
                    let runs: Vec<String> = files
                        .iter()
                        .map(|f| format!("{v} < {}", shell_quote(f)))
                        .collect();
                    push("--compress-program", Some(runs.join("; ")));
                }
            }
        }
        // `gcc -B dir`: the assembler, linker and compiler passes are run from `dir`.
        "gcc" | "cc" | "g++" | "c++" | "clang" | "clang++" | "gfortran" => {
            let dirs: Vec<String> = args
                .iter()
                .enumerate()
                .filter_map(|(k, a)| match a.as_str() {
                    "-B" => args.get(k + 1).cloned(),
                    _ => a
                        .strip_prefix("-B")
                        .filter(|d| !d.is_empty())
                        .map(str::to_owned),
                })
                .take(8)
                .collect();
            for d in dirs {
                let d = d.trim_end_matches('/');
                let d = if d.is_empty() { "." } else { d };
                push("-B", Some(format!("{d}/as; {d}/ld; {d}/collect2")));
            }
        }
        "cargo" => {
            // `cargo watch -s 'cmd'`: a command line run on every change.
            if args.first().is_some_and(|a| a == "watch") {
                for v in values(&["-s"], &["--shell"]) {
                    push("watch -s", Some(v));
                }
            }
            for v in values(&[], &["--config"]) {
                let Some((key, value)) = v.split_once('=') else {
                    continue;
                };
                let key = key.trim().to_ascii_lowercase();
                let runs = matches!(
                    key.as_str(),
                    "build.rustc-wrapper"
                        | "build.rustc-workspace-wrapper"
                        | "build.rustc"
                        | "build.rustdoc"
                ) || (key.starts_with("target.")
                    && (key.ends_with(".runner") || key.ends_with(".linker")));
                if runs {
                    let value = value.trim().trim_matches(['"', '\'']);
                    push("--config", Some(shell_quote(value)));
                }
                // `--config 'build.rustflags=["-C", "linker=w.sh"]'`: the linker named.
                if key.ends_with("rustflags") || key.ends_with("rustdocflags") {
                    let words: Vec<&str> = value
                        .split([',', '[', ']', ' '])
                        .map(|w| w.trim().trim_matches(['"', '\'']))
                        .filter(|w| !w.is_empty())
                        .collect();
                    for linker in super::linkers_in(&words) {
                        push("--config", Some(linker));
                    }
                }
            }
            // `cargo rustc -- -C linker=w.sh`: flags for rustc itself.
            if matches!(args.first().map(String::as_str), Some("rustc" | "rustdoc"))
                && let Some(dashes) = args.iter().position(|a| a == "--")
            {
                let words: Vec<&str> = args[dashes + 1..].iter().map(String::as_str).collect();
                for linker in super::linkers_in(&words) {
                    push("--", Some(linker));
                }
            }
        }
        // `rustc -C linker=w.sh x.rs`: the linker it runs.
        "rustc" => {
            let words: Vec<&str> = args.iter().map(String::as_str).collect();
            for linker in super::linkers_in(&words) {
                push("-C linker", Some(linker));
            }
        }
        "go" => {
            for v in values(&["-toolexec", "-exec"], &["--toolexec", "--exec"]) {
                push(
                    "-toolexec",
                    Some(v.strip_prefix('=').unwrap_or(&v).to_owned()),
                );
            }
        }
        "zip" => {
            for v in values(&["-TT"], &["--unzip-command"]) {
                push("-TT", Some(v));
            }
        }
        "rsync" => {
            for v in values(&["-e"], &["--rsh"]) {
                push("-e", Some(v));
            }
        }
        "ssh" | "scp" | "sftp" | "sshfs" => {
            // `scp -S prog`, `sftp -S prog`: the program run in place of ssh.
            if matches!(name, "scp" | "sftp") {
                for v in values(&["-S"], &[]) {
                    push("-S", Some(v));
                }
            }
            for v in values(&["-o"], &[]) {
                let (key, value) = match v.split_once(['=', ' ']) {
                    Some((k, v)) => (k.trim(), v.trim()),
                    None => continue,
                };
                if ["proxycommand", "localcommand", "knownhostscommand"]
                    .contains(&key.to_ascii_lowercase().as_str())
                {
                    push(&format!("-o {key}"), Some(value.to_owned()));
                }
            }
        }
        "ncat" | "nc" | "netcat" => {
            for v in values(&["-e", "-c"], &["--exec", "--sh-exec"]) {
                push("-e", Some(v));
            }
        }
        "screen" => {
            if let Some(k) = args.iter().position(|a| a == "-X")
                && let Some(verb) = args.get(k + 1)
            {
                let rest = args.get(k + 2..).unwrap_or(&[]);
                match verb.as_str() {
                    "stuff" => push("-X stuff", Some(typed(&rest.join(" ")))),
                    "exec" | "screen" => push("-X exec", run_words(rest)),
                    _ => {}
                }
            }
        }
        "xdotool" => {
            if let Some(k) = args.iter().position(|a| a == "type") {
                let text: Vec<&str> = args[k + 1..]
                    .iter()
                    .map(String::as_str)
                    .filter(|w| !w.starts_with("--"))
                    .collect();
                push("type", Some(typed(&text.join(" "))));
            }
        }
        "prlimit" | "cgexec" | "sshpass" | "bwrap" => {
            let j = match name {
                "cgexec" => skip_options(argv, 1, "g", &[]),
                "sshpass" => skip_options(argv, 1, "pfdP", &[]),
                "bwrap" => skip_bwrap_options(argv, 1),
                _ => skip_options(argv, 1, "p", &["pid"]),
            };
            // `bwrap --chdir dir cmd`: the command starts in that folder.
            let cd = if name == "bwrap" {
                values(&[], &["--chdir"])
                    .last()
                    .map(|d| format!("cd {} && ", shell_quote(d)))
                    .unwrap_or_default()
            } else {
                String::new()
            };
            push(
                "",
                argv.get(j..)
                    .and_then(|w| (!w.is_empty()).then(|| format!("{cd}{}", quoted_line(w)))),
            );
        }
        _ if TERMINALS.contains(&name) => {
            let at = args.iter().position(|a| {
                matches!(
                    a.as_str(),
                    "-e" | "-x" | "--" | "--command" | "--execute" | "-E" | "--exec"
                ) || a.starts_with("--command=")
                    || a.starts_with("-e=")
            });
            match at {
                Some(k) => {
                    let word = args[k].as_str();
                    if let Some(v) = word
                        .strip_prefix("--command=")
                        .or_else(|| word.strip_prefix("-e="))
                    {
                        push("-e", Some(v.to_owned()));
                    } else if matches!(word, "--" | "-x" | "--execute") {
                        push(
                            word,
                            run_words(&args[k + 1..]).map(|_| quoted_line(&args[k + 1..])),
                        );
                    } else {
                        push(word, run_words(&args[k + 1..]));
                    }
                }
                None if matches!(name, "kitty" | "foot" | "wezterm" | "ghostty") => {
                    // `kitty [options] cmd …`, `wezterm start [options] cmd …`.
                    let from = if name == "wezterm" {
                        match args.iter().position(|a| a == "start") {
                            Some(k) => k + 2,
                            None => return out,
                        }
                    } else {
                        1
                    };
                    let j = skip_options(
                        argv,
                        from,
                        "ocdTtaWwfDLsC",
                        &[
                            "title",
                            "config",
                            "override",
                            "directory",
                            "session",
                            "class",
                            "name",
                            "listen-on",
                            "start-as",
                            "watcher",
                            "cwd",
                            "domain",
                            "workspace",
                            "position",
                            "term",
                            "app-id",
                            "font",
                            "working-directory",
                            "log-level",
                        ],
                    );
                    if let Some(words) = argv.get(j..).filter(|w| !w.is_empty()) {
                        push("", Some(quoted_line(words)));
                    }
                }
                None => {}
            }
        }
        _ => {}
    }
    out
}

/// Skips `bwrap`'s options, which take up to two values each; the index of its command.
fn skip_bwrap_options(argv: &[String], start: usize) -> usize {
    let mut j = start;
    while let Some(arg) = argv.get(j) {
        if arg == "--" {
            return j + 1;
        }
        let Some(option) = arg.strip_prefix("--") else {
            break;
        };
        let values = match option {
            "bind" | "ro-bind" | "dev-bind" | "bind-try" | "ro-bind-try" | "dev-bind-try"
            | "symlink" | "setenv" | "file" | "bind-data" | "ro-bind-data" | "chmod" => 2,
            "chdir" | "tmpfs" | "proc" | "dev" | "dir" | "remount-ro" | "unsetenv" | "uid"
            | "gid" | "hostname" | "seccomp" | "exec-label" | "file-label" | "lock-file"
            | "sync-fd" | "info-fd" | "json-status-fd" | "block-fd" | "userns-block-fd"
            | "userns" | "userns2" | "pidns" | "cap-add" | "cap-drop" | "perms" | "size"
            | "args" | "argv0" | "mqueue" | "overlay-src" | "tmp-overlay" | "ro-overlay" => 1,
            "overlay" => 3,
            _ => 0,
        };
        j += 1 + values;
    }
    j
}

/// Whether the command just recorded was peeled off `parallel`.
fn command_prefixes_parallel(commands: &[SimpleCommand]) -> bool {
    commands
        .last()
        .is_some_and(|c| c.prefixes.iter().any(|p| p == "parallel"))
}

/// Wrappers and what a simple command is left with once they are peeled off.
struct Peeled {
    argv: Vec<String>,
    prefixes: Vec<String>,
    /// The words before peeling, when anything was peeled.
    original: Option<Vec<String>>,
    sudo: bool,
    /// Wrappers were still left after [`MAX_PREFIXES`] were peeled.
    exhausted: bool,
}

fn peel_prefixes(mut args: Vec<String>) -> Peeled {
    let mut start = 0;
    let mut prefixes = Vec::new();
    let mut original = None;
    let mut sudo = false;
    let mut exhausted = false;
    for round in 0..=MAX_PREFIXES {
        let Some(first) = args.get(start) else { break };
        if round == MAX_PREFIXES {
            // More wrappers than are peeled: what runs is not known.
            exhausted = true;
            break;
        }
        let name = basename(first);
        let mut elevated = false;
        let mut split = None;
        let next = match name {
            "sudo" => {
                elevated = true;
                let j = skip_options(
                    &args,
                    start + 1,
                    "ugpCDrtUTRh",
                    &[
                        "user",
                        "group",
                        "prompt",
                        "close-from",
                        "chdir",
                        "role",
                        "type",
                        "other-user",
                        "command-timeout",
                        "chroot",
                        "host",
                    ],
                );
                let j = skip_assignments(&args, j);
                // `sudo -s 'cmd'`, `sudo -i cmd`: the words run by the user's shell.
                let shell = args[start + 1..j.min(args.len())].iter().any(|a| {
                    a == "--shell"
                        || a == "--login"
                        || short_cluster(a).is_some_and(|f| f.contains('s') || f.contains('i'))
                });
                if shell && j < args.len() {
                    split = Some(args[j..].join(" "));
                    args.len()
                } else {
                    j
                }
            }
            // `screen -dmS name cmd…`: the command runs in a new window.
            "screen" => {
                if args[start + 1..].iter().any(|a| a == "-X") {
                    break; // `screen -X stuff text`: a command to a running session
                }
                skip_options(&args, start + 1, "SceEhpTtl", &[])
            }
            "doas" => {
                elevated = true;
                skip_options(&args, start + 1, "uC", &[])
            }
            "env" => {
                let (mut j, value) = skip_env_options(&args, start + 1);
                split = value;
                // env takes any word holding `=` for a variable, whatever its name
                // (`BASH_FUNC_cd%%=() { …; }`).
                while args
                    .get(j)
                    .is_some_and(|a| a.find('=').is_some_and(|k| k > 0))
                {
                    j += 1;
                }
                j
            }
            "command" => {
                if has_flag(&args[start + 1..], "vV", &[]) {
                    break; // `command -v rm` describes rm, it does not run it
                }
                skip_options(&args, start + 1, "", &[])
            }
            "builtin" | "nohup" | "setsid" => skip_options(&args, start + 1, "", &[]),
            // `daemonize [-c dir] [-o file] … /path/prog args…`: prog runs detached.
            "daemonize" => skip_options(&args, start + 1, "ceElopru", &[]),
            // `podman unshare CMD`: CMD runs on this machine's files, in a user namespace.
            "podman" | "buildah" if args.get(start + 1).is_some_and(|a| a == "unshare") => {
                skip_options(&args, start + 2, "", &[])
            }
            "exec" => skip_options(&args, start + 1, "a", &[]),
            "nice" => skip_options(&args, start + 1, "n", &["adjustment"]),
            "time" => skip_options(&args, start + 1, "fo", &["format", "output"]),
            "timeout" => skip_options(&args, start + 1, "sk", &["signal", "kill-after"]) + 1,
            "xargs" => skip_options(
                &args,
                start + 1,
                "IdELnPsa",
                &[
                    "arg-file",
                    "delimiter",
                    "max-args",
                    "max-procs",
                    "max-chars",
                    "process-slot-var",
                ],
            ),
            "stdbuf" => skip_options(&args, start + 1, "ioe", &["input", "output", "error"]),
            "ionice" => skip_options(&args, start + 1, "cn", &["class", "classdata"]),
            "busybox" | "toybox" | "unbuffer" | "catchsegv" | "proxychains" | "proxychains4"
            | "torsocks" | "tsocks" | "fakeroot" | "dbus-run-session" | "dbus-launch" | "bunx" => {
                skip_options(&args, start + 1, "", &[])
            }
            // `proot -r rootfs -b /x cmd…`, `xvfb-run -a -s '…' cmd…`, `valgrind cmd…`.
            "proot" => skip_options(&args, start + 1, "rbwqkm", &["rootfs", "bind", "cwd"]),
            "xvfb-run" => skip_options(
                &args,
                start + 1,
                "nsefpw",
                &[
                    "server-num",
                    "server-args",
                    "error-file",
                    "auth-file",
                    "wait",
                ],
            ),
            "valgrind" => skip_options(&args, start + 1, "", &[]),
            // `gdb --args prog …`: the debugger runs the program with its words.
            "gdb" | "cgdb" | "gdb-multiarch" => {
                let Some(at) = args[start + 1..].iter().position(|a| a == "--args") else {
                    break;
                };
                start + 1 + at + 1
            }
            // `sg group 'cmd'`, `sg group -c 'cmd'`: the command line runs in a shell.
            "sg" => {
                let rest = &args[start + 1..];
                let script = match rest {
                    [_, c, script, ..] if c == "-c" => Some(script),
                    [_, script, ..] if !script.starts_with('-') => Some(script),
                    _ => None,
                };
                let Some(script) = script else {
                    break;
                };
                split = Some(script.clone());
                args.len()
            }
            // `entr -s 'script'` hands its argument to a shell; otherwise it runs its words.
            "entr" => {
                let j = skip_options(&args, start + 1, "", &[]);
                if args[start + 1..j.min(args.len())]
                    .iter()
                    .any(|a| short_cluster(a).is_some_and(|f| f.contains('s')))
                    && let Some(script) = args.get(j)
                {
                    split = Some(script.clone());
                    j + 1
                } else {
                    j
                }
            }
            // `socat - EXEC:'cmd',pty` and `SYSTEM:'script'`: an address that runs a program.
            "socat" => {
                let Some(run) = args[start + 1..].iter().find_map(|a| socat_program(a)) else {
                    break;
                };
                split = Some(run);
                args.len()
            }
            // Package runners: `uvx tool`, `pipx run tool`, `uv run cmd`, `uv tool run tool`,
            // `npx tool`, `npm exec -- tool`, `pnpm dlx tool`, `yarn dlx tool`; `npx -c
            // 'script'` and `npm exec -c 'script'` hand a script to a shell.
            "uvx" => skip_options(&args, start + 1, "pw", &UV_RUN_VALUES),
            "pipx" if args.get(start + 1).is_some_and(|a| a == "run") => skip_options(
                &args,
                start + 2,
                "",
                &["spec", "python", "pip-args", "index-url"],
            ),
            "uv" => {
                let run_at = match args.get(start + 1).map(String::as_str) {
                    Some("run") => start + 2,
                    Some("tool") if args.get(start + 2).is_some_and(|a| a == "run") => start + 3,
                    _ => break,
                };
                skip_options(&args, run_at, "pw", &UV_RUN_VALUES)
            }
            "npx" | "npm" | "pnpm" | "yarn" => {
                let sub = if name == "npx" { start } else { start + 1 };
                if name != "npx"
                    && !args
                        .get(sub)
                        .is_some_and(|a| matches!(a.as_str(), "exec" | "dlx" | "x"))
                {
                    break;
                }
                let j = skip_options(&args, sub + 1, "pc", &["package", "call"]);
                let call = args[sub + 1..j.min(args.len())]
                    .windows(2)
                    .find(|w| w[0] == "-c" || w[0] == "--call")
                    .map(|w| w[1].clone());
                if let Some(call) = call {
                    split = Some(call);
                    args.len()
                } else {
                    j
                }
            }
            // Environment runners: `bundle exec cmd`, `poetry run cmd`, `pipenv run cmd`,
            // `pdm run`, `rye run`, `hatch run`, `pixi run`, `conda run -n env cmd`.
            "bundle" | "poetry" | "pipenv" | "pdm" | "rye" | "hatch" | "pixi" | "conda"
            | "mamba" | "micromamba" => {
                let verb = if name == "bundle" { "exec" } else { "run" };
                if args.get(start + 1).is_none_or(|a| a != verb) {
                    break;
                }
                skip_options(
                    &args,
                    start + 2,
                    "npe",
                    &["name", "prefix", "environment", "env"],
                )
            }
            "pkexec" => {
                elevated = true;
                skip_options(&args, start + 1, "", &["user"])
            }
            "runuser" => {
                elevated = true;
                if has_flag(&args[start + 1..], "c", &["command"]) {
                    break; // `runuser -l user -c script`: the script is unwrapped later
                }
                skip_options(&args, start + 1, "ugG", &["user", "group", "supp-group"])
            }
            "chroot" => {
                elevated = true;
                skip_options(&args, start + 1, "", &["userspec", "groups"]) + 1
            }
            "strace" | "ltrace" => skip_options(
                &args,
                start + 1,
                "abeEIoOpPsSuUX",
                &["output", "signal", "trace", "attach", "user", "env"],
            ),
            "flock" => {
                let j = skip_options(&args, start + 1, "wE", &["timeout", "conflict-exit-code"]);
                let command_option = |a: &String| {
                    a == "-c"
                        || a.starts_with("--command")
                        || short_cluster(a).is_some_and(|f| f.ends_with('c'))
                };
                // `flock file -c script`, `flock -c script file`: the script is unwrapped
                // later.
                if args
                    .get(start + 1..=j + 1)
                    .is_some_and(|a| a.iter().any(command_option))
                    || args.get(j + 1).is_some_and(command_option)
                {
                    break;
                }
                j + 1
            }
            "taskset" => {
                if has_flag(&args[start + 1..], "p", &["pid"]) {
                    break;
                }
                skip_options(&args, start + 1, "", &[]) + 1
            }
            "chrt" => skip_options(&args, start + 1, "T", &["sched-runtime"]) + 1,
            "numactl" => skip_options(
                &args,
                start + 1,
                "CmNpP",
                &[
                    "cpunodebind",
                    "membind",
                    "physcpubind",
                    "preferred",
                    "interleave",
                ],
            ),
            "caffeinate" => skip_options(&args, start + 1, "tw", &[]),
            // `systemd-run -t`: a terminal, no value.
            "systemd-run" => skip_options(
                &args,
                start + 1,
                "puEHM",
                &[
                    "unit",
                    "property",
                    "setenv",
                    "host",
                    "machine",
                    "description",
                    "slice",
                    "uid",
                    "gid",
                    "nice",
                    "working-directory",
                ],
            ),
            "unshare" | "nsenter" | "setpriv" | "firejail" => skip_options(
                &args,
                start + 1,
                "tSGpuCw",
                &[
                    "target", "setuid", "setgid", "uid", "gid", "unit", "property",
                ],
            ),
            "parallel" => skip_options(
                &args,
                start + 1,
                "jSNnIdaEX",
                &[
                    "jobs", "sshlogin", "max-args", "delay", "halt", "arg-file", "joblog",
                    "results", "tmpdir", "workdir",
                ],
            ),
            _ => break,
        };
        let name = name.to_owned();
        if let Some(script) = split {
            // `env -S 'cmd args'` splits its value into the command's words.
            let mut words = split_words(&script);
            words.extend(args.get(next..).unwrap_or(&[]).iter().cloned());
            if words.is_empty() {
                break;
            }
            original.get_or_insert_with(|| args.clone());
            prefixes.push(name);
            args = words;
            start = 0;
            continue;
        }
        if next >= args.len() {
            break; // a wrapper with nothing to run is the command itself
        }
        original.get_or_insert_with(|| args.clone());
        sudo |= elevated;
        prefixes.push(name);
        start = next;
    }
    args.drain(..start.min(args.len()));
    // `parallel sh -c ::: 'script'`, `parallel rm -rf ::: a b`: the arguments after
    // `:::` are appended to the command parallel was given.
    // `parallel rm -rf :::: list`: the arguments are read from files (judged where the
    // files are known, as `xargs -a`'s are).
    if prefixes.last().is_some_and(|p| p == "parallel")
        && let Some(at) = args.iter().position(|a| a.starts_with(":::"))
        && at > 0
    {
        let from_files = args[at].starts_with("::::");
        let given: Vec<String> = args[at + 1..]
            .iter()
            .take_while(|a| !a.starts_with(":::") && !from_files)
            .cloned()
            .collect();
        args.truncate(at);
        // `parallel nagger {} ::: uninstall`: the argument stands where `{}` does.
        if args.iter().any(|a| a.contains("{}")) {
            let first = given.first().cloned().unwrap_or_default();
            for a in &mut args {
                *a = a.replace("{}", &first);
            }
        } else {
            args.extend(given);
        }
    }
    // `parallel 'rm -rf {}' ::: a`, `seq 1 | parallel 'git clean -fdx && make'`: a
    // command word that holds spaces or shell syntax is a line parallel hands its shell.
    if prefixes.last().is_some_and(|p| p == "parallel")
        && args.first().is_some_and(|a| {
            a.contains(|c: char| c.is_whitespace() || "|&;<>()$`\\\"'*?[]~{}".contains(c))
                && a != "{}"
        })
    {
        let line = args.join(" ");
        // Words alone (`'git clean -fdx'`, `'dropdb {}'`) are the command's words; shell
        // syntax makes it a line for the shell.
        args = if line.contains(|c: char| "|&;<>()$`\\\"'".contains(c)) {
            vec!["sh".into(), "-c".into(), line]
        } else {
            split_words(&line)
        };
    }
    // `hub push -f`: hub is git with GitHub's commands added, and runs git's as git does.
    if args
        .first()
        .is_some_and(|a| a == "hub" || a.ends_with("/hub"))
    {
        args[0] = "git".into();
    }
    if let Some(equal) = same_as_core_utility(&args) {
        args = equal;
    }
    Peeled {
        argv: args,
        prefixes,
        original,
        sudo,
        exhausted,
    }
}

/// The core utility command a command is another spelling of: `nuke D` (busybox's,
/// klibc's) is `rm -rf -- D`; `perl -MExtUtils::Command -e rm_rf D` is `rm -rf -- D`,
/// and the module's `rm_f`, `mv`, `cp`, `touch`, `mkpath`, `chmod`, `eqtime` and
/// `dos2unix` the programs they copy.
fn same_as_core_utility(args: &[String]) -> Option<Vec<String>> {
    let with = |head: &[&str], rest: &[String]| -> Vec<String> {
        head.iter()
            .map(|h| (*h).to_owned())
            .chain(rest.iter().cloned())
            .collect()
    };
    let name = args.first().map(|a| super::basename(a))?;
    if name == "nuke" {
        return Some(with(&["rm", "-rf", "--"], &args[1..]));
    }
    if !name.starts_with("perl") {
        return None;
    }
    args[1..].iter().position(|a| {
        a.strip_prefix("-M")
            .map(str::trim_start)
            .is_some_and(|m| m == "ExtUtils::Command" || m.starts_with("ExtUtils::Command="))
    })?;
    let e = args[1..]
        .iter()
        .position(|a| a == "-e" || a == "-E")
        .map(|k| k + 1)?;
    let func = args.get(e + 1)?.trim().trim_end_matches(';').trim();
    let func = func.strip_suffix("()").unwrap_or(func);
    let mut rest = &args[e + 2..];
    if rest.first().is_some_and(|a| a == "--") {
        rest = &rest[1..];
    }
    Some(match func {
        "rm_rf" => with(&["rm", "-rf", "--"], rest),
        "rm_f" => with(&["rm", "-f", "--"], rest),
        "mv" => with(&["mv", "--"], rest),
        "cp" => with(&["cp", "--"], rest),
        "touch" => with(&["touch", "--"], rest),
        "mkpath" => with(&["mkdir", "-p", "--"], rest),
        "chmod" => with(&["chmod"], rest),
        "eqtime" => with(&["touch", "-r"], rest),
        "dos2unix" => with(&["dos2unix", "--"], rest),
        "cat" => with(&["cat", "--"], rest),
        "test_f" | "test_d" => with(&["test", "-e"], rest),
        _ => return None,
    })
}

/// Skip `env`'s options; returns the next index and the value of `-S`/`--split-string`.
fn skip_env_options(args: &[String], start: usize) -> (usize, Option<String>) {
    let mut split = None;
    let mut j = start;
    while let Some(arg) = args.get(j) {
        if arg == "--" {
            return (j + 1, split);
        }
        if arg == "-" {
            j += 1;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if let Some(value) = long.strip_prefix("split-string=") {
                split = Some(value.to_owned());
                j += 1;
            } else if long == "split-string" {
                split = args.get(j + 1).cloned();
                j += 2;
            } else if matches!(long, "unset" | "chdir") {
                j += 2;
            } else {
                j += 1;
            }
            continue;
        }
        let Some(flags) = short_cluster(arg) else {
            break;
        };
        for (pos, flag) in flags.char_indices() {
            let rest = &flags[pos + flag.len_utf8()..];
            if flag == 'S' {
                if rest.is_empty() {
                    split = args.get(j + 1).cloned();
                    j += 1;
                } else {
                    split = Some(rest.to_owned());
                }
                break;
            }
            if matches!(flag, 'u' | 'C') {
                if rest.is_empty() {
                    j += 1;
                }
                break;
            }
        }
        j += 1;
    }
    (j, split)
}

/// The script of `sh -c 'script' [name args…]` (any shell, any flag spelling such as
/// `bash -lc`), with the words after it: `$0`, `$1` … of the script.
pub fn shell_c_script(argv: &[String]) -> Option<(&str, &[String])> {
    let mut c_mode = false;
    let mut j = 1;
    while let Some(arg) = argv.get(j) {
        if arg == "--" || arg == "-" {
            j += 1;
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if let Some(script) = long.strip_prefix("command=") {
                return Some((script, argv.get(j + 1..).unwrap_or(&[])));
            }
            if long == "command" {
                let script = argv.get(j + 1)?;
                return Some((script, argv.get(j + 2..).unwrap_or(&[])));
            }
            j += if matches!(long, "rcfile" | "init-file") {
                2
            } else {
                1
            };
            continue;
        }
        let Some(flags) = arg
            .strip_prefix('-')
            .or_else(|| arg.strip_prefix('+'))
            .filter(|f| !f.is_empty())
        else {
            break;
        };
        c_mode |= flags.contains('c');
        j += if flags.ends_with(['o', 'O']) { 2 } else { 1 };
    }
    if c_mode {
        let script = argv.get(j)?;
        Some((script, argv.get(j + 1..).unwrap_or(&[])))
    } else {
        None
    }
}

/// `script` with its positional parameters (`$1`, `"$@"`, `${2}`, `$*`) replaced by the
/// words it is given after its name (`bash -c '"$@"' _ rm -rf /` runs `rm -rf /`), each
/// quoted as one word. Unchanged when it names none or is given none.
pub fn with_positional(script: &str, params: &[String]) -> String {
    fill_positional(script, params, false)
}

/// `script` with its own name filled in where it asks for it (`$0`, `${BASH_SOURCE[0]}`),
/// the script run as `name`: `cd "$(dirname "$0")"` then leads somewhere known. Other
/// parameters are left as they are.
pub fn with_script_name(script: &str, name: &str) -> String {
    fill_positional(script, &[name.to_owned()], true)
}

fn fill_positional(script: &str, params: &[String], only_name: bool) -> String {
    let Some((_, args)) = params.split_first() else {
        return script.to_owned();
    };
    if !script.contains('$') {
        return script.to_owned();
    }
    // An argument that is only known as the outer line runs (`bash x.sh "$X"` after
    // `X=$(…)`) stands as a value computed then, not as its own text.
    let computed: Vec<bool> = args.iter().map(|a| only_known_when_run(a)).collect();
    let quoted: Vec<String> = args
        .iter()
        .zip(&computed)
        .map(|(a, c)| {
            if *c {
                format!("\"{COMPUTED_PARAMETER}\"")
            } else {
                shell_quote(a)
            }
        })
        .collect();
    let all = quoted.join(" ");
    let bytes = script.as_bytes();
    let mut out = String::with_capacity(script.len() + all.len());
    let mut i = 0;
    let (mut single, mut double) = (false, false);
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'\\' && !single {
            let end = script.ceil_char_boundary((i + 2).min(bytes.len()));
            out.push_str(&script[i..end]);
            i = end;
            continue;
        }
        match c {
            // Single quotes keep `$1` as it is, unless inside double quotes.
            b'\'' if !double => single = !single,
            b'"' if !single => double = !double,
            _ => {}
        }
        if c == b'$' && !single {
            // `$@`, `$*`, `$1`, `${1}`, `${@}`: which parameter, and how long its spelling.
            let rest = &script[i + 1..];
            let (which, len) = if let Some(inner) = rest.strip_prefix('{') {
                match inner.find('}') {
                    Some(end) if end > 0 => (&inner[..end], end + 2),
                    _ => ("", 0),
                }
            } else if rest.starts_with("BASH_SOURCE")
                && !rest[11..]
                    .starts_with(|c: char| c == '_' || c == '[' || c.is_ascii_alphanumeric())
            {
                ("BASH_SOURCE", 11)
            } else {
                match rest.chars().next() {
                    Some(p) if p == '@' || p == '*' || p.is_ascii_digit() => (&rest[..1], 1),
                    _ => ("", 0),
                }
            };
            // The script's own name, by bash's array of sourced files too.
            let which = match which {
                "BASH_SOURCE" | "BASH_SOURCE[0]" => "0",
                _ if only_name && which != "0" => "",
                other => other,
            };
            let value = match which {
                "@" | "*" => Some(all.clone()),
                n if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                    let k: usize = n.parse().unwrap_or(usize::MAX);
                    if k == 0 {
                        Some(shell_quote(&params[0]))
                    } else {
                        Some(quoted.get(k - 1).cloned().unwrap_or_default())
                    }
                }
                _ => None,
            };
            if let Some(value) = value {
                // `"$1"` becomes `'value'`: the double quotes around it go.
                let in_double = out.ends_with('"') && script[i + 1 + len..].starts_with('"');
                if in_double {
                    out.pop();
                    out.push_str(&value);
                    double = false;
                    i += 2 + len;
                } else if double {
                    // Inside double quotes: the words as they are, quotes escaped.
                    let raw = match which {
                        "@" | "*" => args.join(" "),
                        n => match n.parse::<usize>().unwrap_or(usize::MAX) {
                            0 => params[0].clone(),
                            k => args.get(k - 1).cloned().unwrap_or_default(),
                        },
                    };
                    let computed_here = match which {
                        "@" | "*" => computed.iter().any(|c| *c),
                        n => n
                            .parse::<usize>()
                            .ok()
                            .and_then(|k| k.checked_sub(1))
                            .is_some_and(|k| computed.get(k) == Some(&true)),
                    };
                    if computed_here {
                        out.push_str(COMPUTED_PARAMETER);
                        i += 1 + len;
                        continue;
                    }
                    for ch in raw.chars() {
                        if matches!(ch, '"' | '$' | '`' | '\\') {
                            out.push('\\');
                        }
                        out.push(ch);
                    }
                    i += 1 + len;
                } else {
                    out.push_str(&value);
                    i += 1 + len;
                }
                continue;
            }
        }
        let ch = script[i..].chars().next().unwrap_or(' ');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// What a parameter only known as the outer line runs stands as in the script it is
/// handed to: a command substitution nagger cannot work out.
const COMPUTED_PARAMETER: &str = "$(nagger-computed-parameter)";

/// Whether the word `arg` holds an expansion only known as the line runs: a command
/// substitution, or a variable the environment nagger shares with the agent's shell does
/// not hold (one the line sets, most likely).
fn only_known_when_run(arg: &str) -> bool {
    if arg.contains("$(") || arg.contains('`') {
        return true;
    }
    let mut rest = arg;
    while let Some(at) = rest.find('$') {
        let after = &rest[at + 1..];
        let name: String = after
            .trim_start_matches('{')
            .chars()
            .take_while(|c| *c == '_' || c.is_ascii_alphanumeric())
            .collect();
        let positional = name.chars().next().is_some_and(|c| c.is_ascii_digit());
        if !name.is_empty() && !positional && std::env::var_os(&name).is_none() {
            return true;
        }
        rest = after;
    }
    false
}

/// What git runs besides itself: a command line or an argv.
enum GitRun {
    Shell(String),
    Argv(Vec<String>),
}

/// The hook a clone or init from the template folder `dir` runs at once.
fn template_hook(dir: &str) -> GitRun {
    GitRun::Argv(vec![format!(
        "{}/hooks/post-checkout",
        dir.trim_end_matches('/')
    )])
}

/// Configuration keys whose value git runs as a command line.
fn git_key_runs(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    let last = key.rsplit('.').next().unwrap_or(&key);
    key.starts_with("alias.")
        || key.starts_with("filter.")
        || key.starts_with("diff.") && matches!(last, "external" | "textconv" | "command")
        || key.starts_with("difftool.") && last == "cmd"
        || key.starts_with("mergetool.") && last == "cmd"
        || key.starts_with("merge.") && last == "driver"
        || key.starts_with("credential") && last == "helper"
        // `remote.<name>.uploadpack`: the program run for `git fetch <name>` (through the
        // shell for a local remote); `browser.<tool>.cmd`, `man.<tool>.cmd`: viewers.
        || key.starts_with("remote.") && matches!(last, "uploadpack" | "receivepack")
        || (key.starts_with("browser.") || key.starts_with("man.")) && last == "cmd"
        || key.starts_with("sendemail.")
            && matches!(last, "tocmd" | "cccmd" | "headercmd" | "sendmailcmd")
        // `tar.<format>.command`: the filter `git archive` pipes through; `trailer.<t>.cmd`
        // and `guitool.<t>.cmd`: commands git runs for them.
        || key.starts_with("tar.") && last == "command"
        || key.starts_with("trailer.") && matches!(last, "cmd" | "command")
        || key.starts_with("guitool.") && last == "cmd"
        || matches!(
            key.as_str(),
            "core.sshcommand"
                | "core.alternaterefscommand"
                | "instaweb.httpd"
                | "core.pager"
                | "core.editor"
                | "core.fsmonitor"
                | "core.askpass"
                | "core.gitproxy"
                | "sequence.editor"
                | "gpg.program"
                | "gpg.ssh.program"
                | "gpg.x509.program"
                | "gpg.ssh.defaultkeycommand"
                | "interactive.difffilter"
                | "imap.tunnel"
                | "uploadpack.packobjectshook"
                | "ssh.variant"
                | "pager.log"
                | "pager.diff"
                | "pager.show"
        )
        || key.starts_with("pager.")
}

/// How git runs the value of `key`: an alias without `!` is a git command of its own.
/// The file a `trace2.*Target` setting (`key` in lower case) has git write to: a path,
/// not a descriptor number, a boolean or a socket.
pub fn trace_target<'v>(key: &str, value: &'v str) -> Option<&'v str> {
    let target = key.starts_with("trace2.") && key.ends_with("target");
    let plain = !value.is_empty()
        && !value.bytes().all(|b| b.is_ascii_digit())
        && !matches!(
            value.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off"
        )
        && !value.starts_with("af_unix:");
    (target && plain).then_some(value)
}

fn git_value_run(key: &str, value: &str) -> Option<GitRun> {
    let lower = key.to_ascii_lowercase();
    // `url.<base>.insteadOf`: URLs are rewritten to `<base>`; an `ext::` base is a
    // command line git runs as the transport (`ext::sh x #` for every `https://…`).
    if lower.starts_with("url.")
        && (lower.ends_with(".insteadof") || lower.ends_with(".pushinsteadof"))
        && let Some(base) = key.get(4..key.rfind('.')?)
    {
        return base
            .get(..5)
            .filter(|p| p.eq_ignore_ascii_case("ext::"))
            .map(|_| GitRun::Shell(base[5..].replace("%%", "%")));
    }
    // `remote.<name>.url = ext::cmd`: the transport is a command line.
    if lower.starts_with("remote.")
        && matches!(lower.rsplit('.').next(), Some("url" | "pushurl"))
        && value
            .get(..5)
            .is_some_and(|p| p.eq_ignore_ascii_case("ext::"))
    {
        return Some(GitRun::Shell(value[5..].replace("%%", "%")));
    }
    // `submodule.<name>.update = !cmd`: run at `git submodule update`.
    if lower.starts_with("submodule.") && lower.ends_with(".update") {
        return value.strip_prefix('!').map(|s| GitRun::Shell(s.to_owned()));
    }
    // `remote.<name>.vcs = x`: git runs `git-remote-x` for the remote.
    if lower.starts_with("remote.") && lower.rsplit('.').next() == Some("vcs") && !value.is_empty()
    {
        return Some(GitRun::Argv(vec![
            "git".to_owned(),
            format!("remote-{value}"),
        ]));
    }
    // `trace2.eventTarget = /path`: every git command appends its trace to that file, as
    // a redirection would.
    if let Some(file) = trace_target(&lower, value) {
        return Some(GitRun::Shell(format!(": >> {}", super::shell_quote(file))));
    }
    // `init.templateDir`: the template's hooks are copied in and run at the next init.
    if lower == "init.templatedir" && !value.is_empty() {
        return Some(template_hook(value));
    }
    if !git_key_runs(key) {
        return None;
    }
    if let Some(script) = value.strip_prefix('!') {
        return Some(GitRun::Shell(script.to_owned()));
    }
    if lower.starts_with("alias.") {
        let mut run = vec!["git".to_owned()];
        run.extend(super::lexer::split_words(value));
        return Some(GitRun::Argv(run));
    }
    if lower.starts_with("credential") {
        // A helper given by an absolute path runs as written; one by name is
        // `git credential-<name> <args>` (`store --file=F` writes `F`).
        if value.starts_with('/') {
            return Some(GitRun::Shell(value.to_owned()));
        }
        let words = super::lexer::split_words(value);
        let (first, rest) = words.split_first()?;
        let mut run = vec!["git".to_owned(), format!("credential-{first}")];
        run.extend(rest.iter().cloned());
        return Some(GitRun::Argv(run));
    }
    if matches!(value, "true" | "false" | "0" | "1" | "") && lower == "core.fsmonitor" {
        return None;
    }
    Some(GitRun::Shell(value.to_owned()))
}

/// The command lines a git configuration text makes git run (`[alias] x = !cmd`, `[core]
/// fsmonitor = cmd`, filters, pagers, helpers …), as written into `.git/config` or a
/// `.gitconfig`. A fragment without its section (an edit of a few lines) is read with
/// the section each line could belong to: any value starting with `!`, and the values of
/// keys that run commands wherever they stand.
pub fn git_config_runs(text: &str) -> Vec<String> {
    git_config_commands(text)
        .into_iter()
        .map(|(_, script)| script)
        .collect()
}

/// [`git_config_runs`] with the key (`section.name`, lower case) each command line is the
/// value of.
pub fn git_config_commands(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut section: Option<String> = None;
    for line in text.lines().take(4096) {
        let line = line.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        let mut line = line;
        if let Some(header) = line.strip_prefix('[') {
            let (header, after) = header.split_once(']').unwrap_or((header, ""));
            let header = header.trim();
            // `[diff "tool"]` → `diff.tool`; `[alias]` → `alias`.
            let (name, sub) = match header.split_once(char::is_whitespace) {
                Some((name, sub)) => (name, Some(sub.trim().trim_matches('"'))),
                None => (header, None),
            };
            section = Some(match sub {
                Some(sub) => format!("{}.{sub}", name.to_ascii_lowercase()),
                None => name.to_ascii_lowercase(),
            });
            // `[alias] s = !cmd`: a key may follow its header on the same line.
            line = after.trim();
            if line.is_empty() || line.starts_with(['#', ';']) {
                continue;
            }
        }
        let (key, value) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => continue,
        };
        let value = value.trim_matches('"');
        let candidates: Vec<String> = match &section {
            Some(section) => vec![format!("{section}.{key}")],
            None => [
                "alias",
                "core",
                "diff.x",
                "filter.x",
                "credential",
                "sequence",
                "gpg",
            ]
            .iter()
            .map(|s| format!("{s}.{key}"))
            .collect(),
        };
        for full in candidates {
            match git_value_run(&full, value) {
                Some(GitRun::Shell(script)) => {
                    out.push((full.to_ascii_lowercase(), script));
                    break;
                }
                Some(GitRun::Argv(argv)) if !full.starts_with("alias.") || section.is_some() => {
                    out.push((
                        full.to_ascii_lowercase(),
                        argv.iter()
                            .map(|w| super::shell_quote(w))
                            .collect::<Vec<_>>()
                            .join(" "),
                    ));
                    break;
                }
                _ => {}
            }
        }
    }
    out
}

/// The command lines and commands `git <args>` runs: values of `-c key=value` and of
/// `git config key value` that git runs (aliases with `!`, `core.sshCommand`, filters,
/// pagers …), `git bisect run`, `git rebase --exec`, `git submodule foreach`,
/// `git filter-branch` filters, `git difftool --extcmd`.
fn git_scripts(argv: &[String]) -> Vec<(String, GitRun)> {
    let mut out = Vec::new();
    let mut i = 1;
    // `git -c alias.s='!cmd' s args`: the alias runs with the arguments after it.
    let mut aliases: Vec<(String, String)> = Vec::new();
    // `git -c alias.co=checkout co HEAD~2`: git's own command, with the arguments after.
    let mut plain: Vec<(String, String)> = Vec::new();
    while let Some(arg) = argv.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        if arg == "-c" {
            if let Some((key, value)) = argv.get(i + 1).and_then(|kv| kv.split_once('='))
                && let Some(run) = git_value_run(key, value)
            {
                if let Some(name) = key
                    .get(..6)
                    .filter(|p| p.eq_ignore_ascii_case("alias."))
                    .map(|_| &key[6..])
                {
                    match value.strip_prefix('!') {
                        Some(script) => aliases.push((name.to_owned(), script.to_owned())),
                        None => plain.push((name.to_owned(), value.to_owned())),
                    }
                }
                out.push((format!("git -c {key}"), run));
            }
            // `git -c init.templateDir=DIR clone …`: the template's hooks run.
            if let Some((key, dir)) = argv.get(i + 1).and_then(|kv| kv.split_once('='))
                && key.eq_ignore_ascii_case("init.templateDir")
                && !dir.is_empty()
            {
                out.push((format!("git -c {key}"), template_hook(dir)));
            }
            i += 2;
            continue;
        }
        i += if matches!(
            arg.as_str(),
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env" | "--exec-path"
        ) {
            2
        } else {
            1
        };
    }
    let Some(sub) = argv.get(i) else {
        return out;
    };
    let rest = &argv[i + 1..];
    if let Some((_, script)) = aliases.iter().rev().find(|(name, _)| name == sub) {
        let args: Vec<String> = rest.iter().map(|a| super::words::shell_quote(a)).collect();
        out.push((
            format!("git alias `{sub}`"),
            GitRun::Shell(format!("{script} {}", args.join(" "))),
        ));
    } else if let Some((_, value)) = plain.iter().rev().find(|(name, _)| name == sub) {
        let mut run: Vec<String> = argv[..i].to_vec();
        run.extend(super::lexer::split_words(value));
        run.extend(rest.iter().cloned());
        out.push((format!("git alias `{sub}`"), GitRun::Argv(run)));
    }
    // Options whose value is a command git runs through the shell: the other side of a
    // transport (`--upload-pack`, `--receive-pack`, `--exec`, `clone -u`), and the pager
    // `git grep -O` opens the matching files with.
    for (k, a) in rest.iter().enumerate() {
        let (key, attached) = match a.split_once('=') {
            Some((key, value)) if key.starts_with("--") => (key, Some(value.to_owned())),
            _ => (a.as_str(), None),
        };
        let runs = matches!(key, "--upload-pack" | "--receive-pack" | "--exec")
            || (sub == "clone" && key == "-u")
            || (sub == "grep" && key == "--open-files-in-pager")
            || (sub == "send-email"
                && matches!(
                    key,
                    "--to-cmd" | "--cc-cmd" | "--header-cmd" | "--sendmail-cmd"
                ))
            || (sub == "instaweb" && matches!(key, "--httpd" | "-d"));
        let value = if runs {
            attached.clone().or_else(|| rest.get(k + 1).cloned())
        } else if sub == "grep" && a.starts_with("-O") && a.len() > 2 {
            Some(a[2..].to_owned())
        } else {
            None
        };
        if let Some(script) = value.filter(|v| !v.is_empty()) {
            out.push((format!("git {sub} {key}"), GitRun::Shell(script)));
        }
        // `git clone --template=DIR`, `git init --template DIR`: the template's hooks are
        // copied in and run (`post-checkout` at once).
        if matches!(sub.as_str(), "clone" | "init") && key == "--template" {
            let dir = attached.or_else(|| rest.get(k + 1).cloned());
            if let Some(dir) = dir.filter(|d| !d.is_empty()) {
                out.push((format!("git {sub} --template"), template_hook(&dir)));
            }
        }
    }
    match sub.as_str() {
        "config" => {
            let words: Vec<&String> = rest
                .iter()
                .filter(|a| !a.starts_with('-'))
                .skip_while(|a| matches!(a.as_str(), "set" | "add"))
                .collect();
            let value_of = |k: usize| words.get(k + 1).map(|v| v.as_str());
            for (k, key) in words.iter().enumerate() {
                if let Some(value) = value_of(k)
                    && let Some(run) = git_value_run(key, value)
                {
                    out.push((format!("git config {key}"), run));
                    break;
                }
            }
        }
        "bisect" if rest.first().is_some_and(|a| a == "run") && rest.len() > 1 => {
            out.push(("git bisect run".into(), GitRun::Argv(rest[1..].to_vec())));
        }
        "rebase" => {
            for (k, a) in rest.iter().enumerate() {
                let script = if a == "-x" || a == "--exec" {
                    rest.get(k + 1).cloned()
                } else if let Some(v) = a.strip_prefix("--exec=") {
                    Some(v.to_owned())
                } else {
                    a.strip_prefix("-x")
                        .filter(|v| !v.is_empty())
                        .map(str::to_owned)
                };
                if let Some(script) = script {
                    out.push(("git rebase --exec".into(), GitRun::Shell(script)));
                }
            }
        }
        "submodule" => {
            if let Some(k) = rest.iter().position(|a| a == "foreach") {
                let words: Vec<String> = rest[k + 1..]
                    .iter()
                    .skip_while(|a| a.starts_with("--"))
                    .cloned()
                    .collect();
                if !words.is_empty() {
                    out.push((
                        "git submodule foreach".into(),
                        GitRun::Shell(words.join(" ")),
                    ));
                }
            }
        }
        "filter-branch" | "difftool" | "mergetool" => {
            for (k, a) in rest.iter().enumerate() {
                let runs = a.ends_with("-filter") || matches!(a.as_str(), "-x" | "--extcmd");
                if runs && let Some(script) = rest.get(k + 1) {
                    out.push((format!("git {sub} {a}"), GitRun::Shell(script.clone())));
                } else if let Some(v) = a.strip_prefix("--extcmd=") {
                    out.push((format!("git {sub} --extcmd"), GitRun::Shell(v.to_owned())));
                }
            }
        }
        _ => {}
    }
    out
}

/// Index of the first operand at or after `start`, skipping options. Short options in
/// `short_values` take a value (attached or the next word); so do the long options in
/// `long_values` unless written `--name=value`.
fn skip_options(args: &[String], start: usize, short_values: &str, long_values: &[&str]) -> usize {
    let mut j = start;
    while let Some(arg) = args.get(j) {
        if arg == "--" {
            return j + 1;
        }
        if let Some(long) = arg.strip_prefix("--") {
            j += if !long.contains('=') && long_values.contains(&long) {
                2
            } else {
                1
            };
            continue;
        }
        let Some(flags) = short_cluster(arg) else {
            break;
        };
        for (pos, flag) in flags.char_indices() {
            if short_values.contains(flag) {
                if pos + flag.len_utf8() == flags.len() {
                    j += 1;
                }
                break;
            }
        }
        j += 1;
    }
    j
}

/// Long options of `uv run`, `uv tool run` and `uvx` that take a value as the next word
/// (those only some of them take are harmless to skip for the others).
const UV_RUN_VALUES: [&str; 12] = [
    "from",
    "with",
    "python",
    "with-requirements",
    "index-url",
    "index",
    "group",
    "extra",
    "package",
    "directory",
    "project",
    "env-file",
];

/// The program a socat address runs: `EXEC:cmd args` and `SYSTEM:script` (address
/// options follow a comma).
fn socat_program(address: &str) -> Option<String> {
    let (kind, rest) = address.split_once(':')?;
    if !(kind.eq_ignore_ascii_case("exec") || kind.eq_ignore_ascii_case("system")) {
        return None;
    }
    let program = rest.split(',').next().unwrap_or(rest).trim();
    (!program.is_empty()).then(|| program.to_owned())
}

/// `NAME=value` as a word of text (after `env`, `sudo`).
fn is_assignment_text(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(name, _)| is_assignment_name(name.as_bytes()))
}

fn skip_assignments(args: &[String], mut j: usize) -> usize {
    while args.get(j).is_some_and(|a| is_assignment_text(a)) {
        j += 1;
    }
    j
}
