//! Containers reaching host paths through bind mounts. `docker|podman|nerdctl run|create`
//! (and `exec` into a container the line itself started, and `docker compose run`) are
//! read as the engine reads them: its options (which take a value), the image, and the
//! command after it. The host folders the container is given to write (`-v SRC:DST`,
//! `--mount type=bind,…`; read-only mounts and named volumes write nothing on the host)
//! are resolved from the folder the line runs in, and the command run in the container is
//! parsed as shell (an `sh -c` script too, its `cd`s followed from `-w`). Each path it
//! names inside a mount is put back as the host path it is, and the command is judged by
//! self-protection as if it ran on the host. A container given a folder holding nagger's
//! files, running a command nagger cannot read (the image's own command, code it cannot
//! resolve, a program read from standard input) is asked about. `docker cp`, `podman cp`
//! and `kubectl cp` write their host-side destination, judged like `cp`.

use std::cell::Cell;
use std::io::Read;

use super::super::code::{self, Effect};
use super::super::finding::Finding;
use super::super::finding::operands;
use super::super::paths::{Cwd, here_and_home, normalize, resolve};
use super::super::shell::{self, SimpleCommand, basename, has_flag, shell_quote};
use crate::base::files;
use std::path::{Path, PathBuf};

/// What containers need of self-protection, handed over by it: the place the line runs
/// in and its judgments.
pub(super) struct Host<'a> {
    /// The project root, which relative paths start from.
    pub(super) root: &'a Path,
    /// The commands of the line being checked, when known (the containers it starts).
    pub(super) line: Option<&'a [SimpleCommand]>,
    /// Whether a path is one of nagger's by name alone.
    pub(super) protected: &'a dyn Fn(&str) -> bool,
    /// What a path is, when it is one of nagger's (lexically or through links on disk).
    pub(super) judge: &'a dyn Fn(&str) -> Option<&'static str>,
    /// Whether a folder holds nagger's files or Claude Code's settings.
    pub(super) holds: &'a dyn Fn(&str) -> bool,
    /// Self-protection's finding on a command run from a folder (`None`: not known).
    pub(super) command: &'a dyn Fn(&SimpleCommand, Option<&str>) -> Option<Finding>,
    /// The archive a command unpacks (`None`: standard input) and where to.
    pub(super) unpacks: &'a dyn Fn(&SimpleCommand) -> Option<Unpacked>,
    /// The refusal of a harm.
    pub(super) refuse: &'a dyn Fn(&str) -> Finding,
}

/// An archive unpacked (`None`: from standard input) and the folder it lands in.
pub(super) type Unpacked = (Option<String>, String);

/// Where a resolved path lies on disk: from the project root when relative.
fn on_disk(host: &Host, path: &str) -> Option<PathBuf> {
    if path.contains(['$', '`']) {
        return None;
    }
    match path.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            Some(PathBuf::from(std::env::var_os("HOME")?).join(rest.trim_start_matches('/')))
        }
        Some(_) => None,
        None => Some(host.root.join(path)),
    }
}

/// The folder after a container command's `cd` (or `pushd`/`popd`, which are not
/// followed): `~` is root's home.
fn step(cwd: &Cwd, command: &SimpleCommand) -> Cwd {
    match command.name() {
        "cd" | "chdir" => {}
        "pushd" | "popd" => return Cwd::Unknown,
        _ => return cwd.clone(),
    }
    let args: Vec<&String> = command
        .args()
        .iter()
        .filter(|a| !a.starts_with('-'))
        .collect();
    let Some(dir) = args.first() else {
        return Cwd::Known("/root".into());
    };
    if dir.contains(['$', '`']) {
        return Cwd::Unknown;
    }
    let dir = match dir.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("/root{rest}"),
        _ => (*dir).clone(),
    };
    match resolve(cwd, &dir) {
        Some(path) => Cwd::Known(normalize(&path)),
        None => Cwd::Unknown,
    }
}

/// Container engines whose `run`, `create`, `exec` and `cp` are read.
const ENGINES: &[&str] = &["docker", "podman", "nerdctl"];
/// Compose front ends whose `run` is read.
const COMPOSERS: &[&str] = &["docker-compose", "podman-compose", "nerdctl-compose"];
/// Where a container path that reaches no host folder is put: an absolute path that
/// names nothing on the host.
const NOWHERE: &str = "/\u{1}container";
/// Containers inside containers, and code inside code, followed this deep.
const MAX_DEPTH: usize = 4;
/// Most commands of one container command line judged.
const MAX_COMMANDS: usize = 64;
/// Most program files of one container command read from the host.
const MAX_FILES: usize = 8;
/// The most of a program file that is read (what was read is judged).
const MAX_FILE: u64 = 256 << 10;

