//! Weakened safety settings wait for the user: a config edited behind the user's back
//! (guard off, a deny rule gone, an `allow` exemption, no secrets, no shell tools, the
//! trusted snapshot deleted too) changes nothing until `nagger trust` is confirmed on a
//! terminal; the deny reason, `doctor` and `check` say what waits. Strengthening takes
//! effect at once and is protected from then on.

use crate::common::*;
use serde_json::{Value, json};
use std::io::Write;
use std::process::Stdio;

const DENY_TERRAFORM: &str = r#"
[[rules.command]]
name = "no terraform destroy"
patterns = ["terraform destroy*"]
severity = "deny"
message = "Never destroy infrastructure from an agent."
"#;

const PENDING: &str = "waits for your confirmation: run `nagger trust` in your terminal";

fn snapshot(p: &Project) -> std::path::PathBuf {
    p.root.join(".claude-nagger/trusted.json")
}

fn bash(p: &Project, command: &str) -> HookResult {
    p.hook(&p.pre_tool_use("Bash", json!({ "command": command })))
}

#[track_caller]
fn assert_denied_pending(r: &HookResult, what: &str, held: &str) {
    assert_eq!(r.decision().as_deref(), Some("deny"), "{what}: {r:?}");
    let reason = r.reason();
    let last = reason.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("[nagger] the config weakens safety (") && last.ends_with(PENDING),
        "{what}: {reason}"
    );
    assert!(last.contains(held), "{what}: {last}");
}

#[test]
fn a_config_weakened_behind_the_users_back_changes_nothing() {
    let cases: [(&str, String, &str); 5] = [
        (
            "guard off",
            format!("[guard]\nenabled = false\n{DENY_TERRAFORM}"),
            "guard off",
        ),
        (
            "an allow exemption",
            format!("[guard]\nallow = [\"rm *\"]\n{DENY_TERRAFORM}"),
            "`[guard] allow` gains `rm *`",
        ),
        (
            "no secrets",
            format!("[guard]\nsecrets = []\n{DENY_TERRAFORM}"),
            "`[guard] secrets` loses `.env`",
        ),
        (
            "no Bash",
            format!("[guard]\nshell_tools = [\"mcp__box__exec\"]\n{DENY_TERRAFORM}"),
            "`[guard] shell_tools` loses `Bash`",
        ),
        (
            "the deny rule removed",
            String::new(),
            "rule `rules.command` \"no terraform destroy\" removed or weakened",
        ),
    ];
    for (what, config, held) in cases {
        for delete_snapshot in [false, true] {
            let p = Project::with_config(DENY_TERRAFORM);
            let quiet = bash(&p, "ls");
            assert_eq!(quiet.decision(), None, "{quiet:?}");
            p.write_config_unconfirmed(&config);
            if delete_snapshot {
                std::fs::remove_file(snapshot(&p)).unwrap();
            }
            // With the snapshot deleted too, nagger's own copy of it keeps the user's
            // rule in force.
            let what = format!("{what} (snapshot deleted: {delete_snapshot})");
            assert_denied_pending(&bash(&p, "rm -rf /"), &what, held);
            let tf = bash(&p, "terraform destroy -auto-approve");
            assert_denied_pending(&tf, &what, held);
            assert!(
                tf.reason().contains("Never destroy infrastructure"),
                "{what}: {tf:?}"
            );
        }
    }
    // The secrets check stays on when the list is emptied.
    let p = Project::with_config("");
    p.write_config_unconfirmed("[guard]\nsecrets = []\n");
    let r = bash(&p, "cat .env");
    assert_denied_pending(&r, "cat .env", "`[guard] secrets` loses `.env`");
}

#[test]
fn deleting_the_config_and_the_snapshot_cannot_switch_the_guard_off() {
    let p = Project::with_config("[guard]\nenabled = false\n");
    // The user turned the guard off and confirmed it: in force.
    assert_eq!(bash(&p, "rm -rf /").decision(), None);
    std::fs::remove_file(snapshot(&p)).unwrap();
    assert_denied_pending(&bash(&p, "rm -rf /"), "snapshot deleted", "guard off");
    std::fs::remove_file(p.config_path()).unwrap();
    let r = bash(&p, "rm -rf /");
    assert_eq!(r.decision().as_deref(), Some("deny"), "{r:?}");
    assert!(!r.reason().contains(PENDING), "nothing waits: {r:?}");
}

