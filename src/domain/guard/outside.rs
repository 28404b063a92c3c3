//! Effects beyond the project that no undo brings back: the machine stopped or its
//! processes killed, services and firewalls switched off, containers given the host's
//! filesystem, cloud resources, databases and registries changed for good. Refused when
//! the machine itself goes down, asked about otherwise: the user may well mean it.

use super::finding::{Finding, operands};
use super::shell::{SimpleCommand, has_flag, substitutions};
use super::sql;
use super::targets::{Reach, dangerous_target};

const ASK_USER: &str = "Ask the user to do it, or to confirm.";

fn ask(harm: String) -> Finding {
    Finding::ask("guard:outside", harm, ASK_USER)
}

/// The effect beyond the project of one simple command, if it has one.
pub(super) fn outside(command: &SimpleCommand) -> Option<Finding> {
    let name = command.name();
    let args = command.args();
    let ops = operands(args);
    let first = ops.first().copied().unwrap_or("");
    let has = |w: &str| args.iter().any(|a| a == w);
    if dry_run(args)
        && matches!(
            name,
            "kubectl"
                | "oc"
                | "helm"
                | "aws"
                | "gcloud"
                | "az"
                | "gsutil"
                | "rclone"
                | "apt-get"
                | "apt"
                | "dnf"
                | "yum"
                | "zypper"
                | "pulumi"
                | "cdk"
                | "npm"
                | "pnpm"
                | "yarn"
                | "cargo"
                | "gh"
                | "twine"
                | "poetry"
        )
    {
        return None;
    }
    match name {
        "shutdown" | "reboot" | "halt" | "poweroff" => Some(Finding::deny(
            "guard:outside",
            format!("stops or restarts the machine (`{name}`)"),
            ASK_USER,
        )),
        "init" | "telinit" if matches!(first, "0" | "6") => Some(Finding::deny(
            "guard:outside",
            "stops or restarts the machine".into(),
            ASK_USER,
        )),
        "systemctl" | "loginctl"
            if matches!(
                first,
                "poweroff" | "reboot" | "halt" | "kexec" | "suspend" | "hibernate"
            ) =>
        {
            Some(Finding::deny(
                "guard:outside",
                format!("stops or restarts the machine (`{name} {first}`)"),
                ASK_USER,
            ))
        }
        // The machine taken down by another verb: a rescue or emergency shell, a target
        // that powers off, the kernel replaced, the user sessions ended.
        "systemctl"
            if matches!(first, "rescue" | "emergency")
                || (matches!(first, "isolate" | "start" | "restart" | "default")
                    && ops.iter().skip(1).any(|t| stops_machine(t))) =>
        {
            Some(Finding::deny(
                "guard:outside",
                format!("takes the machine down (`{}`)", command.display()),
                ASK_USER,
            ))
        }
        "systemctl" if first == "set-default" && ops.iter().skip(1).any(|t| stops_machine(t)) => {
            Some(ask(format!(
                "makes the machine start without its services next time (`{}`)",
                command.display()
            )))
        }
        "kexec" if has_flag(args, "e", &["exec"]) => Some(Finding::deny(
            "guard:outside",
            "replaces the running kernel at once (`kexec -e`)".into(),
            ASK_USER,
        )),
        "loginctl"
            if matches!(
                first,
                "terminate-user"
                    | "kill-user"
                    | "terminate-session"
                    | "kill-session"
                    | "terminate-seat"
            ) =>
        {
            Some(ask(format!(
                "ends users' sessions (`{}`)",
                command.display()
            )))
        }
        "busctl" | "dbus-send" | "gdbus"
            if args
                .iter()
                .any(|a| a.contains("login1") || a.contains("systemd1"))
                && args.iter().any(|a| {
                    [
                        "PowerOff",
                        "Reboot",
                        "Halt",
                        "KExec",
                        "Suspend",
                        "Hibernate",
                        "StartUnit",
                    ]
                    .iter()
                    .any(|m| a.contains(m))
                }) =>
        {
            Some(ask(format!(
                "asks the system manager to stop or restart the machine (`{name}`)"
            )))
        }
        // `crontab file`, `crontab -`, `crontab < /dev/null`: the user's table replaced.
        "crontab"
            if !has_flag(args, "lr", &[])
                && (!ops.is_empty()
                    || args.iter().any(|a| a == "-")
                    || !command.reads_from.is_empty()
                    || command.stage > 0) =>
        {
            Some(ask(format!(
                "replaces the user's whole crontab (`{}`)",
                command.display()
            )))
        }
        "rmmod" | "insmod" => Some(ask(format!(
            "removes or loads a kernel module (`{}`)",
            command.display()
        ))),
        "modprobe"
            if has_flag(args, "r", &["remove"])
                || ops.iter().any(|o| {
                    std::path::Path::new(o)
                        .extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case("ko"))
                }) =>
        {
            Some(ask(format!(
                "removes or loads a kernel module (`{}`)",
                command.display()
            )))
        }
        "mount"
            if ops.last().is_some_and(|t| system_folder(t)) && ops.len() >= 2
                || args.iter().any(|a| a == "--bind" || a == "-B")
                    && ops.last().is_some_and(|t| system_folder(t)) =>
        {
            Some(ask(format!(
                "mounts over a system folder, hiding what it holds (`{}`)",
                command.display()
            )))
        }
        "efibootmgr" if has_flag(args, "B", &["delete-bootnum"]) => {
            Some(ask("deletes a boot entry (`efibootmgr -B`)".into()))
        }
        "chsh" if ops.contains(&"root") => Some(ask(format!(
            "changes root's login shell (`{}`)",
            command.display()
        ))),
        "kill" if args.iter().any(|a| a == "-1") && args.len() >= 2 || ops.contains(&"1") => {
            Some(Finding::deny(
                "guard:outside",
                "kills every process it may (`kill -1`) or init".into(),
                ASK_USER,
            ))
        }
        // `pkill -9 .`, `killall -r '.*'`: a pattern every process name matches.
        "pkill" | "killall"
            if (name == "pkill" || has_flag(args, "r", &["regexp"]))
                && ops
                    .first()
                    .is_some_and(|p| matches!(*p, "." | ".*" | "^" | "$" | "^.*" | ".+" | "")) =>
        {
            Some(Finding::deny(
                "guard:outside",
                format!("kills every process of the machine (`{name}` of a pattern all match)"),
                ASK_USER,
            ))
        }
        // `fuser -k /`, `fuser -km /home`, `fuser -k 22/tcp`: every process using a whole
        // tree, or a port the system or a database serves on.
        "fuser" if has_flag(args, "k", &["kill"]) => ops.iter().find_map(|p| {
            let port = p
                .split_once('/')
                .filter(|(n, proto)| {
                    !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && proto.len() <= 4
                })
                .and_then(|(n, _)| n.parse::<u32>().ok());
            let hit = match port {
                Some(n) => n < 1024 || SERVICE_PORTS.contains(&n),
                None => p.starts_with(['/', '~']),
            };
            hit.then(|| {
                ask(format!(
                    "kills every process using `{p}` (`{}`)",
                    command.display()
                ))
            })
        }),
        // `slay USER`: every process of a user.
        "slay" => Some(ask(format!(
            "kills every process of a user (`{}`)",
            command.display()
        ))),
        // The machine switched to another target, woken or put down by the clock, its
        // VPNs and bridges taken down, a firewall rule that drops all.
        "systemctl" if first == "isolate" => Some(ask(format!(
            "switches the machine to another target, stopping what it does not include (`{}`)",
            command.display()
        ))),
        "rtcwake" => Some(ask(format!(
            "suspends or powers off the machine until a time (`{}`)",
            command.display()
        ))),
        "wg-quick" | "tailscale" | "zerotier-cli" | "openvpn3" | "nordvpn"
            if ops
                .iter()
                .any(|o| matches!(*o, "down" | "disconnect" | "logout" | "leave")) =>
        {
            Some(ask(format!(
                "takes the machine's network down (`{}`)",
                command.display()
            )))
        }
        "brctl" | "ovs-vsctl" if ops.iter().any(|o| o.starts_with("del")) => Some(ask(format!(
            "deletes a network bridge (`{}`)",
            command.display()
        ))),
        "nft"
            if ops.contains(&"drop")
                && ops
                    .iter()
                    .any(|o| matches!(*o, "input" | "output" | "forward")) =>
        {
            Some(ask(format!(
                "changes the firewall (`{}`)",
                command.display()
            )))
        }
        // Group memberships, unit files and mounts of the system changed.
        "gpasswd"
            if args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "-d" | "-a" | "-M" | "-A" | "-r" | "--delete" | "--add"
                )
            }) =>
        {
            Some(ask(format!(
                "changes the machine's user accounts (`{}`)",
                command.display()
            )))
        }
        "systemctl" if matches!(first, "edit" | "revert" | "set-property" | "link") => {
            Some(ask(format!(
                "changes a system service's configuration (`{}`)",
                command.display()
            )))
        }
        "umount" | "fusermount"
            if has_flag(args, "flaR", &["force", "lazy", "all", "recursive"])
                || ops.iter().any(|o| super::targets::whole_tree(o).is_some()) =>
        {
            Some(ask(format!(
                "unmounts a filesystem the system or its users rely on (`{}`)",
                command.display()
            )))
        }
        "diskutil"
            if ops.iter().any(|o| {
                let o = o.to_ascii_lowercase();
                o.starts_with("erase")
                    || o.ends_with("disk")
                        && (o.starts_with("zero")
                            || o.starts_with("random")
                            || o.starts_with("partition"))
                    || o == "secureerase"
            }) =>
        {
            Some(Finding::deny(
                "guard:outside",
                format!("erases a disk (`{}`)", command.display()),
                ASK_USER,
            ))
        }
        // Other coding agents started with their approvals switched off.
        "codex" | "gemini" | "aider" | "cursor-agent" | "opencode" | "amp" | "goose" | "qwen"
            if args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "--dangerously-bypass-approvals-and-sandbox"
                        | "--yolo"
                        | "-y"
                        | "--yes-always"
                        | "--yes"
                        | "--full-auto"
                        | "--force"
                        | "--dangerously-skip-permissions"
                        | "--approval-mode=yolo"
                )
            }) =>
        {
            Some(ask(format!(
                "starts another coding agent with its approvals switched off (`{}`)",
                command.display()
            )))
        }
        // Containers removed, stopped or pruned by their long forms and other engines.
        "nerdctl" | "crictl" | "ctr"
            if ops.iter().any(|o| {
                matches!(
                    *o,
                    "rm" | "rmi" | "rmp" | "prune" | "kill" | "stop" | "delete" | "remove"
                )
            }) =>
        {
            Some(ask(format!(
                "deletes or stops containers, images or pods (`{}`)",
                command.display()
            )))
        }
        // Databases wiped by their migration and framework tools.
        "flyway" if ops.contains(&"clean") => Some(ask(format!(
            "drops every object of the database (`{}`)",
            command.display()
        ))),
        "liquibase"
            if ops
                .iter()
                .any(|o| o.eq_ignore_ascii_case("drop-all") || *o == "dropAll") =>
        {
            Some(ask(format!(
                "drops every object of the database (`{}`)",
                command.display()
            )))
        }
        "atlas" if ops.contains(&"clean") => Some(ask(format!(
            "drops every object of the database (`{}`)",
            command.display()
        ))),
        "mix"
            if ops.iter().any(|o| matches!(*o, "ecto.drop" | "ecto.reset"))
                && !for_tests(command) =>
        {
            Some(ask(format!("drops the database (`{}`)", command.display())))
        }
        // Services stopped by the other service managers, as `systemctl stop` is.
        "supervisorctl"
            if ops
                .first()
                .is_some_and(|o| matches!(*o, "stop" | "shutdown" | "remove" | "restart")) =>
        {
            Some(ask(format!("stops services (`{}`)", command.display())))
        }
        "launchctl"
            if ops.first().is_some_and(|o| {
                matches!(*o, "bootout" | "unload" | "remove" | "disable" | "kill")
            }) =>
        {
            Some(ask(format!(
                "stops or removes a service (`{}`)",
                command.display()
            )))
        }
        "rc-service" | "service" if ops.iter().any(|o| matches!(*o, "stop" | "zap")) => {
            Some(ask(format!("stops a service (`{}`)", command.display())))
        }
        "initctl" | "sv" | "s6-svc" | "runsv"
            if ops.first().is_some_and(|o| {
                matches!(*o, "stop" | "down" | "exit" | "kill" | "force-stop")
            }) =>
        {
            Some(ask(format!("stops a service (`{}`)", command.display())))
        }
        "tmux" if ops.first().is_some_and(|o| *o == "kill-server") => Some(ask(format!(
            "ends every tmux session, with what runs in them (`{}`)",
            command.display()
        ))),
        "pg_ctl" | "pg_ctlcluster"
            if ops
                .iter()
                .any(|o| matches!(*o, "stop" | "kill" | "restart")) =>
        {
            Some(ask(format!(
                "stops a database server (`{}`)",
                command.display()
            )))
        }
        "rails" | "rake" | "bin/rails"
            if ops.iter().any(|o| {
                matches!(
                    *o,
                    "db:drop"
                        | "db:reset"
                        | "db:schema:load"
                        | "db:purge"
                        | "db:structure:load"
                        | "db:drop:all"
                )
            }) && command.env.iter().chain(args).any(|e| {
                let e = e.to_ascii_lowercase();
                (e.starts_with("rails_env=") || e.starts_with("rack_env=")) && e.contains("prod")
            }) =>
        {
            Some(ask(format!(
                "resets a production database (`{}`)",
                command.display()
            )))
        }
        "aws"
            if !dry_run(args)
                && ops.iter().any(|o| {
                    o.starts_with("delete-")
                        || o.starts_with("batch-delete")
                        || o.starts_with("terminate-")
                        || o.starts_with("deregister-")
                        || o.starts_with("remove-")
                        || o.starts_with("purge-")
                        || o.ends_with("-deletion")
                        || *o == "rb"
                }) =>
        {
            Some(ask(format!(
                "deletes or takes down remote resources (`{}`)",
                command.display()
            )))
        }
        "kubectl" | "oc"
            if first == "scale"
                && args.iter().any(|a| a == "--replicas=0")
                && args
                    .iter()
                    .any(|a| matches!(a.as_str(), "--all" | "-A" | "--all-namespaces")) =>
        {
            Some(ask(format!(
                "stops every workload it selects (`{}`)",
                command.display()
            )))
        }
        // Remote resources removed by the clouds' and hosts' own tools.
        "oci" | "ibmcloud" | "doctl" | "hcloud" | "linode-cli" | "vultr-cli" | "scw" | "exo"
        | "upcloud" | "flyctl" | "fly" | "vercel" | "netlify" | "railway" | "render"
        | "serverless" | "sls" | "nomad" | "tilt" | "eksctl" | "sam" | "copilot" | "amplify"
        | "firebase" | "supabase" | "wrangler" | "fastly" | "civo" | "ovhcloud"
            if !dry_run(args)
                && !args.iter().any(|a| a == "--help" || a == "-h")
                && ops
                    .iter()
                    .chain(args.iter().map(String::as_str).collect::<Vec<_>>().iter())
                    .any(|o| {
                        let o = o.to_ascii_lowercase();
                        [
                            "delete",
                            "destroy",
                            "remove",
                            "terminate",
                            "purge",
                            "prune",
                            "down",
                            "rm",
                        ]
                        .iter()
                        .any(|v| {
                            o == *v
                                || o.starts_with(&format!("{v}-"))
                                || o.ends_with(&format!("-{v}"))
                                || o.contains(&format!("-{v}-"))
                        }) || o == "-purge"
                    }) =>
        {
            Some(ask(format!(
                "deletes or takes down remote resources (`{}`)",
                command.display()
            )))
        }
        // Machines and their disks destroyed: `vagrant destroy`, `lxc delete`, `virsh
        // undefine --remove-all-storage`, `multipass delete --purge`.
        "vagrant" if matches!(first, "destroy") => Some(ask(format!(
            "destroys a virtual machine and its disk (`{}`)",
            command.display()
        ))),
        "lxc" | "incus" | "lxd" | "multipass" if matches!(first, "delete" | "rm" | "purge") => {
            Some(ask(format!(
                "deletes a container or virtual machine (`{}`)",
                command.display()
            )))
        }
        "virsh" if matches!(first, "undefine" | "destroy" | "vol-delete" | "pool-delete") => {
            Some(ask(format!(
                "destroys a virtual machine or its storage (`{}`)",
                command.display()
            )))
        }
        // `pip uninstall pip`, `npm rm -g npm`, `pip uninstall -y $(pip freeze)`: the
        // package manager itself, or every package, removed.
        "pip" | "pip3" | "uv" | "npm" | "pnpm" | "yarn" | "gem" | "cargo" | "conda"
            if ops
                .iter()
                .any(|o| matches!(*o, "uninstall" | "remove" | "rm" | "un" | "r"))
                && (ops
                    .iter()
                    // `uv pip uninstall x`: `pip` is uv's command, not a package.
                    .skip(usize::from(name == "uv" && ops.first() == Some(&"pip")))
                    .any(|o| {
                        matches!(
                            *o,
                            "pip"
                                | "setuptools"
                                | "wheel"
                                | "npm"
                                | "pnpm"
                                | "yarn"
                                | "corepack"
                                | "rubygems-update"
                                | "bundler"
                                | "conda"
                        )
                    })
                    || args.iter().any(|a| a.contains("$(") || a.contains('`'))) =>
        {
            Some(ask(format!(
                "removes the package manager itself, or every package it lists (`{}`)",
                command.display()
            )))
        }
        // Databases reset or dropped by their frameworks and tools.
        // (A database named for tests is made again by its suite.)
        "pg_dropcluster" | "dropdb" | "dropuser" | "mysqladmin"
            if (name != "mysqladmin" || ops.contains(&"drop")) && !for_tests(command) =>
        {
            Some(ask(format!(
                "drops a database or its cluster (`{}`)",
                command.display()
            )))
        }
        _ if command
            .env
            .iter()
            .chain(args)
            .any(|e| e.starts_with("DISABLE_DATABASE_ENVIRONMENT_CHECK=")) =>
        {
            Some(ask(format!(
                "switches off the check that keeps a production database from being reset (`{}`)",
                command.display()
            )))
        }
        "python" | "python3" | "django-admin"
            if (name == "django-admin" || ops.iter().any(|o| o.ends_with("manage.py")))
                && ops.iter().any(|o| {
                    matches!(
                        *o,
                        "reset_db" | "flush" | "sqlflush" | "reset_schema" | "drop_test_database"
                    )
                })
                && !ops.contains(&"--help") =>
        {
            Some(ask(format!(
                "empties or resets a database (`{}`)",
                command.display()
            )))
        }
        // `bfg --delete-folders src`: history rewritten.
        "bfg" => Some(ask(format!(
            "rewrites the repository's history (`{}`)",
            command.display()
        ))),
        "java" if args.iter().any(|a| basename_is_bfg(a)) => Some(ask(format!(
            "rewrites the repository's history (`{}`)",
            command.display()
        ))),
        // `stress --vm 64`, `stress-ng --hdd 0`: memory, disk or processes used up on
        // purpose.
        "stress" | "stress-ng" => Some(ask(format!(
            "uses up the machine's memory, disk or processors (`{}`)",
            command.display()
        ))),
        // `killall5` signals every process outside its own session.
        "killall5" => Some(Finding::deny(
            "guard:outside",
            "kills every process of the machine (`killall5`)".into(),
            ASK_USER,
        )),
        "userdel" | "deluser" | "groupdel" | "delgroup" | "passwd" | "usermod" | "chpasswd"
        | "chage"
            if accounts_changed(name, args) =>
        {
            let root = ops.contains(&"root");
            let harm = format!(
                "changes the machine's user accounts (`{}`)",
                command.display()
            );
            Some(if root {
                Finding::deny("guard:outside", harm, ASK_USER)
            } else {
                ask(harm)
            })
        }
        "pkill" | "killall" | "skill" | "snice"
            if (has("-u") || has("--user") || has_flag(args, "", &["user"]))
                && !own_user_with_pattern(args) =>
        {
            Some(ask(format!("kills every process of a user (`{name} -u`)")))
        }
        // `pkill -U root`, `pkill -P 1`, `pkill -v x`: processes chosen by owner, parent,
        // group, session or terminal, or all but a name.
        "pkill" | "killall"
            if has_flag(
                &without_signals(args),
                "UPgstv",
                &[
                    "uid", "parent", "pgroup", "session", "terminal", "inverse", "ns", "older",
                ],
            ) && !own_children(args) =>
        {
            Some(ask(format!(
                "kills processes chosen by owner, parent, group, session or terminal, or \
                 all but some (`{}`)",
                command.display()
            )))
        }
        // `kill -9 $(pgrep -f .)`, `kill $(ps -e -o pid=)`, `kill -9 $(pidof sshd)`:
        // processes a lister of many, or of vital ones, picks as the line runs.
        "kill"
            if args.iter().any(|a| {
                substitutions(a)
                    .iter()
                    .any(|inner| pipeline_picks_broadly(&split_pipeline(inner)))
            }) =>
        {
            Some(ask(format!(
                "kills the processes a lister picks as the line runs (`{}`)",
                command.display()
            )))
        }
        // `kill $PPID`: the program that runs this shell, the agent's own client.
        "kill"
            if args
                .iter()
                .any(|a| a.contains("$PPID") || a.contains("${PPID}"))
                && !args
                    .iter()
                    .any(|a| matches!(a.as_str(), "-0" | "-s0" | "-n0")) =>
        {
            Some(ask(format!(
                "kills the program that started this shell, the agent's own client (`{}`)",
                command.display()
            )))
        }
        // `pkill -9 sshd`, `killall dockerd`, `pkill node`: a process the machine, its
        // logins or the agent itself (Claude Code runs in node) lives on.
        "pkill" | "killall" | "skill"
            if ops.first().is_some_and(|p| vital(p))
                && !has_flag(args, "l", &["list"])
                && !reloads(args) =>
        {
            Some(ask(format!(
                "kills `{}`, which the machine, its logins or the agent itself run on (`{}`)",
                ops[0],
                command.display()
            )))
        }
        "systemctl" | "service"
            if ["stop", "disable", "mask", "kill"]
                .iter()
                .any(|v| ops.contains(v)) =>
        {
            Some(ask(format!(
                "stops or disables a system service (`{}`)",
                command.display()
            )))
        }
        // The machine cut off its network, its security or its clock changed.
        "ip" if (first.starts_with('l') && ops.contains(&"down"))
            || (matches!(first, "a" | "addr" | "address" | "r" | "route" | "ro")
                && ops.iter().any(|o| matches!(*o, "flush" | "del" | "delete"))) =>
        {
            Some(ask(format!(
                "takes the machine's network down (`{}`)",
                command.display()
            )))
        }
        "ifconfig" if ops.contains(&"down") => Some(ask(format!(
            "takes the machine's network down (`{}`)",
            command.display()
        ))),
        "ifdown" | "nmtui" => Some(ask(format!(
            "takes the machine's network down (`{}`)",
            command.display()
        ))),
        "nmcli" | "iw" | "wpa_cli" | "iwctl" | "networkctl" | "rfkill" | "connmanctl"
            if ops.iter().any(|o| {
                matches!(
                    *o,
                    "off" | "down" | "disconnect" | "block" | "delete" | "del" | "disable"
                )
            }) =>
        {
            Some(ask(format!(
                "takes the machine's network down (`{}`)",
                command.display()
            )))
        }
        "tc" if ops.contains(&"netem") => Some(ask(format!(
            "makes the machine's network lose or delay traffic (`{}`)",
            command.display()
        ))),
        "firewall-cmd"
            if args.iter().any(|a| {
                a == "--panic-on"
                    || a.starts_with("--remove")
                    || a.starts_with("--set-default-zone")
                    || a == "--complete-reload"
            }) =>
        {
            Some(ask(format!(
                "changes the firewall (`{}`)",
                command.display()
            )))
        }
        "setenforce" | "aa-teardown" | "aa-disable" => Some(ask(format!(
            "switches the machine's security enforcement (`{}`)",
            command.display()
        ))),
        "init" | "telinit"
            if matches!(first, "1" | "s" | "S" | "single" | "2" | "3" | "4" | "5") =>
        {
            Some(ask(format!(
                "switches the machine to another runlevel (`{}`)",
                command.display()
            )))
        }
        "date"
            if args.iter().any(|a| {
                a == "-s" || a.starts_with("--set") || (a.starts_with("-s") && !a.starts_with("--"))
            }) =>
        {
            Some(ask(format!(
                "sets the machine's clock (`{}`)",
                command.display()
            )))
        }
        "hwclock"
            if args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "--set" | "--systohc" | "-w" | "--hctosys" | "-s"
                )
            }) =>
        {
            Some(ask(format!(
                "sets the machine's clock (`{}`)",
                command.display()
            )))
        }
        "timedatectl" if first.starts_with("set-") => Some(ask(format!(
            "sets the machine's clock (`{}`)",
            command.display()
        ))),
        "sysctl"
            if args
                .iter()
                .any(|a| a == "-w" || a == "--write" || a == "-p" || a == "--load")
                || ops.iter().any(|o| o.contains('=')) =>
        {
            Some(ask(format!(
                "changes the running kernel's settings (`{}`)",
                command.display()
            )))
        }
        "ufw" if matches!(first, "enable" | "default" | "deny" | "reject") => Some(ask(format!(
            "changes the firewall (`{}`)",
            command.display()
        ))),
        "iptables" | "ip6tables" | "nft" | "ufw"
            if has("-F") || has("--flush") || has("flush") || has("disable") || has("reset") =>
        {
            Some(ask(format!("removes the firewall's rules (`{name}`)")))
        }
        "docker" | "podman" => container(name, args, &ops),
        "docker-compose" | "podman-compose" => compose(name, args, &ops),
        "rclone"
            if matches!(
                first,
                "sync" | "purge" | "delete" | "deletefile" | "rmdirs" | "cleanup"
            ) =>
        {
            Some(ask(format!(
                "deletes files at a remote (`rclone {first}` deletes what the source lacks or \
                 all it is given)"
            )))
        }
        "gsutil" | "gcloud"
            if ops.contains(&"rsync")
                && (has_flag(args, "d", &["delete-unmatched-destination-objects"])) =>
        {
            Some(ask(format!(
                "deletes what the source lacks at the destination (`{name} rsync -d`)"
            )))
        }
        // `kubectl delete pod web-5d9c…`: named pods, which their deployment starts again.
        "kubectl" | "oc"
            if kube_verb(args) == Some("delete")
                && ops
                    .get(1)
                    .is_some_and(|k| matches!(*k, "pod" | "pods" | "po"))
                && ops.len() > 2
                && !args.iter().any(|a| {
                    matches!(a.as_str(), "--all" | "-A" | "--all-namespaces")
                        || a.starts_with("-l")
                        || a.starts_with("--selector")
                        || a.contains("prod")
                }) =>
        {
            None
        }
        "kubectl" | "oc" if matches!(kube_verb(args), Some("delete" | "drain" | "replace")) => {
            Some(ask(format!(
                "deletes or replaces cluster resources (`{name} {}`)",
                kube_verb(args).unwrap_or_default()
            )))
        }
        // `chmod u+s x`, `chmod 4755 x`, `install -m 4755 /bin/sh x`: a program that runs
        // with its owner's rights, whoever starts it.
        "chmod" | "install" if sets_user_id(name, args) => Some(ask(format!(
            "makes a program run with its owner's rights whoever starts it (setuid or setgid: \
             `{}`)",
            command.argv.join(" ")
        ))),
        // `kill -9 0`: every process of the caller's group, the agent's own among them.
        "kill" if ops.iter().any(|o| matches!(*o, "0" | "-0")) && !has_flag(args, "l", &[]) => {
            Some(ask(
                "signals every process of its own process group (`kill 0`), the agent's among \
                 them"
                    .into(),
            ))
        }
        "rustup" if ops.starts_with(&["self", "uninstall"]) => Some(ask(
            "removes Rust and every program cargo installed (`rustup self uninstall`)".into(),
        )),
        "claude" => unhooked_client(args),
        "helm" if matches!(first, "uninstall" | "delete") => Some(ask(
            "removes a release from the cluster (`helm uninstall`)".into(),
        )),
        "terraform" | "tofu" | "pulumi" | "cdk"
            if (first == "destroy" || first == "apply")
                && !args.iter().any(|a| a == "-help" || a == "--help")
                && (first == "destroy"
                    || args
                        .iter()
                        .any(|a| a == "-destroy" || a.starts_with("-auto-approve"))) =>
        {
            Some(ask(format!(
                "changes or destroys infrastructure without review (`{name}`)"
            )))
        }
        "aws" | "gcloud" | "az" | "gsutil" | "doctl" | "flyctl" | "heroku" => {
            let destroys = args.iter().any(|a| {
                a == "rm"
                    || a == "rb"
                    || a.starts_with("delete")
                    || a.starts_with("terminate")
                    || a == "destroy"
                    || a.starts_with("remove")
            });
            destroys
                .then(|| format!("deletes cloud resources (`{name}`)"))
                .map(ask)
        }
        // `gh api -X PATCH repos/o/r/git/refs/heads/main -f sha=… -F force=true`: a
        // branch moved on the remote whatever it held, as `git push --force` does.
        "gh" if first == "api" && forces_ref(args) => Some(Finding::deny(
            "guard:git-push-force",
            "moves a branch on the remote by force through GitHub's API (`force=true`), \
             overwriting its history"
                .into(),
            "Update the branch without `force`, or ask the user to do it.",
        )),
        "npm" | "pnpm" | "yarn" | "cargo" | "twine" | "gem" | "poetry" | "flit" | "mvn" | "gh"
            if (matches!(
                first,
                "publish" | "upload" | "push" | "unpublish" | "yank" | "deploy"
            ) || (name == "gh" && args.iter().any(|a| a == "delete")))
                && !args
                    .iter()
                    .any(|a| a == "--dry-run" || (a == "-n" && name == "cargo")) =>
        {
            Some(ask(format!(
                "publishes or withdraws a package or release (`{name} {first}`)"
            )))
        }
        _ if removes_toolchains(name, args, &ops) => Some(ask(format!(
            "removes an installed language toolchain, environment or user-wide programs (`{}`)",
            command.argv.join(" ")
        ))),
        _ if removes_system_packages(name, args, &ops)
            && !args.iter().any(|a| {
                a.contains("remove-essential")
                    || a == "--force-all"
                    || a == "--nodeps"
                    || a.starts_with("--force-depends")
            }) =>
        {
            Some(ask(format!(
                "removes packages from this machine's system (`{}`)",
                command.display()
            )))
        }
        "apt-get" | "apt" | "aptitude" | "dpkg" | "rpm" | "yum" | "dnf"
            if args.iter().any(|a| {
                a.contains("remove-essential")
                    || a == "--force-all"
                    || a == "--nodeps"
                    || a.starts_with("--force-depends")
            }) && args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "remove"
                        | "purge"
                        | "autoremove"
                        | "-P"
                        | "-r"
                        | "--purge"
                        | "--remove"
                        | "-e"
                        | "--erase"
                )
            }) =>
        {
            Some(Finding::deny(
                "guard:outside",
                format!("removes packages the system needs to run (`{name}`)"),
                ASK_USER,
            ))
        }
        // Secrets engines, auth methods and versions of secrets that hold what nothing
        // else keeps.
        "vault" => {
            let ops = operands(args);
            let said = |words: &[&str]| words.iter().all(|w| ops.contains(w));
            let destroys = said(&["secrets", "disable"])
                || said(&["auth", "disable"])
                || said(&["kv", "destroy"])
                || said(&["kv", "metadata", "delete"])
                || said(&["policy", "delete"])
                || said(&["operator", "seal"])
                || said(&["operator", "raft", "remove-peer"])
                || ops.first() == Some(&"delete");
            destroys.then(|| {
                ask(format!(
                    "destroys secrets or what guards them in Vault (`vault {}`)",
                    ops.iter().take(3).copied().collect::<Vec<_>>().join(" ")
                ))
            })
        }
        "kafka-delete-records" | "kafka-delete-records.sh" => Some(ask(
            "deletes records of a Kafka topic (`kafka-delete-records`)".into(),
        )),
        "kafka-topics"
        | "kafka-topics.sh"
        | "kafka-consumer-groups"
        | "kafka-consumer-groups.sh"
            if args.iter().any(|a| a == "--delete")
                || args.iter().any(|a| a == "--reset-offsets")
                    && args.iter().any(|a| a == "--execute") =>
        {
            Some(ask(format!(
                "deletes topics or consumer groups, or moves where they read (`{name}`)"
            )))
        }
        "mdadm"
            if args
                .iter()
                .any(|a| a == "--stop" || a == "-S" || a == "--fail" || a == "--remove") =>
        {
            Some(ask("stops or takes apart a disk array (`mdadm`)".into()))
        }
        _ if matches!(name, "dropdb" | "dropuser" | "pg_restore" | "mongorestore")
            || sql::dialect(name).is_some() =>
        {
            database(name, args, &command.stdin_texts, command.under_xargs())
        }
        "curl" | "http" | "https" | "xh" | "xhs" | "wget" => deletes_remotely(args),
        // Any other program handed a disk or a partition (`e2fsck -y /dev/sda1`,
        // `grub-install /dev/sda`, `xfs_repair -L`): what it does to it is not known.
        _ if !(DEVICE_READERS.contains(&name) || name == "hdparm" && hdparm_reads(args))
            && ops.iter().any(|o| block_device(o)) =>
        {
            Some(ask(format!(
                "works on a disk or partition (`{}`), which nagger does not know to leave \
                 as it is",
                command.display()
            )))
        }
        _ => None,
    }
}

