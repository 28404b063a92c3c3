//! `nagger doctor` on a healthy project and on each way it can be broken: the problem is
//! named on its own line with a non-zero exit, and after `--fix` (or the advised command)
//! doctor is clean again.

use crate::common::*;
use crate::redact::redact;
use serde_json::{Value, json};

struct Doctor {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Doctor {
    /// The lines of one check (`status  name  message`), statuses as printed.
    fn lines(&self, check: &str) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|l| l.get(7..7 + check.len()) == Some(check))
            .collect()
    }

    fn status(&self, check: &str) -> Vec<&str> {
        self.lines(check)
            .iter()
            .map(|l| l.split_whitespace().next().unwrap_or(""))
            .collect()
    }

    fn assert_clean(&self) {
        assert_eq!(self.code, 0, "{}\n{}", self.stdout, self.stderr);
        assert!(
            !self.stdout.lines().any(|l| l.starts_with("FAIL")),
            "{}",
            self.stdout
        );
    }
}

fn doctor(p: &Project, args: &[&str]) -> Doctor {
    let mut all = vec!["doctor"];
    all.extend(args);
    let out = p.run(&all);
    Doctor {
        code: out.code,
        stdout: out.stdout,
        stderr: out.stderr,
    }
}

/// A project as `nagger install` leaves it, after one session started.
fn installed() -> Project {
    let p = Project::new();
    let out = p.run(&["install"]);
    assert_eq!(out.code, 0, "install: {}", out.stderr);
    let r = p.hook(&p.session_start("startup"));
    assert_eq!(r.code, 0);
    assert!(p.db_path().exists());
    p
}

fn settings(p: &Project) -> Value {
    let text = std::fs::read_to_string(p.root.join(".claude/settings.json")).expect("settings");
    serde_json::from_str(&text).expect("settings JSON")
}

fn write_settings(p: &Project, value: &Value) {
    std::fs::write(
        p.root.join(".claude/settings.json"),
        serde_json::to_string_pretty(value).expect("JSON"),
    )
    .expect("write settings");
}

/// Removes the database and its side files.
fn remove_db(p: &Project) {
    for suffix in ["", "-wal", "-shm"] {
        let mut path = p.db_path().into_os_string();
        path.push(suffix);
        let _ = std::fs::remove_file(path);
    }
}

