//! Programs that run a command on a machine that keeps its state: in a running container
//! (`docker exec`, `podman exec`, `kubectl exec … --`, `docker compose exec`, and
//! `docker compose run`, which starts a service with its volumes), or on a virtual
//! machine (`vagrant ssh -c`, `multipass exec … --`, `lxc exec … --`, `gcloud compute
//! ssh --command`). What such a command destroys there is as real as what it destroys
//! here (the database a container serves, the volume a pod mounts), so its words are
//! read as a command of their own, as `ssh host command`'s are. A fresh container from
//! an image (`docker run img cmd`) is left to the check of what it mounts: its own files
//! are thrown away with it.

use super::words::short_cluster;

/// What runs: words handed to the program as they are (`docker exec app rm -rf /data`),
/// or a line a shell there reads (`vagrant ssh -c 'rm -rf /data'`).
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Remote {
    Argv(Vec<String>),
    Script(String),
}

/// Container engines that take docker's words.
const ENGINES: &[&str] = &["docker", "podman", "nerdctl", "finch"];
/// Compose front ends.
const COMPOSE: &[&str] = &["docker-compose", "podman-compose"];

/// Whether `name` can run a command elsewhere, so its words are worth reading.
pub(super) fn runs_elsewhere(name: &str) -> bool {
    ENGINES.contains(&name)
        || COMPOSE.contains(&name)
        || matches!(
            name,
            "kubectl" | "oc" | "lxc" | "incus" | "multipass" | "vagrant" | "gcloud"
        )
}

/// The command `argv` runs elsewhere, with how it is run (`docker exec app`), if any.
pub(super) fn command(argv: &[String]) -> Option<(String, Remote)> {
    let name = argv.first()?.as_str();
    let rest = &argv[1..];
    if ENGINES.contains(&name) {
        let at = skip(
            rest,
            0,
            "cHl",
            &["host", "context", "config", "log-level"],
            &[],
        );
        let sub = rest.get(at)?.as_str();
        let at = if sub == "container" { at + 1 } else { at };
        return match rest.get(at)?.as_str() {
            "exec" => exec(name, rest, at + 1),
            "compose" => compose(&format!("{name} compose"), rest, at + 1),
            _ => None,
        };
    }
    if COMPOSE.contains(&name) {
        return compose(name, rest, 0);
    }
    match name {
        // `kubectl exec pod -- cmd`, `lxc exec c -- cmd`, `multipass exec vm -- cmd`:
        // the words after `--`.
        "kubectl" | "oc" | "lxc" | "incus" | "multipass" => {
            let sub = rest
                .iter()
                .take_while(|a| *a != "--")
                .find(|a| a.as_str() == "exec")?;
            let dashes = rest.iter().position(|a| a == "--")?;
            let words = rest[dashes + 1..].to_vec();
            (!words.is_empty()).then(|| (format!("{name} {sub} --"), Remote::Argv(words)))
        }
        // `vagrant ssh [vm] -c 'cmd'`.
        "vagrant" if rest.first().is_some_and(|a| a == "ssh") => {
            let line = value_of(rest, 'c', "command")?;
            Some(("vagrant ssh -c".to_owned(), Remote::Script(line)))
        }
        // `gcloud compute ssh vm --command='cmd'`, or the words after `--`, which go
        // to ssh.
        "gcloud" if rest.windows(2).any(|w| w[0] == "compute" && w[1] == "ssh") => {
            if let Some(line) = value_of(rest, '\0', "command") {
                return Some((
                    "gcloud compute ssh --command".to_owned(),
                    Remote::Script(line),
                ));
            }
            let dashes = rest.iter().position(|a| a == "--")?;
            let line = rest[dashes + 1..].join(" ");
            (!line.is_empty()).then(|| ("gcloud compute ssh --".to_owned(), Remote::Script(line)))
        }
        _ => None,
    }
}

/// `docker exec [options] container command…`.
fn exec(name: &str, rest: &[String], from: usize) -> Option<(String, Remote)> {
    let at = skip(
        rest,
        from,
        "euw",
        &["env", "env-file", "user", "workdir", "detach-keys"],
        &[],
    );
    let container = rest.get(at)?;
    let words = rest.get(at + 1..)?.to_vec();
    (!words.is_empty()).then(|| (format!("{name} exec {container}"), Remote::Argv(words)))
}

/// Long options of `compose run` that take no value: any other long
/// option without `=` takes the next word.
const RUN_SWITCHES: &[&str] = &[
    "rm",
    "detach",
    "interactive",
    "tty",
    "privileged",
    "init",
    "read-only",
    "publish-all",
    "quiet",
    "no-healthcheck",
    "oom-kill-disable",
    "disable-content-trust",
    "help",
    "no-deps",
    "service-ports",
    "use-aliases",
    "build",
    "remove-orphans",
    "no-TTY",
    "quiet-pull",
    "replace",
    "rmi",
];