/// Whether `hdparm` is only asked what a disk is or how fast it reads (`-I`, `-i`, `-g`,
/// `-t`, `-T`, `-C`, `-H`), setting nothing.
fn hdparm_reads(args: &[String]) -> bool {
    args.iter().filter(|a| a.starts_with('-')).all(|a| {
        a.len() > 1
            && a[1..]
                .chars()
                .all(|c| matches!(c, 'I' | 'i' | 'g' | 't' | 'T' | 'C' | 'H'))
    })
}

/// Programs that only read what a disk holds or tell about it.
const DEVICE_READERS: &[&str] = &[
    "lsblk",
    "blkid",
    "df",
    "du",
    "ls",
    "stat",
    "file",
    "cat",
    "head",
    "tail",
    "hexdump",
    "xxd",
    "od",
    "smartctl",
    "udevadm",
    "findmnt",
    "lsof",
    "fuser",
    "strings",
    "cmp",
    "md5sum",
    "sha256sum",
    "sha1sum",
    "readlink",
    "realpath",
    "test",
    "[",
    "echo",
    "printf",
    "mount",
    "umount",
    "dd",
    "mkfs",
    "wipefs",
    "fdisk",
    "sfdisk",
    "gdisk",
    "sgdisk",
    "parted",
    "shred",
    "blkdiscard",
    "cryptsetup",
    "mdadm",
    "pvcreate",
    "vgcreate",
    "mkswap",
    "swapon",
    "swapoff",
];