/// Short options of `run`, `create`, `exec` and `compose run` that take a value.
const SHORT_VALUED: &str = "acehlmpuvw";
/// Long options of `run`, `create`, `exec` and `compose run` (docker, podman, nerdctl)
/// that take a value when not written `--name=value`.
const LONG_VALUED: &[&str] = &[
    "add-host",
    "annotation",
    "arch",
    "attach",
    "authfile",
    "blkio-weight",
    "blkio-weight-device",
    "cap-add",
    "cap-drop",
    "cert-dir",
    "cgroup-conf",
    "cgroup-parent",
    "cgroupns",
    "cgroups",
    "chrootdirs",
    "cidfile",
    "conmon-pidfile",
    "cpu-count",
    "cpu-percent",
    "cpu-period",
    "cpu-quota",
    "cpu-rt-period",
    "cpu-rt-runtime",
    "cpu-shares",
    "cpus",
    "cpuset-cpus",
    "cpuset-mems",
    "creds",
    "decryption-key",
    "detach-keys",
    "device",
    "device-cgroup-rule",
    "device-read-bps",
    "device-read-iops",
    "device-write-bps",
    "device-write-iops",
    "dns",
    "dns-opt",
    "dns-option",
    "dns-search",
    "domainname",
    "entrypoint",
    "env",
    "env-file",
    "env-from-file",
    "expose",
    "gidmap",
    "gpus",
    "group-add",
    "group-entry",
    "health-cmd",
    "health-interval",
    "health-on-failure",
    "health-retries",
    "health-start-interval",
    "health-start-period",
    "health-startup-cmd",
    "health-startup-interval",
    "health-startup-retries",
    "health-startup-success",
    "health-startup-timeout",
    "health-timeout",
    "hostname",
    "hostuser",
    "init-path",
    "io-maxbandwidth",
    "io-maxiops",
    "ip",
    "ip6",
    "ipc",
    "isolation",
    "kernel-memory",
    "label",
    "label-file",
    "link",
    "link-local-ip",
    "log-driver",
    "log-opt",
    "mac-address",
    "memory",
    "memory-reservation",
    "memory-swap",
    "memory-swappiness",
    "mount",
    "name",
    "net",
    "net-alias",
    "network",
    "network-alias",
    "oom-score-adj",
    "os",
    "passwd-entry",
    "personality",
    "pid",
    "pidfile",
    "pids-limit",
    "platform",
    "pod",
    "pod-id-file",
    "preserve-fds",
    "publish",
    "pull",
    "rdt-class",
    "requires",
    "restart",
    "retry",
    "retry-delay",
    "runtime",
    "sdnotify",
    "seccomp-policy",
    "secret",
    "security-opt",
    "shm-size",
    "shm-size-systemd",
    "stop-signal",
    "stop-timeout",
    "storage-opt",
    "subgidname",
    "subuidname",
    "sysctl",
    "timeout",
    "tmpfs",
    "tz",
    "uidmap",
    "ulimit",
    "umask",
    "unsetenv",
    "user",
    "userns",
    "uts",
    "variant",
    "volume",
    "volume-driver",
    "volumes-from",
    "workdir",
];

/// Options of the engine itself, before its subcommand, that take a value.
const GLOBAL_VALUED: &[&str] = &[
    "-H",
    "--host",
    "-c",
    "--context",
    "--config",
    "-l",
    "--log-level",
    "--tlscacert",
    "--tlscert",
    "--tlskey",
    "--root",
    "--runroot",
    "--url",
    "--connection",
    "--storage-driver",
    "--storage-opt",
    "--cgroup-manager",
    "--events-backend",
    "--runtime",
    "--tmpdir",
    "--identity",
    "--module",
    "-n",
    "--namespace",
    "--address",
    "-a",
    "--snapshotter",
    "--data-root",
    "--cni-path",
    "--cni-netconfpath",
];

/// Options of `docker compose` before its subcommand that take a value.
const COMPOSE_VALUED: &[&str] = &[
    "-f",
    "--file",
    "-p",
    "--project-name",
    "--profile",
    "--env-file",
    "--project-directory",
    "--ansi",
    "--progress",
    "--parallel",
];

/// A host folder given to a container.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mount {
    /// Where the container sees it: an absolute, normalised path.
    target: String,
    /// The host path: absolute, `~/…`, or holding `$` when only known as the shell runs.
    source: String,
    /// Not mounted read-only.
    writable: bool,
}

/// A container command line as the engine reads it.
#[derive(Debug, Default)]
struct Invocation {
    /// `docker run`, `podman exec` …, for messages.
    verb: String,
    mounts: Vec<Mount>,
    /// `-w`: where the command runs in the container (`None`: the image's own folder).
    workdir: Option<String>,
    entrypoint: Option<String>,
    name: Option<String>,
    interactive: bool,
    /// The image (`run`, `create`), container (`exec`) or service (`compose run`).
    subject: Option<String>,
    /// The words after it: the command (or the entrypoint's arguments).
    command: Vec<String>,
    /// `exec`: the container runs already; its mounts are those of a `run` or `create`
    /// earlier in the line that named it, if any.
    exec: bool,
    /// `-e NAME=VALUE`: what the command's environment holds, as written.
    env: Vec<(String, String)>,
    /// `--volumes-from C`: mounts taken from another container.
    volumes_from: Option<String>,
}

/// The paths `command`, a container engine or `cp` out of one, writes on the host through
/// the folders it gives a container, judged by self-protection.
/// `cwd`: the folder the line runs in (relative to the root, absolute or `~/…`), `None`
/// when only known as the shell runs.
pub(super) fn reached(command: &SimpleCommand, cwd: Option<&str>, scope: &Host) -> Option<Finding> {
    let cwd = cwd.map_or(Cwd::Unknown, |dir| Cwd::Known(dir.to_owned()));
    reached_at(command, &cwd, scope, 0)
}

