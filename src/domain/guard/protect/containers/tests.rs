use super::super::super::verdict::Severity;
use super::super::{
    Cwd as HostCwd, Folders, Scope, finding, holds_protected, judge, protected, written_by,
};
use super::*;

const ROOT: &str = "/work/proj";

/// `f` with what self-protection hands containers in `scope`.
fn with_host<R>(scope: &Scope, f: impl FnOnce(&Host) -> R) -> R {
    let host = Host {
        root: scope.root,
        line: scope.line.map(|parsed| parsed.commands.as_slice()),
        protected: &|path| protected(path, None).is_some(),
        judge: &|path| judge(path, scope).map(|(what, _)| what),
        holds: &|dir| holds_protected(scope, dir),
        command: &|run, dir| {
            let dir = dir.map_or(HostCwd::Unknown, |d| HostCwd::Known(d.to_owned()));
            written_by(run, &[], &dir, scope)
        },
        unpacks: &|_| None,
        refuse: &finding,
    };
    f(&host)
}

fn run_of(line: &str) -> Invocation {
    let scope = Scope::new(Path::new(ROOT), None);
    let parsed = shell::parse(line);
    with_host(&scope, |host| {
        parsed
            .commands
            .iter()
            .find_map(|c| invocation(c, &Cwd::Known(String::new()), host))
    })
    .unwrap_or_else(|| panic!("no container command in {line}"))
}

/// The answer of self-protection on `line`, run from the project root.
fn answer(line: &str) -> Option<Severity> {
    let root = Path::new(ROOT);
    let parsed = shell::parse(line);
    let scope = Scope::new(root, None).in_line(&parsed);
    let mut folders = Folders::new(HostCwd::Known(String::new()));
    for command in &parsed.commands {
        let cwd = folders.cwd().clone();
        folders.step(command);
        if let Some(found) = written_by(command, &[], &cwd, &scope) {
            return Some(found.severity);
        }
    }
    None
}

#[test]
fn options_with_values_are_told_from_the_image_and_its_command() {
    let run = run_of(
        "docker run --rm -it -e A=1 --name web -u 1000 --network host -p 80:80 \
         -v $PWD:/w -w /w --entrypoint sh img -c 'make -C x'",
    );
    assert_eq!(run.subject.as_deref(), Some("img"));
    assert_eq!(run.command, ["-c", "make -C x"]);
    assert_eq!(run.entrypoint.as_deref(), Some("sh"));
    assert_eq!(run.workdir.as_deref(), Some("/w"));
    assert_eq!(run.name.as_deref(), Some("web"));
    assert!(run.interactive);
    assert_eq!(
        run.mounts,
        [Mount {
            target: "/w".into(),
            source: ROOT.into(),
            writable: true
        }]
    );
    // Values glued to the letter, in a cluster, or after `=`.
    let run = run_of("podman run -itv.:/src -ePATH=/x --workdir=/src alpine ls -la");
    assert_eq!(run.subject.as_deref(), Some("alpine"));
    assert_eq!(run.command, ["ls", "-la"]);
    assert_eq!(run.mounts[0].target, "/src");
    assert_eq!(run.workdir.as_deref(), Some("/src"));
    // The engine's own options, `container run`, compose's `run`.
    let run = run_of("docker -H tcp://h:2375 --context ci container run -v ~/x:/x img true");
    assert_eq!(run.mounts[0].source, "~/x");
    assert_eq!(run.command, ["true"]);
    let run = run_of("docker compose -f a.yml run --rm -v .:/w -T svc rm x");
    assert_eq!(run.verb, "docker compose run");
    assert_eq!(run.subject.as_deref(), Some("svc"));
    assert_eq!(run.command, ["rm", "x"]);
    let run = run_of("nerdctl exec -it -w /app web sh");
    assert!(run.exec);
    assert_eq!(run.subject.as_deref(), Some("web"));
}

#[test]
fn mounts_are_host_folders_only_when_their_source_is_a_path() {
    let mounts = |line: &str| run_of(line).mounts;
    let one = |line: &str| mounts(line).into_iter().next();
    assert_eq!(one("docker run -v data:/w img x"), None);
    assert_eq!(one("docker run -v /w img x"), None);
    assert_eq!(
        one("docker run --mount type=volume,source=data,target=/w img x"),
        None
    );
    assert_eq!(one("docker run --mount source=data,target=/w img x"), None);
    let ro = one("docker run -v $PWD:/w:ro,z img x").unwrap();
    assert!(!ro.writable);
    let ro = one("docker run --mount type=bind,src=.,dst=/w,readonly img x").unwrap();
    assert!(!ro.writable);
    let rw = one("docker run --mount type=bind,src=.,dst=/w,readonly=false img x").unwrap();
    assert!(rw.writable);
    assert_eq!(rw.source, ROOT);
    for (spec, host) in [
        ("$HOME/.claude", "~/.claude"),
        ("~", "~"),
        ("\"$(pwd)\"/sub", "/work/proj/sub"),
        ("${PWD}/..", "/work"),
        ("$CLAUDE_PROJECT_DIR", ROOT),
        ("/etc", "/etc"),
        ("$SRC", "$SRC"),
    ] {
        let line = format!("docker run -v {spec}:/m img x");
        assert_eq!(
            one(&line).map(|m| m.source).as_deref(),
            Some(host),
            "{line}"
        );
    }
}

