//! The command line's edge: exit codes as `--help` and the README document them, and a
//! reader that closes stdout early (`nagger stats | head -c1`) never makes nagger panic:
//! it stops quietly with exit 141.

use crate::common::{Project, run_with_stdin};
use serde_json::Value;
use std::io::Read;
use std::process::Stdio;

/// The exit code of a command whose stdout was closed before it wrote everything.
const BROKEN_PIPE: i32 = 141;

/// Each command, with the exit code it ends with when its output is read whole.
fn commands() -> Vec<(Vec<&'static str>, i32)> {
    vec![
        (vec!["check", "--tool", "Bash", "--command", "x"], 0),
        (vec!["check", "--tool", "Bash", "--command", "rm -rf /"], 3),
        (vec!["stats"], 0),
        (vec!["stats", "--json"], 0),
        // Installed, with a database: the settings check passes, nothing else fails.
        (vec!["doctor"], 0),
        (vec!["doctor", "--json"], 0),
        (vec!["agents"], 0),
        (vec!["sessions"], 0),
        (vec!["completions", "bash"], 0),
        (vec!["man"], 0),
        (vec!["--help"], 0),
    ]
}

fn installed_project() -> Project {
    let p = Project::new();
    let install = p.run(&["install"]);
    assert_eq!(install.code, 0, "{install:?}");
    p.hook(&p.session_start("startup"));
    p
}