#[test]
fn a_new_deny_rule_takes_effect_at_once_and_removing_it_again_waits() {
    let p = Project::new();
    p.write_config_unconfirmed(DENY_TERRAFORM);
    let r = bash(&p, "terraform destroy");
    assert_eq!(r.decision().as_deref(), Some("deny"), "{r:?}");
    assert!(!r.reason().contains(PENDING), "{r:?}");
    assert!(
        std::fs::read_to_string(snapshot(&p))
            .unwrap()
            .contains("no terraform destroy"),
        "the stronger config is trusted from now on"
    );
    // Narrowed to a warning, or removed: the rule stays in force.
    p.write_config_unconfirmed(&DENY_TERRAFORM.replace("\"deny\"", "\"warn\""));
    assert_denied_pending(
        &bash(&p, "terraform destroy"),
        "narrowed",
        "\"no terraform destroy\" removed or weakened",
    );
    p.write_config_unconfirmed("");
    assert_denied_pending(
        &bash(&p, "terraform destroy"),
        "removed",
        "\"no terraform destroy\" removed or weakened",
    );
    // Block is softer than deny too.
    p.write_config_unconfirmed(&DENY_TERRAFORM.replace("\"deny\"", "\"block\""));
    let block = bash(&p, "terraform destroy");
    assert!(
        block.reason().contains(PENDING),
        "block is weaker: {block:?}"
    );
}

const ASK_DEPLOY: &str = r#"
[[rules.command]]
name = "ask before deploy"
patterns = ["deploy *"]
severity = "ask"
message = "Deploys need the user."
"#;

/// An `ask` rule puts a call before the user: removing it, or turning it into a warning
/// or a `block` (which refuses once, then lets the call through without asking anyone),
/// waits for the user like a deny rule's removal; the rule keeps asking meanwhile.
#[test]
fn an_ask_rule_removed_or_softened_keeps_asking_until_confirmed() {
    for (what, config) in [
        ("removed", String::new()),
        ("a warning", ASK_DEPLOY.replace("\"ask\"", "\"warn\"")),
    ] {
        let p = Project::with_config(ASK_DEPLOY);
        let asked = bash(&p, "deploy prod");
        assert_eq!(asked.decision().as_deref(), Some("ask"), "{asked:?}");
        p.write_config_unconfirmed(&config);
        // A new session, so that the rule is due again.
        let mut call = p.pre_tool_use("Bash", json!({ "command": "deploy prod" }));
        call["session_id"] = json!("another-session");
        let r = p.hook(&call);
        assert_eq!(r.decision().as_deref(), Some("ask"), "{what}: {r:?}");
        assert!(
            r.reason().contains("Deploys need the user."),
            "{what}: {r:?}"
        );
        let check = p.run(&["check", "--tool", "Bash", "--command", "ls"]);
        assert!(
            check
                .stdout
                .contains("rule `rules.command` \"ask before deploy\" removed or weakened"),
            "{what}: {check:?}"
        );
    }
    // Turned into a block rule: that waits too.
    let p = Project::with_config(ASK_DEPLOY);
    p.write_config_unconfirmed(&ASK_DEPLOY.replace("\"ask\"", "\"block\""));
    let check = p.run(&["check", "--tool", "Bash", "--command", "ls"]);
    assert!(
        check
            .stdout
            .contains("rule `rules.command` \"ask before deploy\" removed or weakened"),
        "{check:?}"
    );
}

#[test]
fn trust_refuses_without_a_terminal() {
    let p = Project::with_config(DENY_TERRAFORM);
    p.write_config_unconfirmed("[guard]\nenabled = false\n");
    let mut cmd = p.command(&["trust"]);
    cmd.stdin(Stdio::null());
    let r = HookResult::from_output(&cmd.output().unwrap());
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("on a terminal"), "{r:?}");
    // Nor does "y" on a pipe confirm anything.
    let mut piped = p.command(&["trust"]);
    let r = run_with_stdin_text(&mut piped, "y\n");
    assert_eq!(r.code, 2, "{r:?}");
    assert_denied_pending(&bash(&p, "rm -rf /"), "after the refusal", "guard off");
}