#[test]
fn healthy_project_passes_every_check() {
    let p = installed();
    let d = doctor(&p, &[]);
    d.assert_clean();
    // The whole report: every check, in order, each ok.
    insta::assert_snapshot!(redact(&d.stdout, &p));

    let json: Value = serde_json::from_str(&doctor(&p, &["--json"]).stdout).expect("JSON");
    assert_eq!(json["ok"], true);
    assert_eq!(json["problems"], 0);
    assert_eq!(json["checks"].as_array().unwrap().len(), 12);
    assert!(
        json["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] == "ok")
    );
}

#[test]
fn without_a_database_doctor_warns_and_creates_none_until_fix() {
    let p = Project::new();
    p.run(&["install"]);
    let d = doctor(&p, &[]);
    assert_eq!(d.code, 0, "a missing database is a warning: {}", d.stdout);
    assert_eq!(d.status("database"), vec!["warn"]);
    assert!(
        d.lines("database")[0].contains("no database yet"),
        "{}",
        d.stdout
    );
    assert!(!p.db_path().exists(), "doctor created a database");
    assert!(!p.root.join(".claude-nagger/state.db.lock").exists());

    let fixed = doctor(&p, &["--fix"]);
    assert!(fixed.stdout.contains("fixed  database"), "{}", fixed.stdout);
    assert!(p.db_path().exists());
    doctor(&p, &[]).assert_clean();
}

#[test]
fn file_that_is_not_a_database_fails_and_fix_moves_it_aside() {
    let p = installed();
    remove_db(&p);
    // SQLite's header, then damage (without the header it is a foreign file: kept aside).
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.resize(8192, b'x');
    std::fs::write(p.db_path(), &bytes).unwrap();
    let d = doctor(&p, &[]);
    assert_eq!(d.code, 1, "{}", d.stdout);
    assert_eq!(d.status("database"), vec!["FAIL"]);
    assert!(
        d.lines("database")[0].contains("is not a usable SQLite database"),
        "{}",
        d.stdout
    );
    assert!(d.stderr.contains("1 problem found"), "{}", d.stderr);

    let fixed = doctor(&p, &["--fix"]);
    assert!(
        fixed.stdout.contains("moved it aside to"),
        "{}",
        fixed.stdout
    );
    let moved: Vec<_> = std::fs::read_dir(p.root.join(".claude-nagger"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|path| path.to_string_lossy().contains("state.db.corrupt-"))
        .collect();
    assert_eq!(moved.len(), 1);
    assert_eq!(
        std::fs::read(&moved[0]).unwrap(),
        bytes,
        "kept, not deleted"
    );

    let after = doctor(&p, &[]);
    after.assert_clean();
    assert_eq!(after.status("quarantine"), vec!["warn"], "{}", after.stdout);
}

#[test]
fn corrupt_pages_fail_the_integrity_check_and_fix_replaces_the_database() {
    let p = installed();
    for i in 0..30 {
        p.hook(&p.pre_tool_use("Bash", json!({"command": format!("echo {i}")})));
    }
    {
        let c = p.db();
        c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);").unwrap();
    }
    // Keep the header page, scribble over the rest.
    let mut bytes = std::fs::read(p.db_path()).unwrap();
    assert!(bytes.len() > 3 * 4096);
    for b in bytes.iter_mut().skip(2 * 4096) {
        *b = 0xA5;
    }
    std::fs::write(p.db_path(), bytes).unwrap();

    let d = doctor(&p, &[]);
    assert_eq!(d.code, 1, "{}", d.stdout);
    let fails: Vec<&str> = d.stdout.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert!(
        fails
            .iter()
            .any(|l| l.contains("integrity") || l.contains("not a usable SQLite database")),
        "{}",
        d.stdout
    );

    let fixed = doctor(&p, &["--fix"]);
    assert!(
        fixed.stdout.contains("moved it aside to"),
        "{}",
        fixed.stdout
    );
    doctor(&p, &[]).assert_clean();
}

#[test]
fn database_from_before_v1_gets_its_migration_and_wal_from_fix() {
    let p = installed();
    remove_db(&p);
    {
        // What an older nagger left: a database, rollback journal, no schema v1 yet.
        let c = rusqlite::Connection::open(p.db_path()).unwrap();
        c.execute_batch("PRAGMA user_version = 0; CREATE TABLE scratch (x); DROP TABLE scratch;")
            .unwrap();
    }
    let d = doctor(&p, &[]);
    assert_eq!(d.code, 1, "{}", d.stdout);
    assert_eq!(d.status("schema"), vec!["FAIL"]);
    assert!(
        d.lines("schema")[0].contains(
            "schema v0, this nagger's is v5: migrations V1__initial, V2__lean_hook_log, V3__exact_identification, V4__names_that_say_what_they_hold, V5__rule_hit_reasons not applied"
        ),
        "{}",
        d.stdout
    );
    assert_eq!(d.status("journal"), vec!["FAIL"]);
    assert!(d.stderr.contains("2 problems found"), "{}", d.stderr);

    let fixed = doctor(&p, &["--fix"]);
    let line = fixed
        .stdout
        .lines()
        .find(|l| l.starts_with("fixed  schema"))
        .unwrap_or_else(|| panic!("{}", fixed.stdout));
    assert!(line.contains("switched to WAL"), "{line}");
    assert!(line.contains("applied V1__initial"), "{line}");
    let after = doctor(&p, &[]);
    after.assert_clean();
    assert!(
        after.lines("schema")[0].contains("v5 (latest)"),
        "{}",
        after.stdout
    );
    // The hook path takes the fast path on the repaired database.
    let r = p.hook(&p.pre_tool_use("Read", json!({"file_path": "x"})));
    assert_eq!(r.code, 0);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
}

#[test]
fn lost_migration_record_and_missing_index_are_restored_by_fix() {
    let p = installed();
    {
        let c = p.db();
        c.execute_batch("DELETE FROM refinery_schema_history; DROP INDEX idx_hook_log_stats;")
            .unwrap();
    }
    let d = doctor(&p, &[]);
    assert_eq!(d.code, 1, "{}", d.stdout);
    let schema = d.lines("schema");
    assert_eq!(schema.len(), 2, "{}", d.stdout);
    assert!(
        schema[0].contains("refinery_schema_history lacks V1__initial"),
        "{}",
        d.stdout
    );
    assert!(
        schema[1].contains("lacks index idx_hook_log_stats"),
        "{}",
        d.stdout
    );

    let fixed = doctor(&p, &["--fix"]);
    let line = fixed
        .stdout
        .lines()
        .find(|l| l.starts_with("fixed  schema"))
        .unwrap_or_else(|| panic!("{}", fixed.stdout));
    assert!(
        line.contains(
            "recorded V1__initial, V2__lean_hook_log, V3__exact_identification, V4__names_that_say_what_they_hold, V5__rule_hit_reasons as applied"
        ),
        "{line}"
    );
    assert!(
        line.contains("recreated index idx_hook_log_stats"),
        "{line}"
    );
    doctor(&p, &[]).assert_clean();
}

#[test]
fn missing_settings_entry_is_named_until_install_restores_it() {
    let p = installed();
    let mut s = settings(&p);
    s["hooks"]
        .as_object_mut()
        .unwrap()
        .shift_remove("SubagentStop");
    write_settings(&p, &s);
    let d = doctor(&p, &[]);
    assert_eq!(d.code, 1, "{}", d.stdout);
    assert_eq!(d.status("settings"), vec!["FAIL"]);
    assert!(
        d.lines("settings")[0].contains("no nagger entry for SubagentStop"),
        "{}",
        d.stdout
    );
    assert_eq!(p.run(&["install"]).code, 0);
    doctor(&p, &[]).assert_clean();
}

#[test]
fn settings_pointing_at_a_missing_binary_fail() {
    let p = installed();
    let text = std::fs::read_to_string(p.root.join(".claude/settings.json")).unwrap();
    let moved = text.replace("\"nagger hook\"", "\"/nonexistent/bin/nagger hook\"");
    assert_ne!(moved, text, "the installed command runs nagger");
    std::fs::write(p.root.join(".claude/settings.json"), moved).unwrap();
    let d = doctor(&p, &[]);
    assert_eq!(d.code, 1, "{}", d.stdout);
    let line = d.lines("settings")[0];
    assert!(
        line.contains("runs /nonexistent/bin/nagger, which does not exist"),
        "{}",
        d.stdout
    );
    assert_eq!(p.run(&["install"]).code, 0);
    doctor(&p, &[]).assert_clean();
}

#[test]
fn project_without_nagger_hooks_fails_the_settings_check() {
    let p = installed();
    write_settings(
        &p,
        &json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "other"}]}]}}),
    );
    // Hooks that ran today (as through a plugin) make it a warning instead.
    let d = doctor(&p, &[]);
    if d.code == 0 {
        assert_eq!(d.status("settings"), vec!["warn"], "{}", d.stdout);
        assert!(d.lines("settings")[0].contains("plugin"), "{}", d.stdout);
        p.db().execute("DELETE FROM hook_log", []).unwrap();
    }
    let d = doctor(&p, &[]);
    assert_eq!(d.code, 1);
    assert!(
        d.lines("settings")[0].contains("Claude Code never runs nagger"),
        "{}",
        d.stdout
    );
}