/// A disk or partition's device file (`/dev/sda1`, `/dev/nvme0n1`, `/dev/mapper/x`).
fn block_device(path: &str) -> bool {
    let Some(name) = path.trim().strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "md", "dm-", "loop", "mapper/", "disk/",
    ]
    .iter()
    .any(|p| name.starts_with(p))
}

/// Told only to show what it would do: `--dry-run` (not `--dry-run=none`), `--dryrun`,
/// a package manager's `--simulate`.
pub(super) fn dry_run(args: &[String]) -> bool {
    args.iter().take_while(|a| *a != "--").any(|a| {
        matches!(
            a.as_str(),
            "--dry-run" | "--dryrun" | "--simulate" | "--just-print"
        ) || a.strip_prefix("--dry-run=").is_some_and(|v| v != "none")
    })
}

/// Whether `chmod` or `install -m` sets the set-user-ID or set-group-ID bit: a numeric
/// mode of four digits whose first holds 4 or 2, or a symbolic one adding `s`.
fn sets_user_id(name: &str, args: &[String]) -> bool {
    let setuid = |mode: &str| {
        let numeric = mode.len() >= 4
            && mode.bytes().all(|b| (b'0'..=b'7').contains(&b))
            && (mode.as_bytes()[mode.len() - 4] - b'0') & 6 != 0;
        let symbolic = mode.split(',').any(|clause| {
            clause
                .find(['+', '='])
                .is_some_and(|at| clause[at + 1..].contains('s'))
        });
        numeric || symbolic
    };
    match name {
        "chmod" => args
            .iter()
            .find(|a| !a.starts_with('-') || a.starts_with("-s"))
            .is_some_and(|mode| setuid(mode)),
        _ => args.iter().enumerate().any(|(k, a)| {
            a == "-m" && args.get(k + 1).is_some_and(|m| setuid(m))
                || a.strip_prefix("--mode=").is_some_and(setuid)
                || a.strip_prefix("-m")
                    .filter(|m| !m.is_empty())
                    .is_some_and(setuid)
        }),
    }
}