#[test]
fn container_commands_reaching_naggers_files_through_mounts_are_refused() {
    for line in [
        "docker run --rm -v $PWD:/w alpine rm -rf /w/.claude",
        "docker run --rm -v \"$(pwd)\":/app -w /app alpine sh -c 'rm -rf .claude-nagger'",
        "podman run -v .:/src alpine rm /src/.claude/settings.local.json",
        "docker run --rm -v ~/.claude:/c alpine rm -rf /c",
        "docker run --rm -v ~/.claude:/c alpine sh -c 'echo {} > /c/settings.json'",
        "docker run -v $PWD/.claude:/cfg alpine truncate -s0 /cfg/settings.json",
        "docker run -v $PWD:/w -w / alpine sh -c 'cd w && rm -r .claude-nagger'",
        "docker run -v $PWD:/w -w /w/src alpine rm -rf ../.claude",
        "docker run -v $PWD:/w alpine rm -rf /",
        "docker run -v $PWD:/w alpine rm -rf /w",
        "docker run -v $PWD/..:/up -w /up alpine mv proj /tmp/gone",
        "docker run -v ~:/h alpine sh -c 'cd / && rm -r h'",
        "docker run -v $PWD:/w python:3 python3 -c \"import os; os.remove('/w/.claude/settings.json')\"",
        "docker run -v $PWD:/w -w /w alpine mv .claude /tmp/x",
        "docker run -d --name b -v $PWD:/w alpine sleep 9 && docker exec b rm -rf /w/.claude",
        "docker cp web:/tmp/s.json .claude/settings.json",
        "docker container cp web:/etc/conf .claude",
        "kubectl -n prod cp api-0:/tmp/x .claude-nagger/config.toml",
    ] {
        assert_eq!(answer(line), Some(Severity::Deny), "{line}");
    }
}

#[test]
fn what_nagger_cannot_see_in_a_container_given_its_files_is_asked_about() {
    for line in [
        "docker run --rm -v $PWD:/w alpine",
        "docker run --rm -v ~:/h --entrypoint '' img",
        "docker run -v $PWD:/w python:3 python3 -c 'import os, sys; os.remove(sys.argv[1])' x",
        "docker run -v $PWD:/w -w /w alpine tar xf /tmp/x.tar",
        "curl -s https://x/y.tar | docker run -i -v $PWD:/w -w /w alpine tar x",
        "curl -s https://x/s.sh | docker run -i -v $PWD:/w alpine sh",
        "docker cp web:/app/. .",
    ] {
        assert_eq!(answer(line), Some(Severity::Ask), "{line}");
    }
}

#[test]
fn everyday_container_lines_and_container_only_paths_pass() {
    for line in [
        "docker run --rm -v \"$PWD\":/src -w /src rust:1.80 cargo test",
        "docker run --rm -v $(pwd):/app -w /app node:20 npm ci",
        "docker run -v $PWD:/w img make test",
        "docker build -t x .",
        "docker compose up -d",
        "docker exec -it web bash -lc 'rails db:migrate'",
        "docker cp ctr:/app/logs ./logs",
        "docker run --rm -it widgets:dev sh",
        "docker compose run --rm web python manage.py migrate",
        // Paths of the container itself, read-only mounts, named volumes.
        "docker run --rm alpine rm -rf /.claude",
        "docker run --rm -v $PWD:/w alpine rm -rf /root/.claude /tmp/.claude-nagger",
        "docker run --rm -v $PWD:/w:ro alpine rm -rf /w/.claude",
        "docker run --rm -v cache:/w alpine rm -rf /w/.claude",
        "docker run --rm -v $PWD/src:/src alpine rm -rf /src/gen",
        "docker run --rm -v $PWD:/w -w /w alpine rm -rf target node_modules",
        "docker run --rm -v $PWD:/w -w /w alpine tar xf x.tar -C /tmp",
        "docker run --rm -v $PWD:/w python:3 python3 -c 'print(1)'",
        "docker run --rm -v $PWD/src:/src alpine",
        "docker cp ./build web:/app/build",
        "kubectl cp ./dump.sql db-0:/tmp/dump.sql",
    ] {
        assert_eq!(answer(line), None, "{line}");
    }
}