fn run_with_stdin_text(cmd: &mut std::process::Command, text: &str) -> HookResult {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that refuses at once may close its stdin before it is written to.
    let _ = child.stdin.take().unwrap().write_all(text.as_bytes());
    HookResult::from_output(&child.wait_with_output().unwrap())
}

/// `nagger trust` running on a pseudo-terminal (script(1)), as in the user's terminal:
/// what it shows is read as it comes, and lines are typed into it.
struct Terminal {
    child: std::process::Child,
    shown: std::sync::Arc<std::sync::Mutex<String>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Terminal {
    /// Starts `nagger trust` in `p` with `env` added to a clean environment.
    fn trust(p: &Project, env: &[(&str, &str)]) -> Terminal {
        Terminal::start(p, env, &format!("{} trust", nagger_bin()))
    }

    /// Starts `nagger trust` once a line waits on the terminal: a line typed before any
    /// question could be shown.
    fn trust_after_a_line(p: &Project) -> Terminal {
        let command = format!(
            "bash -c 'until read -t 0; do sleep 0.01; done; exec {} trust'",
            nagger_bin()
        );
        Terminal::start(p, &[], &command)
    }

    fn start(p: &Project, env: &[(&str, &str)], command: &str) -> Terminal {
        Terminal::start_with("script", p, env, command)
    }

    /// Starts `command` on a terminal that `script`, the program at `holder`, holds.
    fn start_with(holder: &str, p: &Project, env: &[(&str, &str)], command: &str) -> Terminal {
        use std::io::Read;
        let mut cmd = std::process::Command::new(holder);
        cmd.args(["-qec", command, "/dev/null"])
            .env_clear()
            .env("CLAUDE_PROJECT_DIR", &p.root)
            .env("HOME", &p.root)
            .env("PATH", "/usr/bin:/bin")
            .envs(env.iter().copied())
            .current_dir(&p.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let shown = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut stdout = child.stdout.take().unwrap();
        let reader = {
            let shown = std::sync::Arc::clone(&shown);
            std::thread::spawn(move || {
                let mut buf = [0u8; 256];
                while let Ok(n) = stdout.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    shown
                        .lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            })
        };
        Terminal {
            child,
            shown,
            reader: Some(reader),
        }
    }

    fn shown(&self) -> String {
        self.shown.lock().unwrap().clone()
    }

    /// Waits until the terminal shows `what` (true) or the command ended without it
    /// (false); bounded, so a broken build fails instead of hanging.
    fn wait_for(&self, what: &str) -> bool {
        for _ in 0..1200 {
            if self.shown().contains(what) {
                return true;
            }
            if self
                .reader
                .as_ref()
                .is_some_and(std::thread::JoinHandle::is_finished)
            {
                return self.shown().contains(what);
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        panic!("waited for {what:?}: {}", self.shown());
    }

    /// The code the question asks for, once it is shown.
    fn code(&self) -> Option<String> {
        if !self.wait_for(" and Enter") {
            return None;
        }
        let shown = self.shown();
        let before = &shown[..shown.find(" and Enter")?];
        let code = before.rsplit(' ').next()?;
        Some(code.to_owned())
    }

    fn type_line(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        // A command that ended already has closed its terminal.
        let _ = stdin.write_all(format!("{line}\n").as_bytes());
        let _ = stdin.flush();
    }

    /// Ends the input and waits for the command: its exit code and all it showed.
    fn finish(mut self) -> HookResult {
        drop(self.child.stdin.take());
        let status = self.child.wait().unwrap();
        self.reader.take().unwrap().join().unwrap();
        HookResult {
            code: status.code().unwrap_or(-1),
            stdout: self.shown(),
            stderr: String::new(),
        }
    }
}

/// `nagger trust` on a terminal where the user types the code it asks for.
fn trust_confirmed(p: &Project) -> HookResult {
    let mut t = Terminal::trust(p, &[]);
    if let Some(code) = t.code() {
        t.type_line(&code);
    }
    t.finish()
}

/// `nagger trust` on a terminal where `line` is typed once the question is shown.
fn trust_answering(p: &Project, line: &str) -> HookResult {
    let mut t = Terminal::trust(p, &[]);
    if t.wait_for(" and Enter") {
        t.type_line(line);
    }
    t.finish()
}

#[test]
fn trust_on_a_terminal_confirms_and_the_weakening_takes_effect() {
    let p = Project::with_config(DENY_TERRAFORM);
    p.write_config_unconfirmed("[guard]\nenabled = false\n");
    let no = trust_answering(&p, "n");
    assert!(no.stdout.contains("guard off"), "{no:?}");
    assert!(no.stdout.contains("not confirmed"), "{no:?}");
    assert_denied_pending(&bash(&p, "rm -rf /"), "declined", "guard off");

    let yes = trust_confirmed(&p);
    assert!(yes.stdout.contains("  - guard off"), "{yes:?}");
    assert!(
        yes.stdout
            .contains("  - rule `rules.command` \"no terraform destroy\" removed or weakened"),
        "{yes:?}"
    );
    assert!(yes.stdout.contains("trusted:"), "{yes:?}");
    assert_eq!(
        bash(&p, "rm -rf /").decision(),
        None,
        "the guard is off now"
    );
    assert_eq!(bash(&p, "terraform destroy").decision(), None);
    let doctor = p.run(&["doctor", "--json"]);
    let v: Value = serde_json::from_str(&doctor.stdout).unwrap();
    assert!(
        !v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["check"] == "trust"),
        "{v:#}"
    );
    let again = trust_confirmed(&p);
    assert!(again.stdout.contains("nothing to confirm"), "{again:?}");
}

#[test]
fn doctor_and_check_name_what_waits() {
    let p = Project::with_config(DENY_TERRAFORM);
    p.write_config_unconfirmed("[guard]\nenabled = false\nallow = [\"rm *\"]\n");
    let doctor = p.run(&["doctor", "--json"]);
    let v: Value = serde_json::from_str(&doctor.stdout).unwrap();
    let trust: Vec<String> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["check"] == "trust")
        .map(|c| format!("{} {}", c["status"], c["message"]))
        .collect();
    assert_eq!(trust.len(), 3, "{trust:#?}");
    assert!(
        trust.iter().all(|t| t.starts_with("\"warn\"")),
        "{trust:#?}"
    );
    assert!(trust[0].contains("(guard off)"), "{trust:#?}");
    assert!(
        trust[1].contains("`[guard] allow` gains `rm *`"),
        "{trust:#?}"
    );
    assert!(trust[2].contains("no terraform destroy"), "{trust:#?}");
    assert_eq!(
        v["settings"]["guard"]["enabled"], true,
        "the settings in force"
    );
    let human = p.run(&["doctor"]);
    assert!(human.stdout.contains("nagger trust"), "{human:?}");

    let check = p.run(&["check", "--command", "rm -rf /"]);
    assert_eq!(check.code, 3, "{check:?}");
    assert!(
        check.stdout.contains("waits for your confirmation"),
        "{check:?}"
    );
    let before = std::fs::read(snapshot(&p)).unwrap();
    assert_eq!(p.run(&["check", "--command", "terraform destroy"]).code, 3);
    assert_eq!(
        std::fs::read(snapshot(&p)).unwrap(),
        before,
        "check writes nothing"
    );
}

#[test]
fn install_writes_the_snapshot_and_never_weakens_it() {
    let p = Project::new();
    let r = p.run(&["install"]);
    assert_eq!(r.code, 0, "{r:?}");
    let text = std::fs::read_to_string(snapshot(&p)).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["guard"]["enabled"], true, "{text}");
    p.write_config_unconfirmed("[guard]\nenabled = false\n");
    assert_eq!(p.run(&["install"]).code, 0);
    assert_denied_pending(&bash(&p, "rm -rf /"), "after a second install", "guard off");
}

#[test]
fn an_unreadable_snapshot_is_the_defaults_and_reported() {
    let p = Project::with_config(DENY_TERRAFORM);
    std::fs::write(snapshot(&p), "not { json").unwrap();
    p.write_config_unconfirmed("[guard]\nenabled = false\n");
    assert_denied_pending(&bash(&p, "rm -rf /"), "unreadable", "guard off");
    assert_eq!(
        std::fs::read_to_string(snapshot(&p)).unwrap(),
        "not { json",
        "left for the user to look at"
    );
    let doctor = p.run(&["doctor", "--json"]);
    assert!(doctor.stdout.contains("cannot be read"), "{doctor:?}");
}

#[test]
fn the_dashboard_names_what_waits() {
    let p = Project::with_config(DENY_TERRAFORM);
    bash(&p, "ls");
    let ui = crate::common::ui_client::UiServer::start(p.command(&["ui"]));
    let rules = ui.json("/api/rules");
    assert_eq!(rules["pending_trust"], json!([]), "{rules:#}");
    p.write_config_unconfirmed("[guard]\nenabled = false\n");
    let rules = ui.json("/api/rules");
    assert_eq!(
        rules["pending_trust"],
        json!([
            "guard off",
            "rule `rules.command` \"no terraform destroy\" removed or weakened"
        ]),
        "{rules:#}"
    );
    let script = ui.get("/assets/app.js");
    assert!(
        script.body.contains("pending_trust"),
        "the Rules page shows it"
    );
}

/// nagger's own copy of the trusted settings, outside the project (`HOME` is the
/// project's root in these tests).
fn copy_of(p: &Project) -> std::path::PathBuf {
    let dir = p.root.join(".local/state/nagger/trusted");
    let entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].clone()
}