/// A version manager or toolchain installer told to remove what it installed:
/// `rustup toolchain uninstall`, `nvm uninstall`, `pyenv uninstall`, `conda env remove`,
/// `asdf uninstall`, `uv python uninstall`, `nix-collect-garbage -d`, `update-alternatives --remove-all`, pip told to break the
/// system's packages …
fn removes_toolchains(name: &str, args: &[String], ops: &[&str]) -> bool {
    let first = ops.first().copied().unwrap_or("");
    let second = ops.get(1).copied().unwrap_or("");
    let any = |f: &dyn Fn(&str) -> bool| args.iter().any(|a| f(a));
    match name {
        "rustup" => {
            matches!(first, "toolchain" | "target" | "component")
                && matches!(second, "uninstall" | "remove")
                || first == "uninstall"
        }
        "nvm" | "fnm" | "pyenv" | "rbenv" | "nodenv" | "goenv" | "jenv" | "plenv" | "phpenv"
        | "tfenv" | "sdk" | "asdf" | "mise" | "rtx" | "volta" | "proto" | "juliaup" | "ghcup" => {
            matches!(
                first,
                "uninstall" | "remove" | "rm" | "rmi" | "uninstall-all" | "prune"
            ) || first == "toolchain" && matches!(second, "uninstall" | "remove")
        }
        "n" => matches!(first, "rm" | "-" | "prune" | "uninstall"),
        "uv" | "rye" => first == "python" && matches!(second, "uninstall" | "remove"),
        "conda" | "mamba" | "micromamba" => {
            (first == "env" && second == "remove")
                || (matches!(first, "remove" | "uninstall") && any(&|a| a == "--all"))
        }
        "opam" => first == "switch" && matches!(second, "remove" | "uninstall"),
        "gem" => {
            first == "uninstall"
                && any(&|a| {
                    a == "--all" || (a.starts_with('-') && !a.starts_with("--") && a.contains('a'))
                })
        }
        "nix-collect-garbage" => any(&|a| matches!(a, "-d" | "--delete-old")),
        "update-alternatives" => any(&|a| matches!(a, "--remove-all" | "--remove")),
        "pip" | "pip3" => {
            matches!(first, "uninstall")
                && any(&|a| a == "--break-system-packages" || a == "--user")
        }
        _ => false,
    }
}

/// A system package manager told to remove packages: `apt-get remove`, `dnf erase`,
/// `pacman -R`, `apk del`, `brew uninstall`, `snap remove`, `dpkg -P`, `rpm -e` …
fn removes_system_packages(name: &str, args: &[String], ops: &[&str]) -> bool {
    let first = ops.first().copied().unwrap_or("");
    match name {
        "apt-get" | "apt" | "aptitude" => {
            matches!(first, "remove" | "purge" | "autoremove" | "autopurge")
        }
        "yum" | "dnf" | "microdnf" | "tdnf" => {
            matches!(first, "remove" | "erase" | "autoremove" | "rm")
        }
        "zypper" => matches!(first, "remove" | "rm"),
        "apk" => first == "del",
        "snap" => first == "remove",
        "flatpak" => matches!(first, "uninstall" | "remove"),
        "brew" | "port" => matches!(first, "uninstall" | "remove" | "rm"),
        "xbps-remove" | "pkg_delete" => true,
        "pkg" => matches!(first, "delete" | "remove"),
        "nix-env" => has_flag(args, "e", &["uninstall"]),
        "emerge" => has_flag(args, "C", &["unmerge", "depclean"]),
        "pacman" | "yay" | "paru" => args.iter().any(|a| {
            a == "--remove" || (a.starts_with("-R") && a.len() > 1) || {
                a.starts_with('-') && !a.starts_with("--") && a.contains('R')
            }
        }),
        "dpkg" => has_flag(args, "rP", &["remove", "purge"]),
        "rpm" => has_flag(args, "e", &["erase"]),
        _ => false,
    }
}

/// `docker-compose down -v`: the project's named volumes, its data, deleted.
fn compose(name: &str, args: &[String], ops: &[&str]) -> Option<Finding> {
    // A compose file of the test suite (`-f docker-compose.test.yml`): its volumes are
    // made again by the suite.
    let files = super::shell::option_values(args, &["-f"], &["--file"]);
    if !files.is_empty()
        && files.iter().all(|f| {
            f.to_ascii_lowercase().contains("test") && !f.to_ascii_lowercase().contains("prod")
        })
    {
        return None;
    }
    // The verb, past the values of `-f FILE`, `-p NAME`, `--env-file F` before it.
    let first = ops
        .iter()
        .copied()
        .find(|o| {
            matches!(
                *o,
                "down" | "rm" | "up" | "run" | "exec" | "build" | "ps" | "logs"
            )
        })
        .unwrap_or("");
    let volumes = has_flag(args, "v", &["volumes"]);
    (matches!(first, "down" | "rm") && volumes).then(|| {
        ask(format!(
            "deletes the volumes of the project's containers, with their data (`{name} {first} -v`)"
        ))
    })
}

/// `docker run -v /:/host`, `docker system prune -a --volumes`, `docker volume rm`.
fn container(name: &str, args: &[String], ops: &[&str]) -> Option<Finding> {
    let first = ops.first().copied().unwrap_or("");
    let second = ops.get(1).copied().unwrap_or("");
    if matches!(first, "run" | "create") {
        for (k, a) in args.iter().enumerate() {
            let value = match a.as_str() {
                "-v" | "--volume" | "--mount" => args.get(k + 1).map(String::as_str),
                _ => a
                    .strip_prefix("--volume=")
                    .or_else(|| a.strip_prefix("--mount="))
                    .or_else(|| a.strip_prefix("-v").filter(|v| !v.is_empty())),
            };
            let Some(value) = value else { continue };
            let source = if let Some(src) = value
                .split(',')
                .find_map(|p| p.strip_prefix("source=").or_else(|| p.strip_prefix("src=")))
            {
                src
            } else {
                value.split(':').next().unwrap_or("")
            };
            let read_only =
                value.ends_with(":ro") || value.contains(",readonly") || value.contains(",ro");
            if !read_only && dangerous_target(source, Reach::SystemTree).is_some() {
                return Some(ask(format!(
                    "gives a container the host's `{source}` to write (`{name} {first} -v`)"
                )));
            }
        }
        if args.iter().any(|a| a == "--privileged") {
            return Some(ask(format!(
                "runs a privileged container, which controls the host (`{name}`)"
            )));
        }
        return None;
    }
    if first == "compose" {
        return compose(&format!("{name} compose"), args, &ops[1..]);
    }
    // Containers and images named one by one come back from their images and builds
    // (`docker rm -f redis-dev` only stops it first); their volumes (`rm -v`) hold data,
    // and a list made as the line runs (`docker rm -f $(docker ps -aq)`) takes them all.
    let (verb, rest) = match (first, second) {
        ("container" | "image", "rm") => (second, ops.get(2..).unwrap_or(&[])),
        _ => (first, ops.get(1..).unwrap_or(&[])),
    };
    let removes = matches!(verb, "rm" | "rmi")
        && (has_flag(args, "v", &["volumes"])
            || rest.iter().any(|o| o.contains("$(") || o.contains('`'))
            || args.iter().any(|a| a.contains("$(") || a.contains('`')));
    let prunes = (first == "system" && second == "prune")
        && (has_flag(args, "a", &["all", "volumes"]))
        || (first == "system" && second == "reset")
        || (first == "volume" && matches!(second, "rm" | "prune"))
        || removes;
    prunes
        .then(|| format!("deletes containers, images or volumes for good (`{name} {first}`)"))
        .map(ask)
}

/// Whether `command` works on a database of the test suite, which the suite makes again:
/// run with a test environment (`RAILS_ENV=test`, `MIX_ENV=test`, `--env test`) or on a
/// database named for tests (`app_test`, `test_app`). Nothing that names production is.
pub(super) fn for_tests(command: &SimpleCommand) -> bool {
    let args = command.args();
    let words = || command.env.iter().chain(args.iter());
    if words().any(|w| w.to_ascii_lowercase().contains("prod")) {
        return false;
    }
    let test_value = |v: &str| matches!(v.to_ascii_lowercase().as_str(), "test" | "testing");
    // `RAILS_ENV=test` before the program, or as one of its words (`rails db:drop
    // RAILS_ENV=test`).
    let by_environment = command.env.iter().chain(args.iter()).any(|e| {
        e.split_once('=')
            .is_some_and(|(name, value)| name.ends_with("_ENV") && test_value(value))
    }) || args.iter().enumerate().any(|(k, a)| {
        let value = match a.as_str() {
            "-e" | "--env" | "--environment" => args.get(k + 1).map(String::as_str),
            _ => a
                .strip_prefix("--env=")
                .or_else(|| a.strip_prefix("--environment=")),
        };
        value.is_some_and(test_value)
    });
    let by_name = operands(args).last().is_some_and(|db| {
        let db = db.to_ascii_lowercase();
        db.ends_with("_test") || db.ends_with("_testing") || db.starts_with("test_")
    });
    by_environment || by_name
}