#[test]
fn config_mistakes_are_reported_with_file_line_and_key() {
    let p = installed();
    // An unknown key is a warning: it changes nothing that was asked for.
    p.write_config("[session]\nenabled = true\ntoken_treshold = 5\n");
    let d = doctor(&p, &[]);
    assert_eq!(d.code, 0, "{}", d.stdout);
    assert_eq!(d.status("config"), vec!["warn"]);
    assert!(
        d.lines("config")[0].contains(
            "config.toml:3: `session.token_treshold`: unknown key, ignored (did you mean `token_threshold`?)"
        ),
        "{}",
        d.stdout
    );
    // A bad value is a problem: a setting the user wrote is not in force.
    p.write_config("[context]\nttl_hours = \"two\"\nmax_entry_chars = 99\n");
    let json: Value = serde_json::from_str(&doctor(&p, &["--json"]).stdout).expect("JSON");
    assert_eq!(json["ok"], false);
    assert_eq!(json["problems"], 1);
    let config: Vec<&Value> = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["check"] == "config")
        .collect();
    assert_eq!(config[0]["status"], "fail");
    assert!(
        config[0]["message"]
            .as_str()
            .unwrap()
            .contains(":2: `context.ttl_hours`: must be a whole number, 0 or more, not the text \"two\"; the default applies"),
        "{}",
        config[0]
    );
    // The settings in force: the good value kept, the bad one on its default.
    assert_eq!(json["settings"]["context"]["max_entry_chars"], 99);
    assert_eq!(json["settings"]["context"]["ttl_hours"], 24);
    let shown = doctor(&p, &["--settings"]).stdout;
    assert!(shown.contains("max_entry_chars = 99"), "{shown}");
    assert!(shown.contains("[guard]"), "{shown}");

    p.write_config("[session]\nenabled = true\ntoken_threshold = 5\n");
    doctor(&p, &[]).assert_clean();
}