fn reached_at(command: &SimpleCommand, cwd: &Cwd, scope: &Host, depth: usize) -> Option<Finding> {
    if depth > MAX_DEPTH {
        return None;
    }
    let name = command.name();
    if !ENGINES.contains(&name) && !COMPOSERS.contains(&name) && name != "kubectl" {
        return None;
    }
    if let Some((source, dest)) = copied_out(command) {
        return copy_out(source, dest, cwd, scope);
    }
    if let Some(dest) = copied_in(command) {
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "copies into `{dest}` in a container, a path with the name of nagger's own \
                 files or Claude Code's settings: the container may have the project's \
                 folder mounted there"
            ),
            "Copy into another path of the container, or check its mounts first \
             (`docker inspect`).",
        ));
    }
    if let Some(found) = volume_bound(command, cwd, scope) {
        return Some(found);
    }
    let mut run = invocation(command, cwd, scope)?;
    if run.exec {
        run.mounts = started_earlier(command, &run, cwd, scope)?;
    }
    // `-e X=v`: the container's command sees the value (`sh -c 'rm -rf /w/$X'`).
    let filled = |word: &String| {
        let mut word = word.clone();
        for (name, value) in &run.env {
            for spelled in [format!("${{{name}}}"), format!("${name}")] {
                word = word.replace(&spelled, value);
            }
        }
        word
    };
    run.command = run.command.iter().map(filled).collect();
    if let Some(from) = &run.volumes_from {
        // Mounts taken from another container, which nagger cannot see: a command naming
        // nagger's files may reach them there.
        let named = run.command.iter().any(|w| {
            w.split_whitespace()
                .any(|part| (scope.protected)(part.trim_matches(['\'', '"', ';'])))
        });
        if named {
            return Some(Finding::ask(
                "guard:self-protect-unsure",
                format!(
                    "runs a command naming nagger's own files or Claude Code's settings in a \
                     container given the mounts of `{from}`, which nagger cannot see"
                ),
                "Give the container its mounts yourself (`-v`), read-only where it only reads.",
            ));
        }
    }
    let writable: Vec<&Mount> = run.mounts.iter().filter(|m| m.writable).collect();
    if writable.is_empty() {
        return None;
    }
    let reaches = writable.iter().any(|m| reaches_protected(m, scope));
    let files = Cell::new(MAX_FILES);
    let container = Container {
        mounts: &run.mounts,
        scope,
        verb: &run.verb,
        reaches,
        depth,
        files: &files,
    };
    let mut argv: Vec<String> = Vec::new();
    match run.entrypoint.as_deref() {
        Some(entry) if !entry.is_empty() => {
            // `--entrypoint '/bin/sh -c'` is one word to docker: the program only.
            argv.push(entry.to_owned());
            argv.extend(run.command.iter().cloned());
        }
        _ => argv.extend(run.command.iter().cloned()),
    }
    if argv.is_empty() {
        if !reaches {
            return None;
        }
        let subject = run.subject.as_deref().unwrap_or("the image");
        return Some(container.unsure(&format!(
            "runs `{subject}`'s own command, which nagger cannot see"
        )));
    }
    let workdir = match run.workdir.as_deref() {
        None => Cwd::Known("/".into()),
        Some(w) if w.starts_with('/') && !w.contains(['$', '`']) => Cwd::Known(normalize(w)),
        Some(_) => Cwd::Unknown,
    };
    let line = argv
        .iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ");
    if let Some(found) = container.line(&line, workdir.clone()) {
        return Some(found);
    }
    // A shell or interpreter reading its program from standard input: a here-document
    // given to the engine is read; a pipe or a file handed on by `-i` is not seen.
    if shell::reads_program_from_stdin(&argv) {
        if !command.stdin_texts.is_empty() {
            let program = basename(&argv[0]);
            for text in &command.stdin_texts {
                let found = if shell::is_shell(program) {
                    container.line(text, workdir.clone())
                } else {
                    container.code(text, &workdir)
                };
                if found.is_some() {
                    return found;
                }
            }
        } else if run.interactive
            && reaches
            && (command.stage > 0 || !command.reads_from.is_empty())
        {
            return Some(container.unsure(&format!(
                "runs `{}` on a program handed to it on standard input, which nagger cannot see",
                argv[0]
            )));
        }
    }
    None
}

/// What a container command works with: its mounts and the guard's scope.
struct Container<'a, 'b> {
    mounts: &'a [Mount],
    scope: &'a Host<'b>,
    verb: &'a str,
    /// A writable mount holds nagger's files or Claude Code's settings.
    reaches: bool,
    depth: usize,
    /// Program files left to read from the host for this container.
    files: &'a Cell<usize>,
}