/// Checks that keep downloads and logins honest, switched off for every later run: TLS
/// verification in a tool's stored settings (`git config --global http.sslVerify
/// false`, `npm config set strict-ssl false`, `pip config set global.trusted-host …`,
/// `conda config --set ssl_verify false`, `kubectl config set-cluster
/// --insecure-skip-tls-verify`), host keys (`core.sshCommand` with
/// `StrictHostKeyChecking=no`), and installs from a registry over plain HTTP or one
/// trusted without its certificate.
pub(super) fn verification_off(command: &SimpleCommand) -> Option<Finding> {
    let args = command.args();
    let lower: Vec<String> = args.iter().map(|a| a.to_ascii_lowercase()).collect();
    let has = |w: &str| lower.iter().any(|a| a == w);
    let falsy = |v: &str| matches!(v, "false" | "0" | "no" | "off");
    // `KEY VALUE` or `KEY=VALUE` among the words.
    let set_to = |key: &dyn Fn(&str) -> bool, value: &dyn Fn(&str) -> bool| {
        lower.iter().enumerate().any(|(k, a)| {
            if let Some((k2, v)) = a.split_once('=') {
                key(k2.trim_start_matches('-')) && value(v)
            } else {
                key(a.trim_start_matches('-')) && lower.get(k + 1).is_some_and(|v| value(v))
            }
        })
    };
    let plain_http = lower.iter().any(|a| a.contains("http://"));
    let off = match command.name() {
        "git" if has("config") => {
            set_to(&|k| k.ends_with("sslverify"), &falsy)
                || set_to(&|k| k == "core.sshcommand", &|v| {
                    v.contains("stricthostkeychecking=no")
                })
        }
        "npm" | "yarn" | "pnpm" if has("config") => {
            set_to(&|k| k == "strict-ssl" || k == "strictssl", &falsy)
                || (set_to(&|k| k == "registry", &|v| v.starts_with("http://")))
        }
        "npm" | "yarn" | "pnpm" | "npx" => {
            set_to(&|k| k == "registry", &|v| v.starts_with("http://"))
                || set_to(&|k| k == "strict-ssl", &falsy)
        }
        "pip" | "pip3" | "uv" | "pipx" => {
            lower.iter().any(|a| a.contains("trusted-host"))
                || (plain_http
                    && set_to(
                        &|k| {
                            matches!(
                                k,
                                "i" | "index-url" | "extra-index-url" | "global.index-url"
                            )
                        },
                        &|v| v.starts_with("http://"),
                    ))
        }
        "conda" | "mamba" => set_to(&|k| k == "ssl_verify", &falsy),
        "kubectl" | "oc" => {
            has("config")
                && lower.iter().any(|a| {
                    a == "--insecure-skip-tls-verify" || a == "--insecure-skip-tls-verify=true"
                })
        }
        _ => false,
    };
    off.then(|| {
        ask(format!(
            "switches off a check that keeps downloads or logins honest (`{}`)",
            command.display()
        ))
    })
}

/// Changes that open the machine, a cluster or an account to others, or take away what
/// keeps it trusted: a shell served to the network (`nc -l -e /bin/sh`, `socat
/// TCP-LISTEN:… EXEC:bash`, `ngrok` of files), a key's passphrase stripped, admin rights
/// granted (`AdministratorAccess`, `cluster-admin`, a second root user, `sudo` group),
/// packages installed without their signature or from a repository added on the spot,
/// downgrades and package swaps, whole clusters uninstalled or drained, a deployment
/// scaled to nothing by a patch, commands fanned out to many hosts.
pub(super) fn opens_or_grants(command: &SimpleCommand) -> Option<Finding> {
    let name = command.name();
    let args = command.args();
    let lower: Vec<String> = args.iter().map(|a| a.to_ascii_lowercase()).collect();
    let has = |w: &str| lower.iter().any(|a| a == w);
    let any = |f: &dyn Fn(&str) -> bool| lower.iter().any(|a| f(a));
    // `socat TCP-LISTEN:… EXEC:bash` is read as the program it runs; the listener is in
    // the words before.
    let served = command.prefixed.as_deref().is_some_and(|words| {
        let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
        lower.iter().any(|w| super::shell::basename(w) == "socat")
            && lower.iter().any(|a| {
                a.starts_with("tcp-listen")
                    || a.starts_with("tcp4-listen")
                    || a.starts_with("udp-listen")
            })
    });
    if served {
        return Some(ask(format!(
            "serves a program to anyone who connects (`{}`)",
            command.display()
        )));
    }
    // PowerShell's commands are spelled in any case (`Format-Volume`).
    let lname = name.to_ascii_lowercase();
    let what: Option<&str> = match lname.as_str() {
        "nc" | "ncat" | "netcat" | "nc.traditional" | "nc.openbsd"
            if any(&|a| a.starts_with('-') && !a.starts_with("--") && a.contains('l'))
                && any(&|a| {
                    a == "-e"
                        || a == "-c"
                        || a == "--exec"
                        || a == "--sh-exec"
                        || (a.starts_with('-') && !a.starts_with("--") && a.ends_with('e'))
                }) =>
        {
            Some("serves a shell to anyone who connects")
        }
        "ngrok" | "cloudflared" | "localtunnel" | "lt"
            if any(&|a| {
                a.starts_with("file://") || a.contains("$home") || a == "~" || a == "/"
            }) =>
        {
            Some("publishes the machine's files on the internet")
        }
        "ssh-keygen"
            if has("-p")
                && lower
                    .windows(2)
                    .any(|w| w[0] == "-n" && matches!(w[1].as_str(), "" | "''" | "\"\"")) =>
        {
            Some("strips a key's passphrase")
        }
        "aws" if any(&|a| a.contains("administratoraccess") || a.contains("iamfullaccess")) => {
            Some("grants full administrator rights")
        }
        "kubectl" | "oc"
            if (has("clusterrolebinding") || has("rolebinding"))
                && any(&|a| a.contains("cluster-admin")) =>
        {
            Some("grants cluster-admin rights")
        }
        "kubectl" | "oc"
            if has("patch")
                && any(&|a| a.contains("\"replicas\":0") || a.contains("\"replicas\": 0")) =>
        {
            Some("scales a deployment to nothing")
        }
        "useradd" | "adduser" | "usermod"
            if any(&|a| a == "-o") && lower.windows(2).any(|w| w[0] == "-u" && w[1] == "0") =>
        {
            Some("makes a second root user")
        }
        "usermod" | "gpasswd" | "adduser"
            if any(&|a| {
                a.split(',')
                    .any(|g| matches!(g, "sudo" | "wheel" | "admin" | "root" | "docker"))
            }) && any(&|a| {
                a == "-ag"
                    || a == "-g"
                    || a == "-a"
                    || a == "sudo"
                    || a == "wheel"
                    || a.contains("sudo,")
            }) =>
        {
            Some("gives a user administrator rights")
        }
        "rpm" | "dnf" | "yum" | "zypper"
            if any(&|a| a == "--nosignature" || a == "--nogpgcheck" || a == "--no-gpg-checks") =>
        {
            Some("installs packages without checking their signature")
        }
        "dnf" | "yum" if (has("history") && has("undo")) || has("swap") => {
            Some("undoes or swaps installed packages")
        }
        "apt" | "apt-get" | "aptitude"
            if any(&|a| {
                a == "--allow-downgrades"
                    || a == "--allow-unauthenticated"
                    || a == "--allow-remove-essential"
            }) =>
        {
            Some("installs packages past the checks that keep the system whole")
        }
        "add-apt-repository" | "apt-add-repository" if !has("--remove") && !has("-r") => {
            Some("adds a package repository every later install trusts")
        }
        "gem" if has("uninstall") && any(&|a| a == "-a" || a == "--all") => {
            Some("removes every installed gem")
        }
        "flux" | "linkerd" | "istioctl" if has("uninstall") => {
            Some("uninstalls a cluster's system")
        }
        "nomad" if has("drain") && has("node") => Some("drains a cluster node"),
        "firebase"
            if any(&|a| a.starts_with("hosting:disable") || a.starts_with("projects:delete")) =>
        {
            Some("takes a site down")
        }
        _ if name.ends_with("-uninstall.sh") || name.ends_with("-killall.sh") => {
            Some("uninstalls a cluster from the machine")
        }
        "pdsh" | "pssh" | "parallel-ssh" | "clush" => Some("runs a command on many hosts at once"),
        // Protections of the machine switched off.
        "auditctl" if has("-d") || lower.windows(2).any(|w| w[0] == "-e" && w[1] == "0") => {
            Some("switches the audit log off")
        }
        "setcap"
            if any(&|a| {
                a.contains("cap_setuid")
                    || a.contains("cap_sys_admin")
                    || a.contains("cap_dac_override")
            }) =>
        {
            Some("gives a program root's powers")
        }
        "spctl" if any(&|a| a == "--master-disable" || a == "--global-disable") => {
            Some("switches Gatekeeper off")
        }
        "csrutil" if has("disable") => Some("switches System Integrity Protection off"),
        // The machine's network identity and reach.
        "iptables" | "ip6tables" | "nft"
            if any(&|a| {
                matches!(
                    a,
                    "-a" | "-i" | "-p" | "--append" | "--insert" | "--policy" | "add" | "insert"
                )
            }) && any(&|a| matches!(a, "drop" | "reject")) =>
        {
            Some("drops network traffic")
        }
        "hostnamectl" if has("set-hostname") || has("hostname") => Some("renames the machine"),
        "resolvectl"
            if any(&|a| matches!(a, "dns" | "domain" | "revert" | "flush-caches"))
                && args.len() > 1 =>
        {
            Some("changes where the machine resolves names")
        }
        "ip" if has("link") && has("set") && (has("mtu") || has("down")) => {
            Some("changes a network link of the machine")
        }
        // The trash emptied: what the user deleted is gone for good.
        "trash-empty" => Some("empties the trash for good"),
        "gio" if has("trash") && has("--empty") => Some("empties the trash for good"),
        // Disks of Windows machines.
        "format" | "format.com" if any(&|a| a.len() == 2 && a.ends_with(':')) => {
            Some("formats a disk")
        }
        "diskpart" => Some("partitions or erases disks"),
        "format-volume" | "clear-disk" | "initialize-disk" => Some("formats or erases a disk"),
        // Packages of Windows machines removed.
        "choco" | "winget" | "scoop" if any(&|a| matches!(a, "uninstall" | "remove" | "rm")) => {
            Some("removes installed programs")
        }
        "uninstall-package" => Some("removes installed programs"),
        "taskkill" | "taskkill.exe" if any(&|a| a == "/f") => Some("kills processes by force"),
        "curl" | "http" | "https" | "xh" | "wget"
            if any(&|a| a.contains("/_delete_by_query") || a.contains("/_flush_all")) =>
        {
            Some("deletes every document a query matches")
        }
        // An endless stream read as lines (`tail /dev/zero`, `sort /dev/urandom`): one line
        // that never ends, held in memory until the machine runs out.
        "tail" | "sort" | "tac" | "rev" | "uniq" | "grep" | "sed" | "cut" | "paste" | "fold"
        | "fmt" | "nl" | "column" | "shuf" | "cat" | "less" | "more"
            if name != "cat"
                && name != "less"
                && name != "more"
                && command
                    .args()
                    .iter()
                    .chain(command.reads_from.iter())
                    .any(|a| {
                        matches!(a.as_str(), "/dev/zero" | "/dev/urandom" | "/dev/random")
                    }) =>
        {
            Some("reads an endless stream as lines, holding it in memory until none is left")
        }
        // Floods: packets as fast as they go, or millions of requests.
        "ping" | "ping6" if any(&|a| a == "-f" || a == "--flood") => {
            Some("floods a host with packets")
        }
        "hping3" | "hping" | "nping"
            if any(&|a| matches!(a, "--flood" | "--faster" | "--rate")) =>
        {
            Some("floods a host with packets")
        }
        "ab" | "hey" | "wrk" | "siege" | "oha"
            if lower.windows(2).any(|w| {
                matches!(w[0].as_str(), "-n" | "-c" | "-r" | "--requests")
                    && w[1].parse::<u64>().is_ok_and(|n| n >= 100_000)
            }) =>
        {
            Some("sends a flood of requests")
        }
        "openssl"
            if has("speed")
                && lower
                    .windows(2)
                    .any(|w| w[0] == "-multi" && w[1].parse::<u64>().is_ok_and(|n| n >= 16)) =>
        {
            Some("starts a busy process on every core and more")
        }
        "zip" | "tar" | "gzip" | "xz" | "bzip2" | "zstd" | "7z"
            if any(&|a| matches!(a, "/dev/zero" | "/dev/urandom" | "/dev/random")) =>
        {
            Some("writes an archive of an endless stream until the disk is full")
        }
        // GitHub's repositories and automation changed from the command line.
        "gh" if has("repo") && (has("archive") || has("rename") || has("transfer")) => {
            Some("archives, renames or hands over a repository")
        }
        "gh" if has("workflow") && has("disable") => Some("switches a workflow off"),
        "gh" if has("api")
            && any(&|a| {
                matches!(
                    a,
                    "-xpatch"
                        | "-xput"
                        | "-xdelete"
                        | "--method=patch"
                        | "--method=put"
                        | "--method=delete"
                ) || a == "patch"
                    || a == "put"
            })
            // The repository or organisation itself (`repos/o/r`), its workflows, hooks
            // and rules; a branch moved by `git/refs` is judged as a push.
            && any(&|a| {
                let path = a.trim_start_matches('/');
                let parts: Vec<&str> = path.split('/').collect();
                (path.starts_with("repos/") || path.starts_with("orgs/"))
                    && !path.contains("/git/refs")
                    && (parts.len() <= 3
                        || ["actions", "hooks", "rulesets", "branches", "environments"]
                            .iter()
                            .any(|p| parts.contains(p)))
            }) =>
        {
            Some("changes or deletes a repository's settings through GitHub's API")
        }
        // Clouds: an account leaving its organisation, a key made (and printed), a group
        // scaled to nothing, a project or bucket opened to everyone.
        "aws" if has("organizations") && has("leave-organization") => {
            Some("takes the account out of its organisation")
        }
        "aws" if has("iam") && has("create-access-key") => {
            Some("makes a new access key and prints its secret")
        }
        "aws" if any(&|a| a == "--desired-capacity" || a == "--max-size") && has("0") => {
            Some("scales a group of machines to nothing")
        }
        "gcloud" | "gsutil"
            if any(&|a| a.contains("allusers") || a.contains("allauthenticatedusers")) =>
        {
            Some("grants a role to everyone on the internet")
        }
        "eb" if has("terminate") => Some("terminates an environment"),
        "kubectl" | "oc" if has("apply") && has("--prune") => {
            Some("deletes every resource the applied files do not name (`--prune`)")
        }
        "docker" | "podman" if has("stack") && matches_any(&lower, &["rm", "remove", "down"]) => {
            Some("removes a whole stack of services")
        }
        "docker" | "podman" if has("swarm") && has("leave") => {
            Some("takes the node out of its swarm")
        }
        "docker" | "podman"
            if matches_any(&lower, &["rm", "container"])
                && any(&|a| {
                    a.starts_with('-') && !a.starts_with("--") && a.contains('a') && a.contains('f')
                }) =>
        {
            Some("removes every container, running ones too")
        }
        "nomad" if has("system") && has("gc") => {
            Some("collects every stopped job, allocation and node")
        }
        "azcopy" if has("remove") || has("rm") => Some("removes blobs from storage"),
        // Ansible's modules that remove or stop, on the hosts of an inventory.
        "ansible"
            if any(&|a| a.contains("state=absent") || a.contains("state=stopped"))
                || (has("-m") && any(&|a| matches!(a, "shell" | "command" | "raw"))) =>
        {
            Some("runs a module that removes or runs things on every host it names")
        }
        // The machine's firewall opened or off, its logs vacuumed, users deleted.
        "iptables" | "ip6tables" | "nft"
            if any(&|a| a == "accept")
                && any(&|a| {
                    matches!(a, "-i" | "-a" | "--insert" | "--append" | "-p" | "--policy")
                }) =>
        {
            Some("lets traffic through the machine's firewall")
        }
        "pfctl" if has("-d") => Some("switches the firewall off"),
        "journalctl" if any(&|a| a.starts_with("--vacuum") || a == "--rotate") => {
            Some("deletes the system's logs")
        }
        "dscl" if has("-delete") => Some("deletes a user or group of the machine"),
        "defaults" if any(&|a| a.contains("lsquarantine") || a.contains("gatekeeper")) => {
            Some("switches off the check of downloaded programs")
        }
        "update-alternatives" if has("--set") || has("--install") => {
            Some("changes which program a system command runs")
        }
        "fwupdmgr" | "fwupdtool" if has("install") || has("update") => {
            Some("writes firmware to the machine's devices")
        }
        // A repository opened to everyone or to someone else.
        "gh" if has("repo") && has("edit") && any(&|a| a.contains("public")) => {
            Some("makes a repository public")
        }
        "gh" if has("api")
            && any(&|a| a.contains("/collaborators/"))
            && any(&|a| a == "put" || a == "-xput" || a == "--method=put") =>
        {
            Some("adds a collaborator to a repository")
        }
        _ => None,
    };
    what.map(|w| ask(format!("{w} (`{}`)", command.display())))
}