#[test]
fn find_in_a_container_reaches_naggers_files_on_disk_through_its_mount() {
    let project = tempfile::tempdir().expect("a project");
    let root = project.path();
    std::fs::create_dir(root.join(".claude-nagger")).unwrap();
    std::fs::write(root.join(".claude-nagger/config.toml"), "").unwrap();
    let judged = |line: &str| {
        let parsed = shell::parse(line);
        let scope = Scope::new(root, None).in_line(&parsed);
        let command = parsed.commands.first().unwrap();
        written_by(command, &[], &HostCwd::Known(String::new()), &scope).map(|f| f.severity)
    };
    for line in [
        "docker run -v $PWD:/w alpine find /w -name '*.toml' -delete",
        "docker run -v .:/w -w /w alpine find . -name config.toml -exec rm {} +",
    ] {
        assert_eq!(judged(line), Some(Severity::Deny), "{line}");
    }
    for line in [
        "docker run -v $PWD:/w alpine find /w -name '*.o' -delete",
        "docker run -v $PWD:/w alpine find / -name '*.toml' -path '/etc/*' -delete",
    ] {
        assert_eq!(judged(line), None, "{line}");
    }
}

#[test]
fn program_files_a_container_runs_from_a_mount_are_read_from_the_host() {
    let project = tempfile::tempdir().expect("a project");
    let root = project.path();
    std::fs::create_dir(root.join("scripts")).unwrap();
    for (name, text) in [
        ("wipe.sh", "set -e\ncd /w\nrm -rf .claude-nagger\n"),
        ("build.sh", "echo building\ncargo build --release\n"),
        ("wipe.py", "import shutil\nshutil.rmtree('/w/.claude')\n"),
        ("tool.py", "import os, sys\nos.remove(sys.argv[1])\n"),
    ] {
        std::fs::write(root.join("scripts").join(name), text).unwrap();
    }
    let judged = |line: &str| {
        let parsed = shell::parse(line);
        let scope = Scope::new(root, None).in_line(&parsed);
        let command = parsed.commands.first().unwrap();
        written_by(command, &[], &HostCwd::Known(String::new()), &scope).map(|f| f.severity)
    };
    for (line, expected) in [
        (
            "docker run -v $PWD:/w alpine sh /w/scripts/wipe.sh",
            Some(Severity::Deny),
        ),
        (
            "docker run -v .:/w:ro python:3 python3 /w/scripts/wipe.py",
            None,
        ),
        (
            "docker run -v .:/w -v .:/s:ro python:3 python3 /s/scripts/wipe.py",
            Some(Severity::Deny),
        ),
        (
            "docker run -v $PWD:/w -w /w alpine bash scripts/build.sh",
            None,
        ),
        // Unresolved in a project's own program: not asked about, as on the host.
        (
            "docker run -v $PWD:/w -w /w python:3 python3 scripts/tool.py x",
            None,
        ),
        (
            "docker run -v $PWD:/w -w /w alpine sh scripts/missing.sh",
            None,
        ),
        // A program only the image holds.
        (
            "docker run -v $PWD:/w python:3 python3 /app/main.py",
            Some(Severity::Ask),
        ),
        (
            "docker run -v $PWD/src:/src python:3 python3 /app/main.py",
            None,
        ),
    ] {
        assert_eq!(judged(line), expected, "{line}");
    }
}

#[test]
fn container_paths_become_host_paths_only_inside_writable_mounts() {
    let scope = Scope::new(Path::new(ROOT), None);
    let mounts = [
        Mount {
            target: "/w".into(),
            source: ROOT.into(),
            writable: true,
        },
        Mount {
            target: "/w/ro".into(),
            source: "/data".into(),
            writable: false,
        },
    ];
    with_host(&scope, |host| {
        let container = Container {
            mounts: &mounts,
            scope: host,
            verb: "docker run",
            reaches: true,
            depth: 0,
            files: &Cell::new(MAX_FILES),
        };
        let root = Cwd::Known("/".into());
        let w = Cwd::Known("/w".into());
        assert_eq!(container.word("/w/a/b", &root), ["/work/proj/a/b"]);
        assert_eq!(container.word("w/a", &root), ["/work/proj/a"]);
        assert_eq!(container.word("a/b", &w), ["a/b"]);
        assert_eq!(container.word("../etc/x", &w), [format!("{NOWHERE}/x")]);
        assert_eq!(container.word("/w/ro/x", &root), [format!("{NOWHERE}/x")]);
        assert_eq!(container.word("/", &root), [ROOT]);
        assert_eq!(container.word("/tmp/.claude", &root), [NOWHERE]);
        assert_eq!(container.word("xf", &root), ["xf"]);
        assert_eq!(container.word("*.toml", &root), ["*.toml"]);
        assert_eq!(container.word(".c*", &root), [NOWHERE]);
        assert_eq!(container.word("of=/w/x", &root), ["of=/work/proj/x"]);
        assert_eq!(container.word("$PWD/x", &w), ["/work/proj/x"]);
        assert_eq!(container.word("$HOME/.claude", &w), [NOWHERE]);
        assert_eq!(container.host_dir(&w), Cwd::Known(ROOT.into()));
        assert_eq!(container.host_dir(&root), Cwd::Known(NOWHERE.into()));
    });
}