/// `docker compose [options] exec|run [options] service command…`.
fn compose(how: &str, rest: &[String], from: usize) -> Option<(String, Remote)> {
    let at = skip(
        rest,
        from,
        "fp",
        &[
            "file",
            "project-name",
            "profile",
            "project-directory",
            "env-file",
            "ansi",
            "parallel",
            "progress",
        ],
        &[],
    );
    let sub = rest.get(at)?.as_str();
    let at = match sub {
        "exec" => skip(
            rest,
            at + 1,
            "euw",
            &["env", "index", "user", "workdir"],
            &[],
        ),
        "run" => skip(rest, at + 1, "eluvpw", &[], RUN_SWITCHES),
        _ => return None,
    };
    let service = rest.get(at)?;
    let words = rest.get(at + 1..)?.to_vec();
    (!words.is_empty()).then(|| (format!("{how} {sub} {service}"), Remote::Argv(words)))
}

/// The first word of `args` from `from` that is not an option or an option's value.
/// `short_values`: short letters that take a value. Long options take the next word when
/// they are in `long_values`, or, with `switches` given, whenever they are not in it.
fn skip(
    args: &[String],
    from: usize,
    short_values: &str,
    long_values: &[&str],
    switches: &[&str],
) -> usize {
    let mut j = from;
    while let Some(arg) = args.get(j) {
        if arg == "--" {
            return j + 1;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let takes = if switches.is_empty() {
                long_values.contains(&long)
            } else {
                !switches.contains(&long)
            };
            j += if !long.contains('=') && takes { 2 } else { 1 };
            continue;
        }
        let Some(flags) = short_cluster(arg) else {
            break;
        };
        // A value-taking letter takes the rest of the cluster, or the next word.
        if let Some(pos) = flags.find(|c| short_values.contains(c))
            && pos + 1 == flags.len()
        {
            j += 1;
        }
        j += 1;
    }
    j
}

/// The value of `-c VALUE`, `--command VALUE` or `--command=VALUE`.
fn value_of(args: &[String], short: char, long: &str) -> Option<String> {
    let mut words = args.iter();
    while let Some(arg) = words.next() {
        if arg == "--" {
            return None;
        }
        if let Some(value) = arg
            .strip_prefix("--")
            .and_then(|a| a.strip_prefix(long))
            .and_then(|a| a.strip_prefix('='))
        {
            return Some(value.to_owned());
        }
        let is_short =
            short != '\0' && arg.len() == 2 && arg.ends_with(short) && arg.starts_with('-');
        if is_short || arg.strip_prefix("--") == Some(long) {
            return words.next().cloned();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(line: &str) -> Option<(String, String)> {
        let argv: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        command(&argv).map(|(how, run)| {
            let text = match run {
                Remote::Argv(words) => words.join(" "),
                Remote::Script(line) => format!("sh: {line}"),
            };
            (how, text)
        })
    }

    #[test]
    fn commands_run_in_containers_and_machines_are_found() {
        for (line, how, text) in [
            (
                "docker exec app rm -rf /data",
                "docker exec app",
                "rm -rf /data",
            ),
            (
                "docker exec -it -u root -w /srv db psql -c x",
                "docker exec db",
                "psql -c x",
            ),
            (
                "docker -H tcp://h:2375 exec -e A=1 app ls",
                "docker exec app",
                "ls",
            ),
            (
                "docker container exec app sh -c x",
                "docker exec app",
                "sh -c x",
            ),
            ("podman exec -i app rm -rf /", "podman exec app", "rm -rf /"),
            (
                "docker compose exec db psql",
                "docker compose exec db",
                "psql",
            ),
            (
                "docker compose -f c.yml run --rm -e X=1 web rake db:drop",
                "docker compose run web",
                "rake db:drop",
            ),
            (
                "docker-compose exec -T db mysql",
                "docker-compose exec db",
                "mysql",
            ),
            (
                "kubectl exec -it pod -c main -- rm -rf /data",
                "kubectl exec --",
                "rm -rf /data",
            ),
            (
                "kubectl -n prod exec deploy/api -- sh",
                "kubectl exec --",
                "sh",
            ),
            ("lxc exec c1 -- rm -rf /", "lxc exec --", "rm -rf /"),
            ("multipass exec vm -- ls", "multipass exec --", "ls"),
            ("vagrant ssh web -c rm", "vagrant ssh -c", "sh: rm"),
            (
                "gcloud compute ssh vm --zone z --command=ls",
                "gcloud compute ssh --command",
                "sh: ls",
            ),
            (
                "gcloud compute ssh vm -- rm -rf /",
                "gcloud compute ssh --",
                "sh: rm -rf /",
            ),
        ] {
            assert_eq!(
                found(line),
                Some((how.to_owned(), text.to_owned())),
                "{line}"
            );
        }
    }

    #[test]
    fn commands_that_run_nothing_named_are_left_alone() {
        for line in [
            "docker ps -a",
            "docker run --rm alpine rm -rf /",
            "docker run -it -v /x:/y img sh",
            "kubectl run x --image=alpine -- rm -rf /",
            "docker exec app",
            "docker compose up -d",
            "docker compose run web",
            "kubectl get pods",
            "kubectl exec pod",
            "kubectl logs pod -- x",
            "vagrant ssh",
            "gcloud compute ssh vm",
            "podman build -t x .",
        ] {
            assert_eq!(found(line), None, "{line}");
        }
    }
}