impl Container<'_, '_> {
    /// The finding for a container command nagger cannot read.
    fn unsure(&self, what: &str) -> Finding {
        let given: Vec<String> = self
            .mounts
            .iter()
            .filter(|m| m.writable)
            .map(|m| format!("`{}`", m.source))
            .collect();
        Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "{what}, in a container (`{}`) given {} to write, which holds nagger's own \
                 files or Claude Code's settings",
                self.verb,
                given.join(", ")
            ),
            "Mount a folder that holds none of them, mount it read-only (`:ro`), or spell \
             the command out.",
        )
    }

    /// Each command of the shell line `line`, run in the container from `workdir`.
    fn line(&self, line: &str, workdir: Cwd) -> Option<Finding> {
        let parsed = shell::parse(line);
        let mut folder = workdir;
        for command in parsed.commands.iter().take(MAX_COMMANDS) {
            let here = container_dir(&folder);
            folder = step(&here, command);
            if let Some(found) = self.command(command, &here) {
                return Some(found);
            }
        }
        None
    }

    /// One command run in the container from `here`, judged as the host sees it.
    fn command(&self, command: &SimpleCommand, here: &Cwd) -> Option<Finding> {
        let name = command.name();
        let interpreter = shell::is_interpreter(name) && !shell::is_shell(name);
        let mut run = command.clone();
        let mut code = Vec::new();
        if interpreter {
            // The code is read here, its paths put back as the host sees them.
            if let Some(text) = shell::inline_code(&run.argv)
                && let Some(k) = run.argv.iter().position(|a| holds_str(a, text))
            {
                code.push(text.to_owned());
                run.argv[k] = "0".into();
            }
            code.append(&mut run.stdin_texts);
        }
        let host = self.host_dir(here);
        let map = |word: &str| self.word(word, here);
        let mut argv = vec![run.argv[0].clone()];
        for word in &run.argv[1..] {
            argv.extend(map(word));
        }
        run.argv = argv;
        for list in [&mut run.writes_to, &mut run.appends_to, &mut run.reads_from] {
            *list = list.iter().flat_map(|w| map(w)).collect();
        }
        if let Some(prefixed) = &mut run.prefixed {
            *prefixed = prefixed.iter().flat_map(|w| map(w)).collect();
        }
        let judged = self
            .judged(&run, &host)
            .or_else(|| self.removes_holder(&run, &host));
        if let Some(found) = judged.or_else(|| self.unseen_input(&run, &host)) {
            return Some(self.inside(command, &found));
        }
        // A word the container's shell computes (`rm -rf $(echo x)`, `rm -rf $X`) where a
        // mount holds nagger's files: were it one of them, would the command change it?
        if self.reaches && matches!(host, Cwd::Known(_)) {
            let computed: Vec<usize> = (1..command.argv.len())
                .filter(|&k| command.computed.contains(&command.argv[k]))
                .collect();
            if let Some(&k) = computed.first()
                && command.argv.len() == run.argv.len()
            {
                let mut probe = run.clone();
                for &j in &computed {
                    probe.argv[j] = ".claude-nagger".into();
                }
                if self.judged(&probe, &host).is_some() {
                    return Some(self.unsure(&format!(
                        "runs `{}`, whose `{}` is only known when the container's shell runs",
                        command.display(),
                        command.argv[k]
                    )));
                }
            }
        }
        if let Some(found) = code.iter().find_map(|text| self.code(text, here)) {
            return Some(found);
        }
        self.program_file(command, here)
    }

    /// The program file a shell or interpreter runs in the container (`sh /w/x.sh`,
    /// `python3 tool.py`): read from the host when a mount holds it, and judged as the
    /// container runs it (as with a project's own scripts, what it leaves unresolved is
    /// not asked about); one only in the image, where nagger's files are mounted, is.
    fn program_file(&self, command: &SimpleCommand, here: &Cwd) -> Option<Finding> {
        let at = shell::program_file(&command.argv)?;
        let file = command.argv[at].as_str();
        let inside = match here {
            _ if file.contains(['$', '`']) => None,
            _ if file.starts_with('/') => Some(normalize(file)),
            Cwd::Known(dir) if !file.starts_with('~') => Some(normalize(&format!("{dir}/{file}"))),
            _ => None,
        };
        let Some(Place::Host(host) | Place::ReadOnly(host)) =
            inside.and_then(|path| self.mapped(&path))
        else {
            return self.reaches.then(|| {
                self.unsure(&format!(
                    "runs `{file}`, a program in the container nagger cannot see"
                ))
            });
        };
        let left = self.files.get();
        if left == 0 || self.depth >= MAX_DEPTH {
            return None;
        }
        self.files.set(left - 1);
        let text = on_disk(self.scope, &host).and_then(|path| {
            let file = files::open_regular(&path).ok()?;
            let mut text = Vec::new();
            file.take(MAX_FILE).read_to_end(&mut text).ok()?;
            Some(String::from_utf8_lossy(&text).into_owned())
        })?;
        let quiet = Container {
            reaches: false,
            depth: self.depth + 1,
            ..*self
        };
        let found = if shell::is_shell(command.name()) {
            quiet.line(&text, here.clone())
        } else {
            quiet.code(&text, here)
        }?;
        Some(Finding {
            harm: format!("runs `{file}` (`{host}` on the host), which {}", found.harm),
            ..found
        })
    }

    /// Self-protection's finding on `run` run on the host from `host`.
    fn judged(&self, run: &SimpleCommand, host: &Cwd) -> Option<Finding> {
        let dir = match host {
            Cwd::Known(dir) => Some(dir.as_str()),
            Cwd::Unknown => None,
        };
        (self.scope.command)(run, dir)
    }

    /// A folder holding nagger's files on the host (the project, a folder above it, a
    /// home) deleted or moved away whole by `run` (as the host sees it, from `host`):
    /// `rm -rf /w` with the project mounted at `/w`, `rm -rf /` above it.
    fn removes_holder(&self, run: &SimpleCommand, host: &Cwd) -> Option<Finding> {
        let args = run.args();
        let (verb, ops) = match run.name() {
            "rm" if has_flag(args, "rR", &["recursive"]) => ("deletes", operands(args)),
            "mv" => {
                let ops = operands(args);
                let sources = if has_flag(args, "t", &["target-directory"]) {
                    ops
                } else {
                    ops.split_last()
                        .map(|(_, r)| r.to_vec())
                        .unwrap_or_default()
                };
                ("moves away", sources)
            }
            _ => return None,
        };
        ops.into_iter()
            .filter(|op| !op.contains(['$', '`']) && !op.starts_with(NOWHERE))
            .find_map(|op| {
                let full = resolve(host, op)?;
                (self.scope.holds)(&full).then(|| {
                    (self.scope.refuse)(&format!(
                        "{verb} `{}` on the host, which holds nagger's own files and Claude \
                         Code's settings",
                        normalize(&full)
                    ))
                })
            })
    }

    /// An archive unpacked or a patch applied (`run`, as the host sees it, from `host`)
    /// that only exists in the container, where nagger's files are: what it writes
    /// cannot be read.
    fn unseen_input(&self, run: &SimpleCommand, host: &Cwd) -> Option<Finding> {
        let hidden = |word: &str| word.starts_with(NOWHERE);
        let holds = |dir: &str| resolve(host, dir).is_some_and(|d| (self.scope.holds)(&d));
        let unseen = |what: &str, dest: &str| {
            Finding::ask(
                "guard:self-protect-unsure",
                format!(
                    "{what} that exists only in the container into `{dest}`, which holds \
                     nagger's own files or Claude Code's settings, and what it writes there \
                     cannot be seen"
                ),
                "Unpack or apply it into a folder of its own, or look at it first.",
            )
        };
        if let Some((Some(archive), dest)) = (self.scope.unpacks)(run)
            && hidden(&archive)
            && holds(&dest)
        {
            return Some(unseen("unpacks an archive", &dest));
        }
        super::patches::sources(run)
            .into_iter()
            .find_map(|source| match source {
                super::patches::Source::File(file) if hidden(file) && holds(".") => {
                    Some(unseen("applies a patch", "."))
                }
                _ => None,
            })
    }

    /// Interpreter code run in the container from `here`: the files it writes put back
    /// as host paths, the command lines it runs judged in the container in turn.
    fn code(&self, text: &str, here: &Cwd) -> Option<Finding> {
        for effect in code::effects(text) {
            match effect {
                Effect::Writes(Some(path)) => {
                    let host = self.host_dir(here);
                    for mapped in self.word(&path, here) {
                        let Some(full) = resolve(&host, &mapped) else {
                            continue;
                        };
                        if let Some(what) = (self.scope.judge)(&full) {
                            return Some((self.scope.refuse)(&format!(
                                "runs code in a container (`{}`) that changes `{path}`, which \
                                 is `{full}` on the host, {what}",
                                self.verb
                            )));
                        }
                    }
                }
                Effect::Shell(line) if self.depth < MAX_DEPTH => {
                    let deeper = Container {
                        depth: self.depth + 1,
                        ..*self
                    };
                    if let Some(found) = deeper.line(&line, here.clone()) {
                        return Some(found);
                    }
                }
                Effect::Writes(None) | Effect::Unknown(_) | Effect::Shell(_) if self.reaches => {
                    return Some(self.unsure("runs code whose targets nagger cannot resolve"));
                }
                _ => {}
            }
        }
        None
    }

    /// A finding on a command the container runs, said of the container.
    fn inside(&self, command: &SimpleCommand, found: &Finding) -> Finding {
        Finding {
            check: found.check,
            advice: found.advice,
            severity: found.severity,
            outside: found.outside,
            harm: format!(
                "runs `{}` in a container (`{}`) given host folders to write: it {}",
                command.display(),
                self.verb,
                found.harm
            ),
        }
    }

    /// The host folder the container folder `here` is, as the host-side judging sees it:
    /// a folder of a writable mount, or one that names nothing on the host.
    fn host_dir(&self, here: &Cwd) -> Cwd {
        match here {
            Cwd::Known(dir) => match self.mapped(dir) {
                Some(Place::Host(host)) => Cwd::Known(host),
                _ => Cwd::Known(NOWHERE.into()),
            },
            Cwd::Unknown => Cwd::Unknown,
        }
    }

    /// Where the container path `path` (absolute, normalised) lies on the host.
    fn mapped(&self, path: &str) -> Option<Place> {
        let mount = self
            .mounts
            .iter()
            .filter(|m| under(path, &m.target))
            .max_by_key(|m| m.target.len())?;
        let rest = &path[mount.target.len()..];
        let rest = rest.trim_start_matches('/');
        let host = if rest.is_empty() {
            mount.source.clone()
        } else if mount.source == "/" {
            format!("/{rest}")
        } else {
            format!("{}/{rest}", mount.source)
        };
        Some(if mount.writable {
            Place::Host(host)
        } else {
            Place::ReadOnly(host)
        })
    }

    /// The words a word of a container command becomes on the host: a path inside a
    /// writable mount as its host path, a folder holding mounts as their host folders,
    /// any other container path as one that names nothing on the host; options, words
    /// that are no path and words kept relative to a mounted working folder unchanged.
    fn word(&self, word: &str, here: &Cwd) -> Vec<String> {
        // `--output=/w/x`, `of=/w/x`: the value is the path.
        if let Some((key, value)) = word.split_once('=')
            && value.starts_with(['/', '~'])
            && !key.is_empty()
            && key
                .trim_start_matches('-')
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            let mapped = self.word(value, here);
            return mapped.into_iter().map(|v| format!("{key}={v}")).collect();
        }
        if word.starts_with('-') || word.is_empty() || word.contains('`') {
            return vec![word.to_owned()];
        }
        // What the container's shell expands for its own folder.
        let word = match here {
            Cwd::Known(dir) => ["$PWD", "${PWD}", "$(pwd)"]
                .iter()
                .find_map(|w| {
                    word.strip_prefix(w)
                        .filter(|r| r.is_empty() || r.starts_with('/'))
                        .map(|r| format!("{dir}{r}"))
                })
                .unwrap_or_else(|| word.to_owned()),
            Cwd::Unknown => word.to_owned(),
        };
        // The container's own home.
        let word = ["$HOME", "${HOME}"]
            .iter()
            .find_map(|home| {
                word.strip_prefix(home)
                    .filter(|r| r.is_empty() || r.starts_with('/'))
                    .map(|r| format!("~{r}"))
            })
            .unwrap_or(word);
        if word.starts_with('$') {
            return vec![word];
        }
        let relative = !word.starts_with(['/', '~']);
        let inside = match word.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("/root{rest}"),
            Some(_) => return vec![word],
            None if relative => match here {
                Cwd::Known(dir) => format!("{dir}/{word}"),
                Cwd::Unknown => return vec![word],
            },
            None => word.clone(),
        };
        let path = normalize(&inside);
        let host_here = match here {
            Cwd::Known(dir) => self.mapped(dir),
            Cwd::Unknown => None,
        };
        let place = self.mapped(&path);
        if relative
            && let (Some(Place::Host(_)), Some(Place::Host(_))) = (&host_here, &place)
            && same_mount(self.mounts, here, &path)
        {
            // Resolved on the host from the mounted working folder.
            return vec![word];
        }
        match place {
            Some(Place::Host(host)) => vec![host],
            Some(Place::ReadOnly(_)) => vec![nowhere(self.scope, &path)],
            None => {
                // A folder holding mounts: what is done to all of it reaches them.
                let below: Vec<String> = self
                    .mounts
                    .iter()
                    .filter(|m| m.writable && m.target != path && under(&m.target, &path))
                    .map(|m| m.source.clone())
                    .collect();
                if !below.is_empty() {
                    return below;
                }
                let mounted_here = matches!(host_here, Some(Place::Host(_)));
                if relative && !mounted_here && !looks_protected(self.scope, &word) {
                    // Not a path for sure (`xf`, `test`): left alone, it names nothing
                    // on the host from a folder that is none.
                    return vec![word];
                }
                vec![nowhere(self.scope, &path)]
            }
        }
    }
}