fn trust_checks(p: &Project) -> Vec<String> {
    let doctor = p.run(&["doctor", "--json"]);
    let v: Value = serde_json::from_str(&doctor.stdout).unwrap();
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["check"] == "trust")
        .map(|c| c["message"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn a_snapshot_deleted_emptied_or_replaced_behind_naggers_back_keeps_what_was_trusted() {
    // A valid snapshot of weaker settings, as an agent could write it.
    let weaker = Project::with_config("[guard]\nenabled = false\n");
    let forged = std::fs::read(snapshot(&weaker)).unwrap();
    let cases: [(&str, Option<&[u8]>, &str); 4] = [
        ("deleted", None, "is missing"),
        ("emptied", Some(b""), "weaker than the copy"),
        ("garbage", Some(b"{ not json"), "weaker than the copy"),
        ("replaced", Some(&forged), "weaker than the copy"),
    ];
    for (what, bytes, said) in cases {
        let p = Project::with_config(DENY_TERRAFORM);
        assert_eq!(bash(&p, "ls").decision(), None, "{what}");
        let copy = copy_of(&p);
        assert!(
            std::fs::read_to_string(&copy)
                .unwrap()
                .contains("no terraform destroy"),
            "{what}: the confirmation keeps a copy of what was trusted"
        );
        // Config and snapshot written directly, by a route the guard never saw.
        p.write_config_unconfirmed("[guard]\nenabled = false\n");
        match bytes {
            None => std::fs::remove_file(snapshot(&p)).unwrap(),
            Some(b) => std::fs::write(snapshot(&p), b).unwrap(),
        }
        let tf = bash(&p, "terraform destroy");
        assert_denied_pending(&tf, what, "no terraform destroy");
        // The rules added since the confirmation may be gone with it: what the guard
        // would pass is asked about until the user confirms again.
        let ls = bash(&p, "ls");
        assert_eq!(ls.decision().as_deref(), Some("ask"), "{what}: {ls:?}");
        assert!(ls.reason().contains("nagger trust"), "{what}: {ls:?}");
        assert!(
            tf.reason().contains("Never destroy infrastructure"),
            "{what}: {tf:?}"
        );
        assert_denied_pending(&bash(&p, "rm -rf /"), what, "guard off");
        let checks = trust_checks(&p);
        assert!(
            checks
                .iter()
                .any(|c| c.contains(said) && c.contains(&*copy.to_string_lossy())),
            "{what}: {checks:#?}"
        );
        // The copy is never lowered to the snapshot found.
        assert!(
            std::fs::read_to_string(&copy)
                .unwrap()
                .contains("no terraform destroy"),
            "{what}"
        );
        // Deleting the config too changes nothing.
        std::fs::remove_file(p.config_path()).unwrap();
        let tf = bash(&p, "terraform destroy");
        assert_eq!(tf.decision().as_deref(), Some("deny"), "{what}: {tf:?}");
        // The user confirms in their terminal: both are rewritten, and doctor is quiet.
        p.write_config_unconfirmed(DENY_TERRAFORM);
        let yes = trust_confirmed(&p);
        assert_eq!(yes.code, 0, "{what}: {yes:?}");
        assert!(
            trust_checks(&p).is_empty(),
            "{what}: {:#?}",
            trust_checks(&p)
        );
        assert_eq!(bash(&p, "ls").decision(), None, "{what}");
        assert!(
            std::fs::read_to_string(snapshot(&p))
                .unwrap()
                .contains("no terraform destroy"),
            "{what}"
        );
    }
}

#[test]
fn rules_added_since_the_confirmation_are_not_lost_when_config_and_snapshot_read_empty() {
    // Cut short, emptied, or caught half rewritten (a loop that rewrites both files with
    // their own content, not atomically): nagger writes the snapshot whole, so a snapshot
    // it cannot read was changed behind its back.
    let forms: [(&str, &[u8]); 3] = [
        ("emptied", b""),
        ("cut short", b"{\n  \"about\": \"nagger"),
        ("not json", b"\0\0\0"),
    ];
    for (what, bytes) in forms {
        let p = Project::with_config("");
        // The user adds a rule in their editor: in force at once, and the hook raises the
        // snapshot to it (nagger's copy keeps the last confirmation, without the rule).
        p.write_config_unconfirmed(DENY_TERRAFORM);
        assert_eq!(
            bash(&p, "terraform destroy").decision().as_deref(),
            Some("deny"),
            "{what}"
        );
        let trusted = std::fs::read_to_string(snapshot(&p)).unwrap();
        assert!(
            trusted.contains("no terraform destroy"),
            "{what}: {trusted}"
        );
        let copy = std::fs::read_to_string(copy_of(&p)).unwrap();
        assert!(!copy.contains("no terraform destroy"), "{what}: {copy}");
        p.write_config_unconfirmed("");
        std::fs::write(snapshot(&p), bytes).unwrap();
        for command in ["terraform destroy", "ls"] {
            let r = bash(&p, command);
            assert_eq!(
                r.decision().as_deref(),
                Some("ask"),
                "{what}: {command}: {r:?}"
            );
            assert!(
                r.reason().contains("trusted.json") && r.reason().contains("nagger trust"),
                "{what}: {r:?}"
            );
        }
        assert_eq!(
            bash(&p, "rm -rf /").decision().as_deref(),
            Some("deny"),
            "{what}"
        );
        assert!(
            trust_checks(&p).iter().any(|c| c.contains("asked about")),
            "{what}: {:#?}",
            trust_checks(&p)
        );
        // The snapshot is left for the user: the hook does not write it again.
        assert_eq!(std::fs::read(snapshot(&p)).unwrap(), bytes, "{what}");
        p.write_config_unconfirmed(DENY_TERRAFORM);
        assert_eq!(trust_confirmed(&p).code, 0, "{what}");
        assert_eq!(bash(&p, "ls").decision(), None, "{what}");
        assert_eq!(
            bash(&p, "terraform destroy").decision().as_deref(),
            Some("deny"),
            "{what}"
        );
    }
}

#[test]
fn naggers_folder_made_a_link_to_another_projects_is_not_taken_for_this_ones() {
    let other = Project::with_config("[guard]\nenabled = false\n");
    let p = Project::with_config(DENY_TERRAFORM);
    assert_eq!(bash(&p, "ls").decision(), None);
    let folder = p.root.join(".claude-nagger");
    std::fs::rename(&folder, p.root.join("kept")).unwrap();
    std::os::unix::fs::symlink(other.root.join(".claude-nagger"), &folder).unwrap();
    let ls = bash(&p, "ls");
    assert_eq!(ls.decision().as_deref(), Some("ask"), "{ls:?}");
    assert!(ls.reason().contains("is a link"), "{ls:?}");
    // This project's last confirmation, kept outside the project, still refuses.
    let tf = bash(&p, "terraform destroy");
    assert_eq!(tf.decision().as_deref(), Some("deny"), "{tf:?}");
    assert_eq!(
        bash(&p, "rm -rf /").decision().as_deref(),
        Some("deny"),
        "the guard's own refusals stand"
    );
}

#[test]
fn trust_records_what_it_showed_not_what_the_config_became_meanwhile() {
    let p = Project::with_config(DENY_TERRAFORM);
    assert_eq!(bash(&p, "ls").decision(), None);
    // The user removes their rule and runs `nagger trust`.
    p.write_config_unconfirmed("");
    let mut terminal = Terminal::trust(&p, &[]);
    let code = terminal.code().expect("the question");
    assert!(
        terminal.shown().contains("no terraform destroy"),
        "{}",
        terminal.shown()
    );
    // Meanwhile an agent switches the guard off, then the user answers.
    p.write_config_unconfirmed("[guard]\nenabled = false\n");
    terminal.type_line(&code);
    let r = terminal.finish();
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("trusted:"), "{r:?}");
    assert!(
        r.stdout.contains("the config changed while you read this"),
        "{r:?}"
    );
    // What the user saw is trusted; what the agent added waits.
    assert_denied_pending(&bash(&p, "rm -rf /"), "the agent's change", "guard off");
    let tf = bash(&p, "terraform destroy");
    assert!(
        !tf.reason().contains("Never destroy infrastructure"),
        "the rule's removal was confirmed: {tf:?}"
    );
}

/// Only the user, typing the code `nagger trust` shows after its question, confirms: not
/// a "y" (what `yes | …` or a line fed blindly answers), not a line typed before the
/// question, not a run under an agent, whatever terminal it has.
#[test]
fn only_the_code_typed_after_the_question_confirms() {
    let p = Project::with_config(DENY_TERRAFORM);
    p.write_config_unconfirmed("[guard]\nenabled = false\n");
    for answer in ["y", "yes", "000000"] {
        let r = trust_answering(&p, answer);
        assert!(r.stdout.contains("not confirmed"), "{answer}: {r:?}");
        assert_ne!(r.code, 0, "{answer}: {r:?}");
        assert_denied_pending(&bash(&p, "rm -rf /"), answer, "guard off");
    }
    // Under an agent (Claude Code sets CLAUDECODE in every command it runs; newer
    // clients AI_AGENT too), on a terminal all the same: refused before any question.
    for var in ["CLAUDECODE", "AI_AGENT"] {
        let t = Terminal::trust(&p, &[(var, "1")]);
        assert!(!t.wait_for(" and Enter"), "{var}: {}", t.shown());
        let r = t.finish();
        assert_eq!(r.code, 2, "{var}: {r:?}");
        assert!(r.stdout.contains("runs under an agent"), "{var}: {r:?}");
        assert_denied_pending(&bash(&p, "rm -rf /"), var, "guard off");
    }
    // A line typed before the question is dropped: it is not taken for the answer, and
    // the code typed after the question confirms.
    let mut t = Terminal::trust_after_a_line(&p);
    t.type_line("y");
    let code = t.code().expect("the question");
    t.type_line(&code);
    let r = t.finish();
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("trusted:"), "{r:?}");
    assert_eq!(
        bash(&p, "rm -rf /").decision(),
        None,
        "the guard is off now"
    );
}

