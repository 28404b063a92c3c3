//! Wrappers: commands that run another command. Prefixes such as `sudo`, `env`, `timeout`
//! and `xargs` are peeled off a simple command's words; scripts handed to a shell or to
//! `eval`, `watch`, `su -c`, `ssh` and `find -exec` are parsed as commands of their own.

use super::command::{SimpleCommand, Via};
use super::lexer::split_words;
use super::limits::MAX_DEPTH;
use super::parser::{Context, Io, Parser, parse_script};
use super::words::{
    basename, has_flag, is_assignment_name, is_shell, reads_program_from_stdin, short_cluster,
};

/// Most wrapper prefixes peeled off one simple command.
const MAX_PREFIXES: usize = 32;

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
        // A bare redirection (`> file`) truncates its file as `: > file` does.
        let argv = if argv.is_empty() && !io.writes_to.is_empty() {
            vec![":".to_owned()]
        } else {
            argv
        };
        if argv.is_empty() || self.out.full() {
            return None;
        }
        let peeled = peel_prefixes(argv);
        if peeled.argv.is_empty() {
            return None;
        }
        let sudo = ctx.sudo || peeled.sudo;
        let command = SimpleCommand {
            argv: peeled.argv,
            prefixes: peeled.prefixes,
            prefixed: peeled.original,
            sudo,
            via: ctx.via.clone(),
            pipeline,
            stage,
            writes_to: io.writes_to,
            reads_from: io.reads_from,
            substitutions: io.substitutions,
            computed: io.computed,
            stdin_texts: io.stdin_texts,
        };
        let name = command.name().to_owned();
        let runs_scripts = is_shell(&name)
            || matches!(
                name.as_str(),
                "eval" | "watch" | "su" | "runuser" | "flock" | "sg" | "find" | "ssh"
            );
        let argv = if runs_scripts {
            command.argv.clone()
        } else {
            Vec::new()
        };
        self.out.commands.push(command);
        if !runs_scripts {
            return None;
        }

        let inner = |how: String| ctx.within(Via::Script(how), sudo);
        if is_shell(&name) {
            if let Some(script) = shell_c_script(&argv) {
                let ctx = inner(format!("{name} -c"));
                parse_script(script.as_bytes(), depth + 1, &ctx, self.out);
            } else if reads_program_from_stdin(&argv) {
                let mut elevated = ctx.clone();
                elevated.sudo = sudo;
                return Some((elevated, name));
            }
            return None;
        }
        match name.as_str() {
            "eval" => {
                let script = argv[1..].join(" ");
                parse_script(script.as_bytes(), depth + 1, &inner(name), self.out);
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
            "find" if depth < MAX_DEPTH => {
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
            _ => {}
        }
        None
    }
}

/// Wrappers and what a simple command is left with once they are peeled off.
struct Peeled {
    argv: Vec<String>,
    prefixes: Vec<String>,
    /// The words before peeling, when anything was peeled.
    original: Option<Vec<String>>,
    sudo: bool,
}

fn peel_prefixes(mut args: Vec<String>) -> Peeled {
    let mut start = 0;
    let mut prefixes = Vec::new();
    let mut original = None;
    let mut sudo = false;
    for _ in 0..MAX_PREFIXES {
        let Some(first) = args.get(start) else { break };
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
                skip_assignments(&args, j)
            }
            "doas" => {
                elevated = true;
                skip_options(&args, start + 1, "uC", &[])
            }
            "env" => {
                let (j, value) = skip_env_options(&args, start + 1);
                split = value;
                skip_assignments(&args, j)
            }
            "command" => {
                if has_flag(&args[start + 1..], "vV", &[]) {
                    break; // `command -v rm` describes rm, it does not run it
                }
                skip_options(&args, start + 1, "", &[])
            }
            "builtin" | "nohup" | "setsid" => skip_options(&args, start + 1, "", &[]),
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
            "busybox" | "unbuffer" | "catchsegv" | "proxychains" | "proxychains4" | "torsocks"
            | "tsocks" | "fakeroot" => skip_options(&args, start + 1, "", &[]),
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
                if args
                    .get(j + 1)
                    .is_some_and(|a| a == "-c" || a.starts_with("--command"))
                {
                    break; // `flock file -c script`: the script is unwrapped later
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
            "unshare" | "nsenter" | "setpriv" | "firejail" | "systemd-run" => skip_options(
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
    Peeled {
        argv: args,
        prefixes,
        original,
        sudo,
    }
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

/// The script of `sh -c 'script'` (any shell, any flag spelling such as `bash -lc`).
fn shell_c_script(argv: &[String]) -> Option<&str> {
    let mut c_mode = false;
    let mut j = 1;
    while let Some(arg) = argv.get(j) {
        if arg == "--" || arg == "-" {
            j += 1;
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if let Some(script) = long.strip_prefix("command=") {
                return Some(script);
            }
            if long == "command" {
                return argv.get(j + 1).map(String::as_str);
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
        argv.get(j).map(String::as_str)
    } else {
        None
    }
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