/// Where a container path lies on the host.
enum Place {
    Host(String),
    /// Read from the host, but nothing written there.
    ReadOnly(String),
}

/// Whether the container folder `here` and the container path `path` lie in the same
/// mount (a relative path that climbs out of it is mapped on its own).
fn same_mount(mounts: &[Mount], here: &Cwd, path: &str) -> bool {
    let Cwd::Known(dir) = here else {
        return false;
    };
    let of = |p: &str| {
        mounts
            .iter()
            .filter(|m| under(p, &m.target))
            .max_by_key(|m| m.target.len())
            .map(|m| m.target.clone())
    };
    of(dir).is_some() && of(dir) == of(path)
}

/// `path` is `folder` or lies under it (both absolute, normalised).
fn under(path: &str, folder: &str) -> bool {
    folder == "/"
        || path == folder
        || path
            .strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A container path that names nothing on the host, keeping its last name when that
/// name is not one of nagger's (what is copied into a folder lands under it).
fn nowhere(host: &Host, path: &str) -> String {
    let last = basename(path);
    let kept = format!("{NOWHERE}/{last}");
    if last.is_empty() || looks_protected(host, last) {
        NOWHERE.to_owned()
    } else {
        kept
    }
}

/// A word that would name one of nagger's paths wherever it stood (`.claude`, `.c*`):
/// what self-protection judges by name alone.
fn looks_protected(host: &Host, word: &str) -> bool {
    (host.protected)(&format!("{NOWHERE}/{word}"))
}

/// The container folder a command runs in: `~` as root's home.
fn container_dir(cwd: &Cwd) -> Cwd {
    match cwd {
        Cwd::Known(dir) => match dir.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                Cwd::Known(normalize(&format!("/root{rest}")))
            }
            _ if dir.starts_with('/') && !dir.contains(['$', '`']) => Cwd::Known(normalize(dir)),
            _ => Cwd::Unknown,
        },
        Cwd::Unknown => Cwd::Unknown,
    }
}