/// What the config says reaches the user's terminal as text: an entry whose escape
/// sequences would erase the lines above it (and so hide "guard off" behind a harmless
/// looking exemption) is shown escaped, every weakening in sight.
#[test]
fn trust_shows_every_weakening_whatever_the_config_writes_into_it() {
    let p = Project::with_config("");
    p.write_config_unconfirmed(
        "[guard]\nenabled = false\nallow = [\"make test\\u001b[2K\\r\\u001b[1A\\u001b[2K\\u001b[8m\"]\n",
    );
    let r = trust_answering(&p, "n");
    assert!(r.stdout.contains("  - guard off"), "{r:?}");
    assert!(r.stdout.contains("make test\\u{1b}[2K"), "{r:?}");
    assert!(!r.stdout.contains('\u{1b}'), "{r:?}");
    let doctor = p.run(&["doctor"]);
    assert!(doctor.stdout.contains("guard off"), "{doctor:?}");
    assert!(!doctor.stdout.contains('\u{1b}'), "{doctor:?}");
}

#[test]
fn trust_refuses_a_terminal_opened_under_an_agent_that_cleared_its_variables() {
    let p = Project::with_config(DENY_TERRAFORM);
    p.write_config_unconfirmed("[guard]\nenabled = false\n");
    // An agent's command opens a terminal of its own and runs `nagger trust` there with
    // the agent's variables taken out of its environment.
    let t = Terminal::start(
        &p,
        &[("CLAUDECODE", "1")],
        &format!("env -u CLAUDECODE {} trust", nagger_bin()),
    );
    let out = t.finish();
    assert!(
        out.stdout.contains("runs under an agent here (process"),
        "{out:?}"
    );
    assert_ne!(out.code, 0, "{out:?}");
    assert_denied_pending(&bash(&p, "rm -rf /"), "waits", "guard off");
}