/// Calls of database and process libraries that destroy what they reach.
const LIBRARY_DESTROYERS: &[&str] = &[
    ".flushall",
    ".flushdb",
    "flushAll(",
    "flushDb(",
    "drop_database(",
    "dropDatabase(",
    "drop_collection(",
    "dropCollection(",
    "delete_many({})",
    "deleteMany({})",
    ".objects.all().delete()",
    "drop_all(",
    "dropAll(",
    "truncate_all(",
    // Rails, Laravel, Sequelize, TypeORM, Mongoose, SQLAlchemy: every row or table.
    ".delete_all",
    ".destroy_all",
    "drop_table(",
    "drop_table ",
    "->truncate()",
    "::truncate()",
    ".truncate()",
    ".drop()",
    "sync({force:true})",
    "sync({ force: true })",
    "dropSchema(",
    "synchronize(true)",
    ".query.delete()",
    "Schema::drop",
    "dropIfExists(",
    "drop_tables(",
];

/// Interpreter code that destroys data or processes through a library rather than a
/// command: SQL that drops or empties handed to a driver (`cursor.execute('DROP SCHEMA
/// …')`, `client.query('DROP DATABASE …')`), a store emptied (`redis.flushall()`,
/// `client.drop_database('app')`), every process killed (`for p in
/// psutil.process_iter(): p.kill()`).
pub(super) fn code_destroys(code: &str) -> Option<Finding> {
    let code = &code[..code.floor_char_boundary(256 * 1024)];
    // SQL handed to a driver, not printed: a call that runs it is there.
    let runs_sql = [
        ".execute",
        ".query",
        "->exec",
        ".exec(",
        "executescript",
        ".raw(",
        "cursor",
        ".run(",
        "connect(",
        "->query",
    ]
    .iter()
    .any(|c| code.contains(c));
    for text in super::code::strings(code)
        .iter()
        .take(256)
        .filter(|_| runs_sql)
    {
        if text.len() < 4 || !text.is_ascii() {
            continue;
        }
        if let Some(what) = super::sql::destroys(super::sql::Dialect::Sql, text) {
            return Some(ask(format!(
                "runs SQL that {what} through a database library"
            )));
        }
    }
    if let Some(call) = LIBRARY_DESTROYERS.iter().find(|c| code.contains(*c)) {
        return Some(ask(format!(
            "empties or drops a data store through a library (`{}`)",
            call.trim_end_matches('(')
        )));
    }
    let every_process = code.contains("process_iter") || code.contains("pids()");
    if every_process && (code.contains(".kill(") || code.contains(".terminate(")) {
        return Some(ask("kills every process it can list".into()));
    }
    None
}

/// A systemd target that leaves the machine down or without its services.
fn stops_machine(target: &str) -> bool {
    let unit = target.strip_suffix(".target").unwrap_or(target);
    matches!(
        unit,
        "rescue"
            | "emergency"
            | "poweroff"
            | "reboot"
            | "halt"
            | "kexec"
            | "shutdown"
            | "runlevel0"
            | "runlevel1"
            | "runlevel6"
    )
}

/// A folder of the system a mount over would hide.
fn system_folder(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    path.is_empty()
        || [
            "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/home", "/root", "/var",
            "/opt", "/srv",
        ]
        .contains(&path)
}

/// Statements that drop or empty whole databases, tables or stores.
fn database(name: &str, args: &[String], stdin: &[String], fed: bool) -> Option<Finding> {
    let test_name = |db: &str| {
        let db = db.to_ascii_lowercase();
        let db = db.rsplit('/').next().unwrap_or(&db);
        let db = db.split('?').next().unwrap_or(db);
        !db.contains("prod")
            && (db.ends_with("_test") || db.ends_with("_testing") || db.starts_with("test_"))
    };
    if matches!(name, "dropdb" | "dropuser") {
        if operands(args).last().is_some_and(|db| test_name(db)) {
            return None;
        }
        return Some(ask(format!("drops a database or its users (`{name}`)")));
    }
    // `pg_restore --clean -d prod dump`, `mongorestore --drop`: what the database holds
    // is dropped before the dump is put in its place.
    let cleans = match name {
        "pg_restore" => {
            args.iter().any(|a| {
                a == "--clean" || super::shell::short_cluster(a).is_some_and(|c| c.contains('c'))
            }) && args
                .iter()
                .any(|a| matches!(a.as_str(), "-d" | "--dbname") || a.starts_with("--dbname="))
        }
        "mongorestore" => args.iter().any(|a| a == "--drop"),
        _ => false,
    };
    if cleans {
        let db = args.iter().enumerate().find_map(|(k, a)| match a.as_str() {
            "-d" | "--dbname" | "--db" | "--nsInclude" => args.get(k + 1).map(String::as_str),
            _ => a
                .strip_prefix("--dbname=")
                .or_else(|| a.strip_prefix("--db=")),
        });
        if db.is_some_and(test_name) {
            return None;
        }
        return Some(ask(format!(
            "drops what the database holds before restoring a dump in its place (`{name}`)"
        )));
    }
    // InfluxDB 2's own verbs: points or buckets deleted.
    if name == "influx"
        && let Some(verb) = args.iter().position(|a| !a.starts_with('-'))
        && (args[verb] == "delete"
            || args.get(verb + 1).is_some_and(|a| a == "delete")
                && matches!(
                    args[verb].as_str(),
                    "bucket" | "org" | "user" | "auth" | "task"
                ))
    {
        let words = if args[verb] == "delete" { 1 } else { 2 };
        return Some(ask(format!(
            "deletes data or the buckets, users or tokens that hold it (`influx {}`)",
            args[verb..verb + words].join(" ")
        )));
    }
    let dialect = sql::dialect(name)?;
    // `psql -d app_test -c 'TRUNCATE users'`: the project's test database, which its
    // suite fills again.
    let named = args.iter().enumerate().find_map(|(k, a)| match a.as_str() {
        "-d" | "--dbname" | "-D" | "--database" => args.get(k + 1).map(String::as_str),
        _ => a
            .strip_prefix("--dbname=")
            .or_else(|| a.strip_prefix("--database="))
            .or_else(|| a.strip_prefix("postgres://"))
            .or_else(|| a.strip_prefix("postgresql://"))
            .or_else(|| a.strip_prefix("mysql://")),
    });
    if named.is_some_and(test_name) {
        return None;
    }
    // Each word it is given (an option's value without the option: `-cDROP …`,
    // `--command=DROP …`), and what comes on its standard input.
    let words = args.iter().map(|a| {
        if let Some(long) = a.strip_prefix("--") {
            long.split_once('=').map_or("", |(_, v)| v)
        } else if a.starts_with('-') && a.len() > 2 && !a.starts_with("--") {
            a.get(2..).unwrap_or("")
        } else {
            a.as_str()
        }
    });
    // A Redis client takes one command as its words (`redis-cli -h h CONFIG SET dir x`).
    let redis_command = (dialect == sql::Dialect::Redis).then(|| redis_words(args));
    // `redis-cli --scan --pattern 'user:*' | xargs redis-cli del`: the keys a listing
    // gives it.
    if fed
        && let Some(command) = &redis_command
        && command
            .split_whitespace()
            .next()
            .is_some_and(|c| c.eq_ignore_ascii_case("del") || c.eq_ignore_ascii_case("unlink"))
    {
        return Some(ask(format!(
            "deletes the keys a listing feeds it, which the line does not name (`{name}`)"
        )));
    }
    let harm = if let Some(command) = &redis_command {
        std::iter::once(command.as_str())
            .chain(stdin.iter().map(String::as_str))
            .find_map(|text| sql::destroys(dialect, text))?
    } else {
        words
            .chain(stdin.iter().map(String::as_str))
            .find_map(|text| sql::destroys(dialect, text))?
    };
    Some(ask(format!("{harm} (`{name}`)")))
}