/// Whether `part` is a slice of `whole`.
fn holds_str(whole: &str, part: &str) -> bool {
    let (w, p) = (whole.as_ptr() as usize, part.as_ptr() as usize);
    p >= w && p + part.len() <= w + whole.len()
}

/// A writable mount whose host folder is one of nagger's, or holds them.
fn reaches_protected(mount: &Mount, scope: &Host) -> bool {
    (scope.judge)(&mount.source).is_some() || (scope.holds)(&mount.source)
}

/// The container command line of `command`, when it runs one: `run`, `create`, `exec`
/// of docker, podman or nerdctl (also as `container run` …), and `compose run`.
fn invocation(command: &SimpleCommand, cwd: &Cwd, scope: &Host) -> Option<Invocation> {
    let name = command.name();
    let args = command.args();
    let mut k = 0;
    let mut verb = name.to_owned();
    let compose = if COMPOSERS.contains(&name) {
        true
    } else if ENGINES.contains(&name) {
        k = skip_options(args, 0, GLOBAL_VALUED);
        let mut sub = args.get(k)?.as_str();
        if sub == "container" {
            k += 1;
            sub = args.get(k)?.as_str();
        }
        if sub == "compose" {
            verb.push_str(" compose");
            true
        } else {
            if !matches!(sub, "run" | "create" | "exec") {
                return None;
            }
            verb = format!("{name} {sub}");
            k += 1;
            false
        }
    } else {
        return None;
    };
    if compose {
        if name != "docker-compose" && !COMPOSERS.contains(&name) {
            k += 1;
        }
        k = skip_options(args, k, COMPOSE_VALUED);
        if args.get(k).map(String::as_str) != Some("run") {
            return None;
        }
        verb.push_str(" run");
        k += 1;
    }
    let mut run = Invocation {
        exec: verb.ends_with(" exec"),
        verb,
        ..Invocation::default()
    };
    while let Some(arg) = args.get(k) {
        k += 1;
        if arg == "--" {
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (key, value) = match long.split_once('=') {
                Some((key, value)) => (key, Some(value.to_owned())),
                None if LONG_VALUED.contains(&long) => {
                    k += 1;
                    (long, args.get(k - 1).cloned())
                }
                None => (long, None),
            };
            option(&mut run, key, value, cwd, scope);
            continue;
        }
        if let Some(flags) = arg.strip_prefix('-').filter(|f| !f.is_empty()) {
            for (at, flag) in flags.char_indices() {
                if SHORT_VALUED.contains(flag) {
                    let rest = &flags[at + flag.len_utf8()..];
                    let value = if rest.is_empty() {
                        k += 1;
                        args.get(k - 1).cloned()
                    } else {
                        Some(rest.to_owned())
                    };
                    option(&mut run, &flag.to_string(), value, cwd, scope);
                    break;
                }
                option(&mut run, &flag.to_string(), None, cwd, scope);
            }
            continue;
        }
        run.subject = Some(arg.clone());
        break;
    }
    run.subject.as_ref()?;
    run.command = args.get(k..).unwrap_or(&[]).to_vec();
    Some(run)
}