/// Runs `args` with stdout a pipe closed after its first byte.
fn run_with_pipe_closed_after_one_byte(p: &Project, args: &[&str]) -> (i32, String) {
    let mut child = p
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nagger");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).expect("the first byte");
    drop(stdout);
    let out = child.wait_with_output().expect("wait");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_documented_exit_codes_are_what_commands_end_with() {
    let p = installed_project();
    for (args, code) in commands() {
        let r = p.run(&args);
        assert_eq!(r.code, code, "{args:?}: {r:?}");
        assert!(!r.stdout.is_empty(), "{args:?} prints its output");
    }
}

#[test]
fn a_pipe_closed_after_the_first_byte_never_panics() {
    let p = installed_project();
    for (args, code) in commands() {
        let (got, stderr) = run_with_pipe_closed_after_one_byte(&p, &args);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        // Whether nagger had written everything before the pipe closed is a race: it
        // ends either as usual or quietly with 141.
        assert!(
            got == code || got == BROKEN_PIPE,
            "{args:?}: exit {got}, stderr {stderr}"
        );
        if got == BROKEN_PIPE {
            assert_eq!(stderr, "", "{args:?}: a closed pipe is quiet");
        }
    }
}

#[test]
fn a_pipe_closed_before_any_output_ends_quietly_with_141() {
    let p = installed_project();
    for (args, _) in commands() {
        // The reading end is closed before nagger starts: no race with its first write.
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let out = p
            .command(&args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("run nagger");
        let got = out.status.code().unwrap_or(-1);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            (got, stderr.as_ref()),
            (BROKEN_PIPE, ""),
            "{args:?}: the answer is lost, so it is not reported as one"
        );
    }
}

#[test]
fn a_hook_with_its_stdout_closed_still_exits_0() {
    let p = installed_project();
    let input = p.pre_tool_use("Bash", serde_json::json!({"command": "rm -rf /"}));
    let mut child = p
        .command(&["hook"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nagger hook");
    drop(child.stdout.take());
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(input.to_string().as_bytes()).unwrap();
    }
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn help_lists_the_exit_codes() {
    let p = Project::new();
    let top = p.run(&["--help"]).stdout;
    for line in [
        "  0    success",
        "  1    problems found",
        "  1    an error",
        "  2    a usage error",
        "  3    `check`: nagger would refuse the call",
        "  4    `check`: nagger would ask the user",
        "  141  standard output closed",
        "`nagger hook` always exits 0",
    ] {
        assert!(top.contains(line), "--help lacks {line:?}:\n{top}");
    }
    let check = p.run(&["check", "--help"]).stdout;
    for line in [
        "  0    the call passes",
        "  2    a usage error",
        "  3    nagger would refuse the call",
        "  4    nagger would ask the user",
        "  141  ",
    ] {
        assert!(
            check.contains(line),
            "check --help lacks {line:?}:\n{check}"
        );
    }
    let doctor = p.run(&["doctor", "-h"]).stdout;
    for line in ["  0    no problem", "  1    a problem found", "  141  "] {
        assert!(doctor.contains(line), "doctor -h lacks {line:?}:\n{doctor}");
    }
}

#[test]
fn the_top_level_help_reads_as_it_should() {
    let out = Project::new().run(&["--help"]);
    assert_eq!(out.code, 0);
    insta::assert_snapshot!("help", out.stdout);
}

#[test]
fn usage_errors_found_after_parsing_exit_2_with_one_line() {
    let p = Project::new();
    for args in [
        &["check", "--input", "{"][..],
        &["check", "--tool", "Bash", "--file", "a.rs", "--added", "x"],
        &["stats", "--project", "/no/such/folder"],
    ] {
        let r = p.run(args);
        assert_eq!(r.code, 2, "{args:?}: {r:?}");
        assert_eq!(r.stdout, "", "{args:?}");
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with("error: "), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn the_demo_with_its_stdout_closed_ends_quietly_with_141() {
    let p = Project::new();
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = p
        .command(&["demo"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run nagger demo");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(BROKEN_PIPE), "{stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn a_hook_never_ends_in_a_usage_error_whatever_stands_around_it() {
    let p = Project::new();
    let rm_root = p.pre_tool_use("Bash", serde_json::json!({"command": "rm -rf /"}));
    let ls = p.pre_tool_use("Bash", serde_json::json!({"command": "ls"}));
    let elsewhere = p.root.join("elsewhere.db");
    let elsewhere = elsewhere.to_str().unwrap();
    // A folder that does not exist, whatever the machine holds at its root.
    let missing = p.root.join("no-such-folder");
    let missing = missing.to_str().unwrap();
    let missing_eq = format!("--project={missing}");
    for args in [
        &["--project", missing, "hook"][..],
        &["hook", "--project", missing],
        &[missing_eq.as_str(), "hook"],
        &["--bogus", "hook"],
        &["-q", "hook"],
        &["--bogus", "value", "hook", "--other"],
        &["hook", "--bogus"],
        &["hook", "--db"],
        &["hook", "--db", ""],
        &["hook", "extra", "words"],
        &["--bogus", "hook", "--db", elsewhere],
        // The option's value is missing and the word hook was read as it.
        &["--project", "hook"],
        &["--project", "hook", "--db"],
    ] {
        let r = run_with_stdin(p.command(args), &rm_root);
        assert_eq!(r.code, 0, "{args:?}: {r:?}");
        assert_eq!(r.decision().as_deref(), Some("deny"), "{args:?}: {r:?}");
        assert!(
            r.stderr.starts_with("nagger: hook arguments ignored ("),
            "{args:?}: {}",
            r.stderr
        );
        let r = run_with_stdin(p.command(args), &ls);
        assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{args:?}: {r:?}");
    }
    // What could be understood is used: the --db given beside a bogus option.
    assert!(std::path::Path::new(elsewhere).exists());
    // A usable --project before the word hook is no problem at all.
    let project = p.root.display().to_string();
    let r = run_with_stdin(p.command(&["--project", &project, "hook"]), &rm_root);
    assert_eq!(
        (r.code, r.decision().as_deref()),
        (0, Some("deny")),
        "{r:?}"
    );
    assert_eq!(r.stderr, "");
}

#[test]
fn hook_help_is_help_and_other_commands_keep_their_usage_errors() {
    let p = Project::new();
    let help = p.run(&["hook", "--help"]);
    assert_eq!(help.code, 0, "{help:?}");
    assert!(
        help.stdout.contains("Usage: nagger hook"),
        "{}",
        help.stdout
    );
    // The help of the command Claude Code runs says what it does, who runs it, every
    // event it handles, its exit policy and its options, however it is asked for.
    for asked in [&["hook", "--help"][..], &["hook", "-h"], &["help", "hook"]] {
        let help = p.run(asked);
        assert_eq!(help.code, 0, "{asked:?}: {help:?}");
        let text = &help.stdout;
        for needed in [
            "Claude Code runs `nagger hook`",
            "stdin",
            "stdout",
            "Exit code: always 0",
            "--db <PATH>",
            "--project <DIR>",
        ] {
            assert!(
                text.contains(needed),
                "{asked:?}: {needed:?} missing:\n{text}"
            );
        }
        for event in nagger::base::event::HookEvent::NAMES {
            assert!(
                text.lines().any(|l| l.trim_start().starts_with(event)),
                "{asked:?}: event {event} missing:\n{text}"
            );
        }
    }
    for args in [
        &["--bogus", "stats"][..],
        &["check", "--bogus", "hook"],
        &["stats", "--project", "/no/such/folder"],
        &["-q"],
    ] {
        let r = p.run(args);
        assert_eq!(r.code, 2, "{args:?}: {r:?}");
    }
}

/// `nagger check --command "$cmd" && $cmd` must never run what a broken rule meant to
/// refuse: while the config has a broken part that could refuse or ask, check gives no
/// "passes" answer, says what is broken and exits 1.
#[test]
fn check_never_passes_a_call_while_a_rule_that_could_refuse_it_is_broken() {
    let deny = |extra: &str| {
        format!("[[rules.command]]\nname = \"deploy\"\npatterns = [\"make deploy*\"]\n{extra}")
    };
    for (config, broken) in [
        (deny("severity = \"dney\"\n"), "rules.command[1].severity"),
        (
            "[[rules.command]]\nname = \"deploy\"\npaterns = [\"make deploy*\"]\nseverity = \"deny\"\n".to_string(),
            "rules.command[1].paterns",
        ),
        (
            "[[rules.command]]\nname = \"deploy\"\npatterns = [\"make deploy-prod*\"]\nseverity = \"deny\"\ncolour = \"red\"\n".to_string(),
            "rules.command[1].colour",
        ),
        (
            "[[rules.command]]\nname = \"deploy\"\npatterns = [\"make deploy[\"]\n".to_string(),
            "rules.command[deploy].patterns",
        ),
        ("[guard]\ndney = [\"make deploy*\"]\n".to_string(), "guard.dney"),
        (
            "[[rules.tool]]\nname = \"t\"\ntool = \"Bash(\"\nseverity = \"deny\"\n".to_string(),
            "rules.tool[t].tool",
        ),
    ] {
        let p = Project::with_config(&config);
        let r = p.run(&["check", "--command", "make deploy"]);
        assert_eq!(r.code, 1, "{config}\n{r:?}");
        assert!(r.stdout.contains("answer: cannot say"), "{config}\n{}", r.stdout);
        assert!(r.stdout.contains(broken), "{broken} not named:\n{}", r.stdout);
        assert!(!r.stdout.contains("answer: passes"), "{}", r.stdout);
        let json = p.run(&["check", "--command", "make deploy", "--json"]);
        assert_eq!(json.code, 1, "{json:?}");
        let v: Value = serde_json::from_str(&json.stdout).expect("JSON");
        assert_eq!(v["exit_code"], 1);
        assert!(v["broken"][0].as_str().unwrap().contains(broken), "{v}");
    }
    // A refusal stays a refusal, and a broken warning does not stop a harmless call.
    let p = Project::with_config(&deny("severity = \"dney\"\n"));
    assert_eq!(p.run(&["check", "--command", "rm -rf /"]).code, 3);
    let p = Project::with_config(&deny("severity = \"warn\"\ncolour = 1\n"));
    let r = p.run(&["check", "--command", "ls"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("answer: passes"), "{}", r.stdout);
    // After the call: a broken after-edit block rule leaves `--added` without an answer.
    let p = Project::with_config(
        "[[rules.after_edit]]\nname = \"todo\"\nadded = [\"TODO(\"]\nseverity = \"block\"\n",
    );
    let r = p.run(&["check", "--tool", "Edit", "--file", "a.rs", "--added", "x"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stdout.contains("rules.after_edit[todo].added"),
        "{}",
        r.stdout
    );
}

/// The README's Commands table is one table (a blank line would end it and show the rest
/// as text) and names every command `nagger --help` lists.
#[test]
fn the_readme_commands_table_is_whole_and_names_every_command() {
    use clap::CommandFactory as _;
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let section = readme
        .split_once("\n## Commands\n")
        .expect("a Commands section")
        .1;
    let table: Vec<&str> = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .collect();
    let after = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .skip(table.len())
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    assert!(
        !after.starts_with('|'),
        "the table is cut by a blank line before: {after}"
    );
    for command in nagger::edge::cli::Cli::command().get_subcommands() {
        let name = command.get_name();
        assert!(
            table
                .iter()
                .any(|row| row.contains(&format!("`nagger {name}"))),
            "`nagger {name}` is not in the README's Commands table"
        );
    }
}

/// `nagger man` prints nagger(1), a command's page or the config's; `--dir` writes every
/// page, and every page one of them names is among those written.
#[test]
fn man_pages_are_generated_for_every_command_and_the_config() {
    let p = Project::new();
    let top = p.run(&["man"]);
    assert_eq!(top.code, 0, "{top:?}");
    assert!(
        top.stdout.starts_with(".ie") || top.stdout.contains(".TH nagger 1"),
        "{}",
        top.stdout
    );
    let check = p.run(&["man", "check"]);
    assert!(
        check.stdout.contains(".TH nagger-check 1"),
        "{}",
        check.stdout
    );
    let config = p.run(&["man", "config"]);
    assert!(
        config.stdout.contains(".TH NAGGER-CONFIG 5"),
        "{}",
        config.stdout
    );
    assert!(
        config.stdout.contains("[[rules.command]]"),
        "the template is in it"
    );
    let unknown = p.run(&["man", "nope"]);
    assert_eq!(unknown.code, 2, "{unknown:?}");
    assert!(
        unknown.stderr.contains("config"),
        "the pages are listed: {}",
        unknown.stderr
    );

    let dir = p.root.join("man");
    let written = p.run(&["man", "--dir", &dir.display().to_string()]);
    assert_eq!(written.code, 0, "{written:?}");
    let pages: Vec<String> = written.stdout.lines().map(str::to_string).collect();
    assert!(dir.join("man1/nagger.1").is_file());
    assert!(dir.join("man1/nagger-task-add.1").is_file());
    assert!(dir.join("man5/nagger-config.5").is_file());
    let reference =
        regex::Regex::new(r"nagger((?:\\-[a-z]+)+)(?:\\f[BRI])?\((\d)\)").expect("regex");
    for page in &pages {
        let text = std::fs::read_to_string(page).expect("a written page");
        for found in reference.captures_iter(&text) {
            let section = &found[2];
            let file = dir
                .join(format!("man{section}"))
                .join(format!("nagger{}.{section}", found[1].replace("\\-", "-")));
            assert!(
                file.is_file(),
                "{page} names {} which is not written",
                file.display()
            );
        }
    }
}