const ASK_MAKE_DEPLOY: &str = r#"
[[rules.command]]
name = "deploy"
patterns = ["make deploy*"]
severity = "ask"
message = "deploy needs ok"
"#;

#[test]
fn an_ask_rule_softened_still_asks_once_and_says_what_waits() {
    let p = Project::with_config(ASK_MAKE_DEPLOY);
    p.write_config_unconfirmed(&ASK_MAKE_DEPLOY.replace("\"ask\"", "\"warn\""));
    let r = bash(&p, "make deploy");
    assert_eq!(r.decision().as_deref(), Some("ask"), "{r:?}");
    let reason = r.reason();
    assert_eq!(reason.matches("deploy needs ok").count(), 1, "{reason}");
    let last = reason.lines().last().unwrap_or_default();
    assert!(
        last.contains("\"deploy\" removed or weakened") && last.ends_with(PENDING),
        "{reason}"
    );
}

#[test]
fn a_rule_that_reaches_further_takes_effect_and_waits_for_nothing() {
    let scoped = ASK_MAKE_DEPLOY.replace(
        "severity = \"ask\"",
        "severity = \"deny\"\nscope = [\"coder\"]",
    );
    for (what, further) in [
        (
            "a pattern added",
            scoped.replace("[\"make deploy*\"]", "[\"make deploy*\", \"make ship*\"]"),
        ),
        (
            "every role",
            scoped.replace("scope = [\"coder\"]", "scope = []"),
        ),
        (
            "one more role",
            scoped.replace("[\"coder\"]", "[\"coder\", \"leader\"]"),
        ),
        (
            "a wider pattern",
            scoped.replace("make deploy*", "make dep*"),
        ),
    ] {
        let p = Project::with_config(&scoped);
        p.write_config_unconfirmed(&further);
        // The main agent is the leader, no coder: the rules that reach it refuse it.
        let r = bash(&p, "make deploy");
        let refused = matches!(what, "every role" | "one more role").then_some("deny");
        assert_eq!(r.decision().as_deref(), refused, "{what}: {r:?}");
        assert!(!r.reason().contains(PENDING), "{what}: {r:?}");
        let doctor = p.run(&["doctor", "--json"]);
        let v: Value = serde_json::from_str(&doctor.stdout).unwrap();
        let warned: Vec<&Value> = v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["check"] == "trust" && c["status"] != "ok")
            .collect();
        assert!(warned.is_empty(), "{what}: {warned:#?}");
    }
}