/// The index of the first word from `k` that is not an option, options in `valued`
/// taking the word after them.
fn skip_options(args: &[String], mut k: usize, valued: &[&str]) -> usize {
    while let Some(arg) = args.get(k) {
        if !arg.starts_with('-') || arg == "-" {
            break;
        }
        k += if valued.contains(&arg.as_str()) { 2 } else { 1 };
    }
    k
}

/// One option of a container command line, by its name without dashes.
fn option(run: &mut Invocation, key: &str, value: Option<String>, cwd: &Cwd, scope: &Host) {
    match key {
        "v" | "volume" => {
            if let Some(mount) = value.and_then(|v| volume(&v, cwd, scope)) {
                run.mounts.push(mount);
            }
        }
        "mount" => {
            if let Some(mount) = value.and_then(|v| bind_mount(&v, cwd, scope)) {
                run.mounts.push(mount);
            }
        }
        "w" | "workdir" => run.workdir = value,
        "e" | "env" => {
            if let Some((name, value)) = value.as_deref().and_then(|v| v.split_once('='))
                && !name.is_empty()
                && !value.contains(['$', '`'])
            {
                run.env.push((name.to_owned(), value.to_owned()));
            }
        }
        "volumes-from" => run.volumes_from = value,
        "entrypoint" => run.entrypoint = value,
        "name" => run.name = value,
        "i" | "interactive" => run.interactive = true,
        _ => {}
    }
}

/// `-v SRC:DST[:OPTIONS]`: a host folder when SRC is a path (a named volume is none).
fn volume(spec: &str, cwd: &Cwd, scope: &Host) -> Option<Mount> {
    let parts: Vec<&str> = spec.split(':').collect();
    let [source, target, rest @ ..] = parts.as_slice() else {
        return None;
    };
    let read_only = rest.iter().any(|opts| {
        opts.split(',')
            .any(|o| matches!(o, "ro" | "readonly" | "O"))
    });
    let source = host_source(source, cwd, scope)?;
    Some(Mount {
        target: container_target(target)?,
        source,
        writable: !read_only,
    })
}

/// `--mount type=bind,source=…,target=…[,readonly]`.
fn bind_mount(spec: &str, cwd: &Cwd, scope: &Host) -> Option<Mount> {
    let mut kind = "volume";
    let (mut source, mut target) = (None, None);
    let mut read_only = false;
    for part in spec.split(',') {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        match key {
            "type" => kind = value,
            "source" | "src" => source = Some(value),
            // A volume of the local driver bound to a host folder
            // (`volume-opt=type=none,volume-opt=o=bind,volume-opt=device=/x`).
            "volume-opt" if value.starts_with("device=") => {
                kind = "bind";
                source = value.strip_prefix("device=");
            }
            "target" | "destination" | "dst" => target = Some(value),
            "readonly" | "ro" => {
                read_only = !matches!(value, "false" | "0");
            }
            _ => {}
        }
    }
    if kind != "bind" {
        return None;
    }
    let source = host_source(source?, cwd, scope)?;
    Some(Mount {
        target: container_target(target?)?,
        source,
        writable: !read_only,
    })
}

/// `docker volume create --opt type=none --opt o=bind --opt device=/x v`: a named volume
/// bound to a host folder, which any later container given `v` writes. Bound to a folder
/// holding nagger's files or Claude Code's settings, it is asked about.
fn volume_bound(command: &SimpleCommand, cwd: &Cwd, scope: &Host) -> Option<Finding> {
    if !ENGINES.contains(&command.name()) {
        return None;
    }
    let args = command.args();
    let at = args.iter().position(|a| a == "volume")?;
    if args.get(at + 1).map(String::as_str) != Some("create") {
        return None;
    }
    let words = &args[at + 2..];
    let device = words.iter().enumerate().find_map(|(k, w)| {
        let value = match w.as_str() {
            "-o" | "--opt" => words.get(k + 1).map(String::as_str),
            w => w.strip_prefix("--opt=").or_else(|| w.strip_prefix("-o")),
        }?;
        value.strip_prefix("device=")
    })?;
    let source = host_source(device, cwd, scope)?;
    let reaches =
        source.contains(['$', '`']) || (scope.holds)(&source) || (scope.protected)(&source);
    reaches.then(|| {
        Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "creates a volume bound to `{source}`, which holds nagger's own files or \
                 Claude Code's settings: any container given the volume writes them"
            ),
            "Bind a folder that holds none of them, or mount it read-only where it is used.",
        )
    })
}

fn container_target(target: &str) -> Option<String> {
    target
        .starts_with('/')
        .then(|| normalize(target))
        .filter(|t| !t.contains(['$', '`']))
}