/// The command a Redis client's words give, past its options and their values.
fn redis_words(args: &[String]) -> String {
    const VALUED: &[&str] = &[
        "-h",
        "-p",
        "-s",
        "-a",
        "-u",
        "-n",
        "-r",
        "-i",
        "-d",
        "-D",
        "--user",
        "--pass",
        "--askpass",
        "--sni",
        "--cacert",
        "--cacertdir",
        "--cert",
        "--key",
        "--tls-ciphers",
        "--tls-ciphersuites",
        "--eval",
        "--pattern",
        "--count",
        "--quoted-pattern",
        "--memkeys-samples",
        "--functions-rdb",
        "--rdb",
        "--replica",
        "--lru-test",
    ];
    let mut out: Vec<&str> = Vec::new();
    let mut k = 0;
    while let Some(arg) = args.get(k) {
        k += 1;
        if arg.starts_with('-') && out.is_empty() {
            if VALUED.contains(&arg.as_str()) {
                k += 1;
            }
            continue;
        }
        out.push(arg);
    }
    // `--cluster call HOST:PORT COMMAND…`: the command sent to every node.
    if args.iter().any(|a| a == "--cluster")
        && out.first().is_some_and(|w| w.eq_ignore_ascii_case("call"))
    {
        out.drain(..out.len().min(2));
    }
    out.join(" ")
}

/// `curl -X DELETE https://…`: a request that deletes something on a server.
fn deletes_remotely(args: &[String]) -> Option<Finding> {
    let method = args
        .iter()
        .enumerate()
        .find_map(|(k, a)| match a.as_str() {
            "-X" | "--request" | "--method" => args.get(k + 1).map(String::as_str),
            // `-sX DELETE`, `-sXDELETE`: the method after `X` in a group of letters.
            _ if a.starts_with('-') && !a.starts_with("--") && a.contains('X') => {
                let rest = &a[a.find('X')? + 1..];
                if rest.is_empty() {
                    args.get(k + 1).map(String::as_str)
                } else {
                    Some(rest)
                }
            }
            // `http DELETE url`, `xh delete url` (HTTPie's method word).
            "DELETE" | "delete" if k == 0 => Some("DELETE"),
            _ => a
                .strip_prefix("--request=")
                .or_else(|| a.strip_prefix("--method=")),
        })?;
    method.eq_ignore_ascii_case("DELETE").then(|| {
        ask("sends a DELETE request, which removes something on a server (`curl -X DELETE`)".into())
    })
}

/// The verb of a `kubectl` command line, past the global options and their values
/// (`kubectl -n prod --context c delete …`).
fn kube_verb(args: &[String]) -> Option<&str> {
    const VALUED: &[&str] = &[
        "-n",
        "--namespace",
        "--context",
        "--cluster",
        "--kubeconfig",
        "-s",
        "--server",
        "--user",
        "--token",
        "--as",
        "--as-group",
        "--request-timeout",
        "-v",
        "--v",
        "--certificate-authority",
        "--client-certificate",
        "--client-key",
        "--cache-dir",
        "--tls-server-name",
        "--profile",
        "--profile-output",
        "--log-file",
    ];
    let mut k = 0;
    while k < args.len() {
        let a = args[k].as_str();
        if VALUED.contains(&a) {
            k += 2;
            continue;
        }
        if a.starts_with('-') {
            k += 1;
            continue;
        }
        return Some(a);
    }
    None
}

/// `claude --settings '{"disableAllHooks":true}' -p …`, `claude --setting-sources user`,
/// `claude --bare`, `claude --dangerously-skip-permissions`: a Claude Code started with
/// settings of the agent's choosing, which may leave out the hooks nagger runs in (and so
/// the guard), or in a mode where what the guard asks about runs unasked.
fn unhooked_client(args: &[String]) -> Option<Finding> {
    let flag = args.iter().enumerate().find_map(|(k, a)| {
        let (name, value) = match a.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (a.as_str(), args.get(k + 1).map(String::as_str)),
        };
        let permissive = name == "--permission-mode"
            && value.is_some_and(|v| matches!(v, "bypassPermissions" | "dontAsk"));
        (permissive
            || matches!(
                name,
                "--settings"
                    | "--setting-sources"
                    | "--bare"
                    | "--safe-mode"
                    | "--dangerously-skip-permissions"
                    | "--allow-dangerously-skip-permissions"
            ))
        .then_some(name)
    })?;
    Some(Finding::ask(
        "guard:self-protect-unsure",
        format!(
            "starts Claude Code with `{flag}`, which may leave out the hooks nagger guards \
             its calls in or let what nagger asks about through unasked"
        ),
        "Start it without that option, or ask the user.",
    ))
}

/// Whether an account tool changes accounts: removing one, or locking, deleting or
/// expiring its password, rather than showing what it holds (`passwd -S`).
fn accounts_changed(name: &str, args: &[String]) -> bool {
    match name {
        "passwd" => has_flag(args, "dle", &["delete", "lock", "expire"]),
        "usermod" => has_flag(args, "Lep", &["lock", "expiredate", "password"]),
        "chage" => has_flag(args, "EdM", &["expiredate", "lastday", "maxdays"]),
        _ => !args.iter().any(|a| a == "--help" || a == "-h"),
    }
}

/// Whether `gh api` ARGS update a git ref with `force` set (`-F force=true`,
/// `--field=force=true`, `-f force=1`).
fn forces_ref(args: &[String]) -> bool {
    let refs = args.iter().any(|a| a.contains("git/refs"));
    let mut fields: Vec<&str> = Vec::new();
    for (k, a) in args.iter().enumerate() {
        match a.as_str() {
            "-f" | "-F" | "--field" | "--raw-field" => {
                fields.extend(args.get(k + 1).map(String::as_str));
            }
            a => fields.extend(
                ["--field=", "--raw-field=", "-f", "-F"]
                    .iter()
                    .find_map(|p| a.strip_prefix(p)),
            ),
        }
    }
    refs && fields.iter().any(
        |f| matches!(f.split_once('='), Some(("force", v)) if matches!(v, "true" | "1" | "yes")),
    )
}

/// Processes the machine, its logins, its containers or the agent itself run on.
const VITAL: &[&str] = &[
    "init",
    "systemd",
    "sshd",
    "dockerd",
    "containerd",
    "kubelet",
    "NetworkManager",
    "dbus-daemon",
    "systemd-journald",
    "systemd-logind",
    "systemd-udevd",
    "udevd",
    "cron",
    "crond",
    "rsyslogd",
    "polkitd",
    "Xorg",
    "Xwayland",
    "gdm",
    "gdm3",
    "sddm",
    "lightdm",
    "gnome-shell",
    "plasmashell",
    "launchd",
    "WindowServer",
    "loginwindow",
    "agetty",
    "login",
    "claude",
    "nginx",
    "apache2",
    "httpd",
    "mysqld",
    "mariadbd",
    "postgres",
    "postmaster",
    "redis-server",
    "mongod",
    "code",
    "bash",
    "zsh",
    "sh",
    "fish",
    "tmux",
    "screen",
];

/// Sources that never end: the output of a command reading one has no size.
const ENDLESS: &[&str] = &["/dev/zero", "/dev/urandom", "/dev/random"];

/// Bytes a single file may be given at once before it is asked about.
const HUGE: u64 = 10 << 30;

/// `100G`, `1T`, `512M`, `10GiB`, `1e12`: a size in bytes.
fn size_of(text: &str) -> Option<u64> {
    let t = text.trim();
    if let Ok(n) = t.parse::<u64>() {
        return Some(n);
    }
    // `1e12`.
    if let Some((m, e)) = t.split_once(['e', 'E'])
        && let (Ok(m), Ok(e)) = (m.parse::<u64>(), e.parse::<u32>())
    {
        return Some(m.saturating_mul(10u64.saturating_pow(e)));
    }
    let digits = t.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = t.split_at(digits);
    let n: u64 = n.parse().ok()?;
    let unit = unit.trim_end_matches(['B', 'b']).trim_end_matches('i');
    let shift = match unit.to_ascii_uppercase().as_str() {
        "" | "C" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        "P" | "E" | "Z" | "Y" => 50,
        _ => return None,
    };
    Some(n.saturating_mul(1u64 << shift))
}

/// A file (or the disk) filled without bound, or with more than [`HUGE`] bytes at once:
/// `yes > f`, `cat /dev/zero > f`, `dd if=/dev/zero of=f` without `count=`,
/// `head -c 1T /dev/zero > f`, `fallocate -l 10T f`.
pub(super) fn fills_disk(command: &SimpleCommand) -> Option<Finding> {
    let name = command.name();
    let args = command.args();
    let ops = operands(args);
    let into_file = command
        .writes_to
        .iter()
        .any(|w| super::targets::a_file_filled(w));
    let endless_in = ops.iter().any(|o| ENDLESS.contains(o))
        || command
            .reads_from
            .iter()
            .any(|r| ENDLESS.contains(&r.as_str()));
    let filled = match name {
        "dd" => {
            let of = args.iter().find_map(|a| a.strip_prefix("of="));
            let endless = args
                .iter()
                .filter_map(|a| a.strip_prefix("if="))
                .any(|i| ENDLESS.contains(&i))
                || (!args.iter().any(|a| a.starts_with("if=")) && endless_in);
            let bytes = |key: &str| {
                args.iter()
                    .find_map(|a| a.strip_prefix(key))
                    .and_then(size_of)
            };
            let total = match (bytes("count="), bytes("bs=").or(bytes("obs="))) {
                (Some(count), bs) => Some(count.saturating_mul(bs.unwrap_or(512))),
                (None, _) => None,
            };
            let to_file =
                of.is_some_and(|o| !o.starts_with("/dev/")) || (of.is_none() && into_file);
            to_file && ((endless && total.is_none()) || total.is_some_and(|t| t > HUGE))
        }
        "fallocate" | "mkfile" | "xfs_mkfile" => {
            super::shell::option_values(args, &["-l"], &["--length"])
                .into_iter()
                .chain(ops.first().copied().filter(|_| name != "fallocate"))
                .filter_map(size_of)
                .any(|n| n > HUGE)
        }
        "head" => {
            let size = super::shell::option_values(args, &["-c"], &["--bytes"])
                .into_iter()
                .filter_map(size_of)
                .max();
            into_file && size.is_some_and(|n| n > HUGE)
        }
        "yes" => into_file,
        "seq" => into_file && ops.iter().any(|o| o.eq_ignore_ascii_case("inf")),
        "cat" | "base64" | "od" | "xxd" | "hexdump" | "tr" | "gzip" | "xz" | "zstd" | "bzip2"
        | "openssl" | "pv" | "tee" => into_file && endless_in,
        _ => false,
    };
    filled.then(|| {
        ask(format!(
            "fills a file without end, or with more than 10 GiB at once, until the disk is \
             full (`{}`)",
            command.display()
        ))
    })
}