#[test]
fn a_misspelt_key_in_a_rule_is_named_in_full_and_the_rule_that_never_fires_fails() {
    let p = installed();
    p.write_config(
        r#"[[rules.command]]
name = "ls"
patterns = ["ls *"]
severity = "warn"

[[rules.command]]
name = "publish"
paterns = ["npm publish*"]
severity = "deny"
"#,
    );
    let d = doctor(&p, &[]);
    assert_eq!(d.code, 1, "{}\n{}", d.stdout, d.stderr);
    let lines = d.lines("config").join("\n");
    assert!(
        lines.contains(
            "config.toml:8: `rules.command[2].paterns`: unknown key, ignored (did you mean `patterns`?)"
        ),
        "{}",
        d.stdout
    );
    assert!(
        lines.contains(
            "`rules.command[2].patterns`: rule \"publish\" has no `patterns`, so it never fires"
        ),
        "{}",
        d.stdout
    );
    assert!(
        d.status("config").iter().all(|s| *s == "FAIL"),
        "a refusing rule that is not in force is a problem: {}",
        d.stdout
    );
    // The same mistake in a warning only warns: nothing it would have refused is lost.
    p.write_config(
        "[[rules.command]]\nname = \"ls\"\npatterns = [\"ls *\"]\nseverity = \"warn\"\nmesage = \"x\"\n",
    );
    let d = doctor(&p, &[]);
    assert_eq!(d.status("config"), vec!["warn"], "{}", d.stdout);
    assert_eq!(d.code, 0, "{}", d.stdout);
}

#[test]
fn stale_rows_warn_and_fix_purges_them() {
    let p = installed();
    let old = chrono::Utc::now().timestamp_millis() - 48 * 3_600_000;
    {
        let c = p.db();
        c.execute(
            "INSERT INTO subagents (agent_id, session_id, agent_type, created_at) VALUES ('ag-old', 'sess-old', 'coder', ?1)",
            [old],
        )
        .unwrap();
        c.execute(
            "INSERT INTO session_info (session_id, started_at, last_seen_at) VALUES ('sess-old', ?1, ?1)",
            [old],
        )
        .unwrap();
    }
    let d = doctor(&p, &[]);
    assert_eq!(d.code, 0, "stale rows are a warning: {}", d.stdout);
    assert_eq!(d.status("stale rows"), vec!["warn"]);
    assert!(
        d.lines("stale rows")[0].contains("1 subagent active and 1 session never ended"),
        "{}",
        d.stdout
    );
    let fixed = doctor(&p, &["--fix"]);
    assert!(
        fixed.stdout.contains("fixed  stale rows"),
        "{}",
        fixed.stdout
    );
    let after = doctor(&p, &[]);
    after.assert_clean();
    assert_eq!(after.status("stale rows"), vec!["ok"]);
    let left: i64 = p
        .db()
        .query_row(
            "SELECT count(*) FROM subagents WHERE agent_id = 'ag-old'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
}

#[test]
fn stats_rollup_out_of_step_fails_and_fix_recounts_it() {
    let p = installed();
    p.hook(&p.pre_tool_use("Read", json!({"file_path": "x"})));
    p.db().execute_batch("DELETE FROM hook_log_rollup").unwrap();
    let d = doctor(&p, &[]);
    assert_eq!(d.code, 1, "{}", d.stdout);
    assert!(
        d.lines("stats rollup")[0].contains("counts 0 runs but hook_log holds 2"),
        "{}",
        d.stdout
    );
    let fixed = doctor(&p, &["--fix"]);
    assert!(
        fixed.stdout.contains("recounted hook_log_rollup"),
        "{}",
        fixed.stdout
    );
    doctor(&p, &[]).assert_clean();
    let stats: Value = serde_json::from_str(&p.run(&["stats", "--json"]).stdout).unwrap();
    assert_eq!(stats["totals"]["runs"], 2);
}

#[test]
fn recent_hook_failures_are_a_warning_with_the_newest_message() {
    let p = installed();
    let details = serde_json::json!({"error": "database is locked"});
    nagger::storage::store::HookLogRepository::new(&p.db())
        .log(&nagger::storage::store::NewHookLog {
            session_id: "s",
            hook_name: "pre_tool_use",
            event_type: "PreToolUse",
            result: "error",
            details: Some(&details),
            duration_ms: Some(5000.0),
            ..Default::default()
        })
        .unwrap();
    let d = doctor(&p, &[]);
    assert_eq!(d.code, 0);
    assert_eq!(d.status("hook errors"), vec!["warn"]);
    let line = d.lines("hook errors")[0];
    assert!(line.contains("1 hook run failed in the last 24h"), "{line}");
    assert!(line.contains("(PreToolUse): database is locked"), "{line}");
}