/// The host path a mount source names, from the folder the line runs in: absolute,
/// `~/…`, or holding `$` when only known as the shell runs. `None` for a named volume.
fn host_source(source: &str, cwd: &Cwd, scope: &Host) -> Option<String> {
    let mut source = here_and_home(source);
    for word in ["$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}"] {
        if let Some(rest) = source.strip_prefix(word)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            source = format!("{}{rest}", scope.root.display());
        }
    }
    if source.contains(['$', '`']) {
        return Some(source);
    }
    if !source.starts_with(['/', '.', '~']) {
        return None;
    }
    Some(match resolve(cwd, &source) {
        Some(path) if path.starts_with(['/', '~']) => normalize(&path),
        Some(path) => normalize(&scope.root.join(path).to_string_lossy()),
        None => format!("$PWD/{source}"),
    })
}

/// The mounts of the container an `exec` works in: those of a `run` or `create` earlier
/// in the line that gave it its `--name`. `None` when the line started no such container.
fn started_earlier(
    command: &SimpleCommand,
    exec: &Invocation,
    cwd: &Cwd,
    scope: &Host,
) -> Option<Vec<Mount>> {
    let line = scope.line?;
    let at = line.iter().position(|c| std::ptr::eq(c, command))?;
    let wanted = exec.subject.as_deref()?;
    line[..at].iter().rev().find_map(|earlier| {
        let run = invocation(earlier, cwd, scope)?;
        (!run.exec && run.name.as_deref() == Some(wanted)).then_some(run.mounts)
    })
}

/// `docker cp SRC DEST` (podman, nerdctl, `container cp`) and `kubectl cp SRC DEST`, when
/// DEST is on the host and SRC in a container (`ctr:/path`, `ns/pod:/path`).
fn copied_out(command: &SimpleCommand) -> Option<(&str, &str)> {
    let name = command.name();
    let args = command.args();
    let k = match name {
        "kubectl" => {
            let valued = [
                "-n",
                "--namespace",
                "--context",
                "--kubeconfig",
                "--cluster",
                "--user",
                "-s",
                "--server",
            ];
            skip_options(args, 0, &valued)
        }
        _ if ENGINES.contains(&name) => {
            let mut k = skip_options(args, 0, GLOBAL_VALUED);
            if args.get(k).is_some_and(|a| a == "container") {
                k += 1;
            }
            k
        }
        _ => return None,
    };
    if args.get(k).map(String::as_str) != Some("cp") {
        return None;
    }
    let mut ops = Vec::new();
    let mut skip = false;
    for arg in &args[k + 1..] {
        if skip {
            skip = false;
            continue;
        }
        if arg.starts_with('-') && arg != "-" {
            skip = matches!(
                arg.as_str(),
                "-c" | "--container" | "-n" | "--namespace" | "--retries"
            );
            continue;
        }
        ops.push(arg.as_str());
    }
    let [source, dest] = ops.as_slice() else {
        return None;
    };
    (in_container(source) && !in_container(dest) && *dest != "-").then_some((*source, *dest))
}

/// `docker cp SRC CTR:PATH` (and `podman`, `kubectl cp`): the path in the container it
/// writes, when it has the name of nagger's own files or Claude Code's settings.
fn copied_in(command: &SimpleCommand) -> Option<String> {
    let args = command.args();
    let at = args.iter().position(|a| a == "cp")?;
    let ops: Vec<&String> = args[at + 1..]
        .iter()
        .filter(|a| !a.starts_with('-') || *a == "-")
        .collect();
    let dest = ops.last()?;
    if !in_container(dest) {
        return None;
    }
    let (_, path) = dest.split_once(':')?;
    let named = path.split('/').any(|part| {
        part.eq_ignore_ascii_case(".claude-nagger") || part.eq_ignore_ascii_case(".claude")
    }) || path.ends_with("managed-settings.json");
    named.then(|| (*dest).clone())
}

/// `ctr:/path`, `ns/pod:path`: a path in a container (a host path with a `:` in it is
/// written `./a:b`).
fn in_container(word: &str) -> bool {
    word.split_once(':').is_some_and(|(ctr, _)| {
        !ctr.is_empty() && !ctr.starts_with(['.', '/', '~']) && ctr.matches('/').count() <= 1
    })
}

/// A copy out of a container onto the host folder or file `dest`: what lands there, judged
/// like `cp -r`. A folder's contents (`ctr:/app/.`) landing where nagger's files are
/// cannot be seen, and is asked about.
fn copy_out(source: &str, dest: &str, cwd: &Cwd, scope: &Host) -> Option<Finding> {
    let inner = source.split_once(':').map_or(source, |(_, p)| p);
    let inner = inner.trim_end_matches('/');
    let full = resolve(cwd, dest)?;
    let last = basename(inner);
    let contents = last == "." || inner.is_empty();
    let mut landed = vec![full.clone()];
    if !contents && !last.is_empty() {
        landed.push(format!("{}/{last}", full.trim_end_matches('/')));
    }
    for path in &landed {
        if let Some(what) = (scope.judge)(path) {
            return Some((scope.refuse)(&format!(
                "copies `{source}` out of a container onto `{dest}`, {what}"
            )));
        }
    }
    let here = on_disk(scope, &full).map(|p| normalize(&p.to_string_lossy()));
    if contents && here.is_some_and(|p| (scope.holds)(&p)) {
        return Some(Finding::ask(
            "guard:self-protect-unsure",
            format!(
                "copies what `{source}` holds out of a container into `{dest}`, which holds \
                 nagger's own files or Claude Code's settings, and what lands there cannot \
                 be seen"
            ),
            "Copy it into a folder of its own, and look at it first.",
        ));
    }
    None
}

#[cfg(test)]
mod tests;