/// `pkill -HUP nginx`, `killall -USR1 x`, `pkill -0 x`: a signal that asks a daemon to
/// reload, reopen its logs or say it is there, not to end.
fn reloads(args: &[String]) -> bool {
    let signal = args.iter().enumerate().find_map(|(k, a)| {
        if matches!(a.as_str(), "-s" | "--signal") {
            return args.get(k + 1).map(String::as_str);
        }
        a.strip_prefix("--signal=").or_else(|| {
            // `-HUP`, `-10`, and `-0` (a one-letter option is no signal, a digit is).
            a.strip_prefix('-').filter(|r| {
                (r.len() > 1 && r.bytes().all(|b| b.is_ascii_alphanumeric()))
                    || (r.len() == 1 && r.bytes().all(|b| b.is_ascii_digit()))
            })
        })
    });
    signal.is_some_and(|s| {
        matches!(
            s.trim_start_matches("SIG"),
            "HUP" | "USR1" | "USR2" | "CONT" | "WINCH" | "0" | "1" | "10" | "12" | "18" | "28"
        )
    })
}

/// `pkill -HUP x`, `pkill -USR1 x`: the words that name a signal taken out, so their
/// letters are not read as options.
fn without_signals(args: &[String]) -> Vec<String> {
    args.iter()
        .filter(|a| {
            let Some(rest) = a.strip_prefix('-') else {
                return true;
            };
            let rest = rest.strip_prefix("SIG").unwrap_or(rest);
            !(rest.len() > 1
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit()))
        })
        .cloned()
        .collect()
}

/// `pkill -u $USER -f jupyter`: the user's own processes narrowed by a pattern.
fn own_user_with_pattern(args: &[String]) -> bool {
    let own = |w: &str| {
        matches!(
            w,
            "$USER" | "${USER}" | "$(whoami)" | "`whoami`" | "$(id -u)" | "$(id -un)" | "$LOGNAME"
        )
    };
    let user = args
        .windows(2)
        .find(|w| w[0] == "-u" || w[0] == "--user")
        .map(|w| w[1].as_str())
        .or_else(|| args.iter().find_map(|a| a.strip_prefix("--user=")));
    let values: Vec<&str> = args
        .windows(2)
        .filter(|w| {
            matches!(
                w[0].as_str(),
                "-u" | "-U" | "-g" | "-G" | "-P" | "-s" | "-t" | "--user" | "--signal"
            )
        })
        .map(|w| w[1].as_str())
        .collect();
    let pattern = args
        .iter()
        .any(|a| !a.starts_with('-') && !values.contains(&a.as_str()));
    user.is_some_and(own) && pattern
}

/// `pkill -P $$`: the children of this shell only, the agent's own jobs.
fn own_children(args: &[String]) -> bool {
    let own = |w: &str| matches!(w, "$$" | "$BASHPID" | "${BASHPID}");
    let mut by_parent = false;
    for (k, a) in args.iter().enumerate() {
        if a == "-P" || a == "--parent" {
            by_parent = args.get(k + 1).is_some_and(|v| own(v));
            if !by_parent {
                return false;
            }
        } else if let Some(v) = a.strip_prefix("--parent=").or_else(|| a.strip_prefix("-P")) {
            if v.is_empty() {
                continue;
            }
            by_parent = own(v);
            if !by_parent {
                return false;
            }
        } else if a.starts_with('-')
            && a.len() > 1
            && !a[1..]
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
            && a.contains(['U', 'g', 's', 't', 'v'])
        {
            return false;
        }
    }
    by_parent
}

/// `bfg.jar`, `/opt/bfg-1.14.0.jar`.
fn basename_is_bfg(word: &str) -> bool {
    let base = super::shell::basename(word).to_ascii_lowercase();
    base.starts_with("bfg")
        && std::path::Path::new(&base)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("jar"))
}

/// Ports databases, brokers and cluster services listen on.
const SERVICE_PORTS: &[u32] = &[
    2375, 2376, 2379, 3306, 5432, 5672, 6379, 6443, 9042, 9092, 9200, 10250, 11211, 27017,
];

/// Whether a process name or pattern stands for a vital process (`sshd`, `^sshd$`,
/// `systemd-journal`).
fn vital(pattern: &str) -> bool {
    let name = pattern.trim_start_matches('^').trim_end_matches('$');
    VITAL.contains(&name) || name.starts_with("systemd")
}

/// A pipeline's text as its commands' words (`pgrep -f . | head` → two commands).
fn split_pipeline(text: &str) -> Vec<Vec<String>> {
    text.split('|')
        .map(|stage| {
            stage
                .split_whitespace()
                .map(|w| w.trim_matches(['\'', '"']).to_owned())
                .collect::<Vec<_>>()
        })
        .filter(|words| !words.is_empty())
        .collect()
}

/// Whether a pipeline lists many processes, or vital ones, for a killer: `pgrep -f .`,
/// `pgrep -u root`, `pidof sshd`, `ps -e -o pid=`, `ps aux | awk '{print $2}'`, `ls
/// /proc`, a pid file of the system's. A `grep` stage filters the list to what it names.
pub(super) fn pipeline_picks_broadly(stages: &[Vec<String>]) -> bool {
    let Some(first) = stages.first() else {
        return false;
    };
    let filtered = stages.iter().skip(1).any(|stage| {
        let name = stage.first().map_or("", |n| super::shell::basename(n));
        let inverse = stage.iter().any(|w| w == "-v" || w == "--invert-match");
        // A pattern that names something (`grep node`), not one every number matches
        // (`grep -E '^[0-9]+$'`).
        let names = stage[1..].iter().filter(|w| !w.starts_with('-')).any(|w| {
            w.replace("0-9", "")
                .bytes()
                .any(|b| b.is_ascii_alphabetic())
        });
        matches!(name, "grep" | "egrep" | "fgrep" | "rg") && !inverse && names
    });
    let name = first.first().map_or("", |n| super::shell::basename(n));
    let args = &first[1..];
    let ops: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str)
        .collect();
    match name {
        "pgrep" => {
            let flags = args
                .iter()
                .filter(|a| a.starts_with('-') && !a.starts_with("--"))
                .any(|a| a.contains(['v', 'u', 'U', 'P', 'g', 's', 't', 'G']));
            flags
                || ops.is_empty()
                || ops
                    .iter()
                    .any(|p| matches!(*p, "." | ".*" | "^" | "$" | "^.*" | ".+") || vital(p))
        }
        "pidof" => ops.iter().any(|p| vital(p)),
        // `systemctl show -p MainPID --value sshd`.
        "systemctl" => args.iter().any(|a| a.contains("MainPID")) && ops.iter().any(|p| vital(p)),
        // `lsof -t /`: every process with a file open under a whole tree; `lsof -t -i
        // :443`: the system's own services.
        "lsof" => {
            ops.iter().any(|p| {
                super::targets::whole_tree(p).is_some()
                    || super::targets::dangerous_target(p, super::targets::Reach::Tree).is_some()
            }) || args.iter().any(|a| {
                a.rsplit(':')
                    .next()
                    .and_then(|n| n.parse::<u32>().ok())
                    .is_some_and(|n| (a.contains(':')) && (n < 1024 || SERVICE_PORTS.contains(&n)))
            })
        }
        "ps" => {
            let chosen = args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "-p" | "--pid" | "-C" | "-q" | "--quick-pid" | "--ppid"
                )
            });
            !chosen && !filtered
        }
        "ls" | "echo" | "printf" => args.iter().any(|a| a.starts_with("/proc")) && !filtered,
        "cat" | "head" | "tail" => ops
            .iter()
            .any(|p| p.starts_with("/run/") || p.starts_with("/var/run/")),
        _ => false,
    }
}

/// Whether any of `words` is one of `wanted`.
fn matches_any(words: &[String], wanted: &[&str]) -> bool {
    words.iter().any(|w| wanted.contains(&w.as_str()))
}

/// A running process changed from outside: its resource limits (`prlimit --pid`), or a
/// debugger or tracer attached to it (`gdb -p`, `lldb -p`, `strace -p`, `gcore`). The
/// process may be Claude Code, whose hooks (nagger) run under its limits and whose memory
/// a debugger can change: asked about. The shell's own `ulimit` changes only itself.
pub(super) fn other_process(command: &SimpleCommand) -> Option<Finding> {
    let name = command.name();
    let args = command.args();
    let has_pid = |short: &[&str], long: &[&str]| {
        args.iter().any(|a| {
            short.contains(&a.as_str())
                || long
                    .iter()
                    .any(|l| a == l || a.starts_with(&format!("{l}=")))
        })
    };
    let what = match name {
        "prlimit" if has_pid(&["-p"], &["--pid"]) => {
            "changes the resource limits of a running process (`prlimit --pid`)"
        }
        "gdb" | "gdb-multiarch" | "cgdb"
            if has_pid(&["-p"], &["--pid", "-pid"])
                || operands(args).get(1).is_some_and(|w| {
                    w.bytes().all(|b| b.is_ascii_digit()) || w.starts_with('$')
                }) =>
        {
            "attaches a debugger to a running process (`gdb -p`)"
        }
        "lldb" if has_pid(&["-p", "-n"], &["--attach-pid", "--attach-name"]) => {
            "attaches a debugger to a running process (`lldb -p`)"
        }
        "strace" | "ltrace" | "perf" | "bpftrace" | "pstack" | "gcore" | "criu" | "eu-stack"
            if has_pid(&["-p", "--pid"], &["--pid"])
                || matches!(name, "gcore" | "pstack" | "criu" | "eu-stack") =>
        {
            "attaches to a running process"
        }
        _ => return None,
    };
    Some(Finding::ask(
        "guard:other-process",
        format!(
            "{what}, which may be Claude Code itself: its hooks run under its limits, and a \
             debugger can change what it does"
        ),
        "Ask the user to do it.",
    ))
}

/// Code that changes another process's resource limits (`resource.prlimit(pid, …)`,
/// `Process::setrlimit` on a pid, `prlimit(2)` called by its name).
pub(super) fn code_limits_process(code: &str) -> Option<Finding> {
    let code = &code[..code.floor_char_boundary(256 * 1024)];
    code.contains("prlimit").then(|| {
        Finding::ask(
            "guard:other-process",
            "runs code that changes the resource limits of a process (`prlimit`), which may \
             be Claude Code itself, whose hooks run under them"
                .to_owned(),
            "Ask the user to do it.",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::guard::shell;

    fn answer(line: &str) -> Option<bool> {
        let parsed = shell::parse(line);
        parsed
            .commands
            .iter()
            .find_map(outside)
            .map(|f| f.severity == crate::domain::guard::Severity::Deny)
    }

    #[test]
    fn effects_beyond_the_project() {
        for line in [
            "shutdown -h now",
            "sudo reboot",
            "systemctl poweroff",
            "kill -9 -1",
        ] {
            assert_eq!(answer(line), Some(true), "{line}");
        }
        for line in [
            "docker run -v /:/host alpine sh",
            "docker run --rm -v $HOME:/h alpine",
            "docker system prune -af --volumes",
            "kubectl delete namespace prod",
            "terraform destroy -auto-approve",
            "aws s3 rm s3://b --recursive",
            "npm publish",
            "psql -c 'DROP DATABASE prod'",
            "redis-cli FLUSHALL",
            "systemctl stop sshd",
            "iptables -F",
        ] {
            assert_eq!(answer(line), Some(false), "{line}");
        }
        for line in [
            "docker run --rm -v \"$PWD\":/app -w /app node:20 npm ci",
            "docker run -v /var/run/docker.sock:/var/run/docker.sock:ro x",
            "docker compose up -d",
            "kubectl get pods",
            "terraform plan",
            "aws s3 ls",
            "npm run build",
            "psql -c 'select 1'",
            "sqlite3 app.db 'DELETE FROM t WHERE id = 1'",
            "systemctl status nginx",
            "kill 1234",
            "pkill -f 'node server.js'",
            "cargo build",
        ] {
            assert_eq!(answer(line), None, "{line}");
        }
    }
}