#[test]
fn trust_refuses_a_terminal_a_program_in_the_project_holds() {
    // A helper an agent's command put into the project opens a terminal of its own, with
    // no agent variable anywhere, runs `nagger trust` there and reads the code it shows:
    // here a copy of script(1), as any compiled helper would.
    let p = Project::with_config(DENY_TERRAFORM);
    p.write_config_unconfirmed("[guard]\nenabled = false\n");
    let script = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v script"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let helper = p.root.join("build/drive");
    std::fs::create_dir_all(helper.parent().unwrap()).unwrap();
    std::fs::copy(script.trim(), &helper).unwrap();
    let mut t = Terminal::start_with(
        helper.to_str().unwrap(),
        &p,
        &[],
        &format!("{} trust", nagger_bin()),
    );
    if let Some(code) = t.code() {
        t.type_line(&code);
    }
    let out = t.finish();
    assert!(
        out.stdout.contains("the terminal is held by process")
            && out
                .stdout
                .contains("a program in the project or a temporary folder"),
        "{out:?}"
    );
    assert_ne!(out.code, 0, "{out:?}");
    assert_denied_pending(&bash(&p, "rm -rf /"), "waits", "guard off");
    // The same terminal held by the system's script(1) is the person's: confirmed.
    let out = trust_confirmed(&p);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(bash(&p, "rm -rf /").decision(), None);
}
