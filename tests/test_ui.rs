//! `nagger ui` as a person uses it: the real server on a database filled by real hook
//! runs (the demo's), every page and endpoint fetched over TCP, the timeline rendered by
//! headless Chromium, and the server's refusals: foreign Host names, missing or wrong
//! tokens, writes of any kind.

use crate::common::ui_client::{UiServer, kept_demo, request};
use crate::common::*;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// `nagger ui` in the project, on `db`, with `root` as the project.
fn start_ui(p: &Project, root: &Path, db: &Path) -> UiServer {
    let mut cmd = p.command(&["ui", "--db", &db.display().to_string()]);
    cmd.env("CLAUDE_PROJECT_DIR", root).current_dir(root);
    UiServer::start(cmd)
}

/// `nagger demo --keep` inside the test's project (removed with `p`).
fn demo(p: &Project) -> (PathBuf, PathBuf) {
    let mut cmd = p.command(&[]);
    cmd.env("TMPDIR", &p.root);
    kept_demo(cmd)
}

fn query_i64(db: &Path, sql: &str) -> i64 {
    let c = rusqlite::Connection::open(db).expect("open");
    c.query_row(sql, [], |r| r.get(0)).expect(sql)
}

fn the_session(db: &Path) -> String {
    let c = rusqlite::Connection::open(db).expect("open");
    c.query_row("SELECT session_id FROM session_info", [], |r| r.get(0))
        .expect("one session")
}

const PAGES: [&str; 6] = ["/", "/timeline", "/context", "/rules", "/tasks", "/stats"];

#[test]
fn ui_serves_every_page_and_endpoint_of_a_demo_session() {
    let p = Project::new();
    let (root, db) = demo(&p);
    let session = the_session(&db);
    let ui = start_ui(&p, &root, &db);

    for page in PAGES {
        let reply = ui.get(page);
        assert_eq!(reply.status, 200, "{page}");
        assert!(
            reply.body.contains("<script src=\"/assets/app.js\">"),
            "{page}"
        );
        assert!(reply.head.contains("Content-Security-Policy"), "{page}");
    }
    let js = ui.get("/assets/app.js");
    assert!(js.body.contains("function timelineChart"), "{}", js.status);
    assert!(ui.get("/assets/app.css").body.contains("--deny"));
    assert_eq!(ui.get("/nowhere").status, 404);
    assert_eq!(ui.get("/api/nowhere").status, 404);

    let sessions = ui.json("/api/sessions");
    let row = &sessions["sessions"][0];
    assert_eq!(row["session_id"], json!(session));
    assert_eq!(row["agents_finished"], json!(4));
    assert_eq!(row["compactions"], json!(1));
    let runs = query_i64(&db, "SELECT count(*) FROM hook_log");
    assert_eq!(row["hook_runs"], json!(runs));
    // Refusals, questions and blocks are counted apart.
    for (field, result) in [("denied", "deny"), ("asked", "ask"), ("blocked", "block")] {
        let n = query_i64(
            &db,
            &format!("SELECT count(*) FROM hook_log WHERE result = '{result}'"),
        );
        assert!(n > 0, "the demo has a {result}");
        assert_eq!(row[field], json!(n), "{field}: {row}");
    }

    // The timeline: every agent with its role source, every hook run with its result,
    // every spawn with its link.
    let t = &ui.json(&format!("/api/timeline?session={session}"))["timeline"];
    let agents = t["agents"].as_array().expect("agents");
    assert_eq!(agents.len(), 4, "{t}");
    for a in agents {
        assert!(a["role_source"].is_string(), "{a}");
        assert!(a["stopped_at"].as_i64() >= a["started_at"].as_i64(), "{a}");
    }
    let mut types: Vec<&str> = agents
        .iter()
        .map(|a| a["agent_type"].as_str().expect("type"))
        .collect();
    types.sort_unstable();
    assert_eq!(
        types,
        ["general-purpose", "navigator", "qa-runner", "reviewer"]
    );
    let results: Vec<&str> = t["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| r["result"].as_str().expect("result"))
        .collect();
    assert_eq!(i64::try_from(results.len()).unwrap(), runs);
    for expected in ["none", "context", "deny", "ask", "block"] {
        assert!(results.contains(&expected), "{expected} in {results:?}");
    }
    let spawns = t["spawns"].as_array().expect("spawns");
    assert_eq!(
        i64::try_from(spawns.len()).unwrap(),
        query_i64(&db, "SELECT count(*) FROM task_spawns")
    );
    assert!(
        spawns.iter().any(|s| s["linked_agent_id"].is_string()),
        "exact links are shown: {spawns:?}"
    );
    assert!(
        spawns.iter().all(|s| s["matched_agent_id"].is_string()),
        "{spawns:?}"
    );
    assert_eq!(
        i64::try_from(t["rule_hits"].as_array().expect("hits").len()).unwrap(),
        query_i64(&db, "SELECT count(*) FROM rule_hits")
    );
    assert_eq!(ui.get("/api/timeline?session=nope").status, 404);
    assert_eq!(ui.get("/api/timeline").status, 400);

    // Shared context: entries per category and the digest the hooks would inject.
    let c = ui.json("/api/context");
    let per_category: i64 = c["project_categories"]
        .as_array()
        .expect("categories")
        .iter()
        .map(|x| x["entries"].as_i64().expect("n"))
        .sum();
    assert_eq!(
        per_category,
        query_i64(&db, "SELECT count(*) FROM context_entries")
    );
    assert!(
        c["digest"]["text"]
            .as_str()
            .expect("text")
            .contains("## Shared context (nagger)"),
        "{c}"
    );
    let roles = c["roles"].as_array().expect("roles").clone();
    assert!(roles.contains(&json!("reviewer")), "{roles:?}");
    let reviewer = ui.json(&format!("/api/context?session={session}&role=reviewer"));
    assert_eq!(reviewer["digest"]["role"], json!("reviewer"));
    assert!(
        reviewer["digest"]["text"]
            .as_str()
            .expect("text")
            .contains("write your report to"),
        "{reviewer}"
    );

    let rules = ui.json("/api/rules");
    assert!(
        rules["guards"]
            .as_array()
            .expect("guards")
            .iter()
            .any(|g| g["rule"] == "guard:rm-rf"),
        "{rules}"
    );
    assert!(!rules["rules"].as_array().expect("rules").is_empty());
    // Every configured rule is listed, with its hits, none included: the demo's, and one
    // added now that never fired.
    let config_path = root.join(".claude-nagger/config.toml");
    let mut text = std::fs::read_to_string(&config_path).expect("demo config");
    text.push_str(
        "\n[[rules.command]]\nname = \"never\"\npatterns = [\"never-run-this*\"]\nseverity = \"warn\"\n",
    );
    std::fs::write(&config_path, text).expect("config");
    let rules = ui.json("/api/rules");
    let config = nagger::domain::config::LoadedConfig::load(&config_path);
    let configured = rules["configured"].as_array().expect("configured");
    let r = &config.config.rules;
    let names: Vec<(&str, &str)> = r
        .file
        .iter()
        .map(|x| ("file", x.name.as_str()))
        .chain(r.command.iter().map(|x| ("command", x.name.as_str())))
        .chain(r.tool.iter().map(|x| ("tool", x.name.as_str())))
        .chain(r.after_edit.iter().map(|x| ("after_edit", x.name.as_str())))
        .chain(r.recovery.iter().map(|x| ("recovery", x.name.as_str())))
        .collect();
    assert_eq!(configured.len(), names.len(), "{rules}");
    let mut unfired = 0;
    for (kind, name) in names {
        let row = configured
            .iter()
            .find(|c| c["kind"] == kind && c["rule"] == name)
            .unwrap_or_else(|| panic!("{kind} {name}: {rules}"));
        let hits = query_i64(
            &db,
            &format!(
                "SELECT count(*) FROM rule_hits WHERE rule_kind = '{kind}' AND rule_name = '{name}'"
            ),
        );
        assert_eq!(row["hits"], json!(hits), "{row}");
        unfired += usize::from(hits == 0);
    }
    assert!(
        unfired > 0,
        "a rule that never fired is listed too: {rules}"
    );
    assert_eq!(rules["problems"], json!([]), "the demo's config has none");

    // Tasks have a page: one handed to a role shows up there.
    let mut add = p.command(&["task", "add", "--role", "tester", "Cover the parser"]);
    add.env("CLAUDE_PROJECT_DIR", &root).current_dir(&root);
    assert!(add.status().expect("task add").success());
    let tasks = ui.json("/api/tasks")["tasks"].clone();
    assert!(
        tasks
            .as_array()
            .expect("tasks")
            .iter()
            .any(|t| t["title"] == "Cover the parser"
                && t["role"] == "tester"
                && t["status"] == "open"),
        "{tasks}"
    );

    let stats = ui.json("/api/stats?window=all&buckets=10");
    let per_event: i64 = stats["runs_per_event"]
        .as_object()
        .expect("per event")
        .values()
        .map(|v| v.as_i64().expect("n"))
        .sum();
    assert_eq!(per_event, runs);
    let latency = stats["latency"].as_array().expect("latency");
    assert_eq!(latency.len(), 10);
    let timed: i64 = latency.iter().map(|b| b["runs"].as_i64().unwrap()).sum();
    assert_eq!(
        timed,
        query_i64(
            &db,
            "SELECT count(*) FROM hook_log WHERE duration_ms IS NOT NULL"
        )
    );
    assert!(
        latency
            .iter()
            .any(|b| b["p99"].as_f64() >= b["p50"].as_f64() && b["p50"].is_f64())
    );
    assert_eq!(ui.get("/api/stats?window=3600").status, 200);
    assert_eq!(ui.get("/api/stats?window=soon").status, 400);
    assert_eq!(ui.get("/api/stats?buckets=0").status, 400);

    let changes = ui.json("/api/changes");
    assert_eq!(
        changes["hook_log"].as_i64(),
        Some(query_i64(&db, "SELECT max(id) FROM hook_log"))
    );
}

#[test]
fn ui_shows_new_hook_runs_while_it_runs() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    let ui = start_ui(&p, &p.root, &p.db_path());
    let before = ui.json("/api/changes")["hook_log"]
        .as_i64()
        .expect("marker");
    let denied = p.hook(&p.pre_tool_use("Bash", json!({"command": "rm -rf /"})));
    assert_eq!(denied.decision().as_deref(), Some("deny"), "{denied:?}");
    let after = ui.json("/api/changes")["hook_log"]
        .as_i64()
        .expect("marker");
    assert!(after > before, "{before} -> {after}");
    let t = ui.json(&format!("/api/timeline?session={}", p.session));
    let runs = t["timeline"]["runs"].as_array().expect("runs");
    assert_eq!(runs.last().expect("a run")["result"], json!("deny"));
    assert_eq!(t["timeline"]["rule_hits"][0]["rule_kind"], json!("guard"));
}

/// What `nagger check --command` says of `command`: its answer and the checks that fire.
fn checked(p: &Project, command: &str) -> (String, Vec<serde_json::Value>) {
    let out = p.run(&["check", "--command", command, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("check --json");
    let answer = v["answer"].as_str().expect("answer").to_string();
    (answer, v["matches"].as_array().expect("matches").clone())
}

#[test]
fn ui_shows_why_each_call_was_refused_or_asked() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    let ui = start_ui(&p, &p.root, &p.db_path());
    // One command the guard refuses, one whose program is only known when the shell runs
    // (the guard cannot analyse it and asks the user).
    let calls = [
        ("rm -rf /", "refuse", "deny"),
        ("$x -rf /", "ask the user", "ask"),
    ];
    let mut expected = Vec::new();
    for (command, answer, decision) in calls {
        let (said, matches) = checked(&p, command);
        assert_eq!(said, answer, "{command}: {matches:?}");
        let hook = p.hook(&p.pre_tool_use("Bash", json!({"command": command})));
        assert_eq!(hook.decision().as_deref(), Some(decision), "{hook:?}");
        for m in matches {
            let why = m["why"].as_str().expect("why");
            assert!(!why.trim().is_empty(), "{m}");
            expected.push((m["name"].clone(), json!(decision), json!(why)));
        }
    }
    assert_eq!(expected.len(), 2, "{expected:?}");

    let t = &ui.json(&format!("/api/timeline?session={}", p.session))["timeline"];
    let results: Vec<&serde_json::Value> = t["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| &r["result"])
        .collect();
    assert_eq!(
        results[results.len() - 2..],
        [&json!("deny"), &json!("ask")]
    );
    let recent = ui.json(&format!("/api/rules?session={}", p.session));
    for hits in [&t["rule_hits"], &recent["recent"]] {
        let mut shown: Vec<_> = hits
            .as_array()
            .expect("hits")
            .iter()
            .map(|h| {
                (
                    h["rule_name"].clone(),
                    h["decision"].clone(),
                    h["reason"].clone(),
                )
            })
            .collect();
        shown.reverse();
        assert_eq!(
            shown, expected,
            "newest first, each with what `nagger check` says"
        );
    }
}

#[test]
fn ui_refuses_foreign_hosts_and_requests_without_the_token() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    let ui = start_ui(&p, &p.root, &p.db_path());
    let with_token = format!("/api/sessions?token={}", ui.token);
    let port = ui.port;

    let ok = request(port, "GET", &with_token, &ui.host(), &[]);
    assert_eq!(ok.status, 200, "{ok:?}");
    // The token never travels in a cookie: every port of 127.0.0.1 would receive it.
    assert!(!ok.head.contains("Set-Cookie"), "{ok:?}");
    // The page sends it in a header.
    let header = format!("X-Nagger-Token: {}", ui.token);
    let by_header = request(port, "GET", "/api/sessions", &ui.host(), &[&header]);
    assert_eq!(by_header.status, 200, "{by_header:?}");
    assert!(by_header.body.contains("session_id"), "{by_header:?}");
    assert_eq!(
        request(port, "GET", &with_token, &format!("localhost:{port}"), &[]).status,
        200
    );
    // The page and its assets hold no data: served without the token, then closed.
    for target in ["/", "/timeline", "/assets/app.js", "/assets/app.css"] {
        let reply = request(port, "GET", target, &ui.host(), &[]);
        assert_eq!(reply.status, 200, "{target}: {reply:?}");
        assert!(
            reply.head.contains("Connection: close"),
            "{target}: {reply:?}"
        );
        assert!(
            !reply.body.contains(&ui.token),
            "{target}: the token is in the page"
        );
    }

    // A DNS name rebound to 127.0.0.1, a LAN address, another port: refused, token or not.
    for host in [
        "evil.example".to_string(),
        format!("evil.example:{port}"),
        format!("192.168.1.10:{port}"),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        format!("localhost.evil.example:{port}"),
        String::new(),
    ] {
        for target in [with_token.as_str(), "/", "/api/changes"] {
            let reply = request(port, "GET", target, &host, &[]);
            assert_eq!(reply.status, 403, "Host {host:?} {target}: {reply:?}");
            assert!(!reply.body.contains("session_id"), "{reply:?}");
        }
    }
    // No token, a wrong one, a cut one, one in a cookie (which is never read).
    let wrong = "0".repeat(ui.token.len());
    for (target, extra) in [
        ("/api/sessions".to_string(), vec![]),
        ("/api/changes".to_string(), vec![]),
        (format!("/api/sessions?token={wrong}"), vec![]),
        (format!("/api/sessions?token={}", &ui.token[..16]), vec![]),
        (
            "/api/sessions".to_string(),
            vec![format!("X-Nagger-Token: {wrong}")],
        ),
        (
            "/api/sessions".to_string(),
            vec![format!("Cookie: nagger_ui_{port}={}", ui.token)],
        ),
        (
            "/api/sessions".to_string(),
            vec![format!("Cookie: token={}", ui.token)],
        ),
    ] {
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let reply = request(port, "GET", &target, &ui.host(), &extra);
        assert_eq!(reply.status, 403, "{target} {extra:?}: {reply:?}");
        assert!(!reply.head.contains("Set-Cookie"), "{reply:?}");
    }
    // Nothing but reading.
    let post = request(
        port,
        "POST",
        &with_token,
        &ui.host(),
        &["Content-Length: 0"],
    );
    assert_eq!(post.status, 405, "{post:?}");
}

fn file_bytes(path: &Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}

#[test]
fn ui_never_writes_the_database() {
    let p = Project::new();
    let (root, db) = demo(&p);
    let session = the_session(&db);
    let wal = db.with_extension("db-wal");
    let (db_before, wal_before) = (file_bytes(&db), file_bytes(&wal));
    {
        let ui = start_ui(&p, &root, &db);
        let roles = ui.json("/api/context")["roles"].clone();
        let mut targets: Vec<String> = PAGES.iter().map(ToString::to_string).collect();
        targets.extend(
            [
                "/api/changes",
                "/api/sessions",
                "/api/rules",
                "/api/stats",
                "/api/stats?window=60",
                "/api/context",
            ]
            .map(String::from),
        );
        targets.push(format!("/api/timeline?session={session}"));
        targets.push(format!("/api/context?session={session}"));
        targets.push(format!("/api/rules?session={session}"));
        for role in roles.as_array().expect("roles") {
            targets.push(format!(
                "/api/context?session={session}&role={}",
                role.as_str().expect("role")
            ));
        }
        for t in &targets {
            assert_eq!(ui.get(t).status, 200, "{t}");
        }
        for method in ["POST", "PUT", "DELETE"] {
            let r = request(
                ui.port,
                method,
                &format!("/api/sessions?token={}", ui.token),
                &ui.host(),
                &["Content-Length: 0"],
            );
            assert_eq!(r.status, 405, "{method}");
        }
    }
    // A reader may leave an empty write-ahead log where there was none: no data.
    assert!(db_before == file_bytes(&db), "the database file changed");
    assert!(
        wal_before.unwrap_or_default() == file_bytes(&wal).unwrap_or_default(),
        "the write-ahead log changed"
    );
}

#[test]
fn ui_without_a_database_shows_an_empty_dashboard_creates_none_and_fills_once_hooks_run() {
    let p = Project::new();
    let ui = UiServer::start(p.command(&["ui"]));
    for page in PAGES {
        assert_eq!(ui.get(page).status, 200, "{page}");
    }
    assert_eq!(ui.json("/api/sessions")["sessions"], json!([]));
    assert_eq!(ui.json("/api/changes")["hook_log"], json!(0));
    for endpoint in ["/api/context", "/api/rules", "/api/stats", "/api/tasks"] {
        ui.json(endpoint);
    }
    assert_eq!(
        ui.get("/api/timeline?session=nope").status,
        404,
        "no session, as in any database"
    );
    assert!(!p.db_path().exists(), "nothing is created");
    // The first hook run creates the database: the running dashboard reads it.
    p.hook(&p.session_start("startup"));
    assert!(p.db_path().exists());
    let sessions = ui.json("/api/sessions")["sessions"].clone();
    assert_eq!(sessions[0]["session_id"], json!(p.session), "{sessions}");
}

#[test]
fn ui_reads_a_database_of_an_older_schema_without_migrating_it() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    let denied = p.hook(&p.pre_tool_use("Bash", json!({"command": "rm -rf /"})));
    assert_eq!(denied.decision().as_deref(), Some("deny"), "{denied:?}");
    // The database as schema v4 left it: rule hits without their reason.
    {
        let c = p.db();
        c.execute_batch(
            "ALTER TABLE rule_hits DROP COLUMN reason;
             DELETE FROM refinery_schema_history WHERE version >= 5;
             PRAGMA user_version = 4;",
        )
        .expect("back to v4");
    }
    let version = || query_i64(&p.db_path(), "PRAGMA user_version");
    let ui = start_ui(&p, &p.root, &p.db_path());
    for page in PAGES {
        assert_eq!(ui.get(page).status, 200, "{page}");
    }
    let t = ui.json(&format!("/api/timeline?session={}", p.session));
    let hit = &t["timeline"]["rule_hits"][0];
    assert_eq!(hit["rule_kind"], json!("guard"), "{t}");
    assert_eq!(hit["reason"], json!(null), "no reason before v5");
    for endpoint in [
        "/api/sessions",
        "/api/context",
        "/api/rules",
        "/api/stats",
        "/api/tasks",
    ] {
        ui.json(endpoint);
    }
    assert_eq!(version(), 4, "the dashboard migrates nothing");
}

#[test]
fn ui_listens_on_the_port_asked_for_and_says_when_it_is_taken() {
    let p = Project::new();
    p.hook(&p.session_start("startup"));
    let taken = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
    let port = taken.local_addr().expect("addr").port();
    let out = p
        .command(&["ui", "--port", &port.to_string()])
        .output()
        .expect("run nagger ui");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{stderr}"
    );
    drop(taken);
    let mut cmd = p.command(&["ui", "--port", &port.to_string()]);
    cmd.current_dir(&p.root);
    let ui = UiServer::start(cmd);
    assert_eq!(ui.port, port);
    assert_eq!(ui.get("/api/changes").status, 200);
}

/// Debian's `chromium`, or the name some distributions give it.
fn chromium() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
        .expect(
            "headless Chromium is required for this test and was not found: install Debian's \
             `chromium` package (apt-get install chromium; .ci/run does)",
        )
}

fn headless(browser: &Path, profile: &Path, args: &[&str], url: &str) -> std::process::Output {
    std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            // Lets the page's requests and rendering finish before the capture.
            "--virtual-time-budget=5000",
            "--window-size=1280,900",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .env("HOME", profile)
        .stderr(Stdio::piped())
        .stdin(Stdio::null())
        .output()
        .expect("run chromium")
}

#[test]
fn ui_timeline_renders_in_headless_chromium() {
    let browser = chromium();
    let p = Project::new();
    let (root, db) = demo(&p);
    let session = the_session(&db);
    let ui = start_ui(&p, &root, &db);
    let url = ui.url(&format!("/timeline?session={session}"));
    let profile = p.root.join("chromium-profile");
    std::fs::create_dir_all(&profile).expect("profile folder");

    // What a person sees: the rendered page, lanes and marks drawn by the page's script.
    let dom = headless(&browser, &profile, &["--dump-dom"], &url);
    let html = String::from_utf8_lossy(&dom.stdout);
    let agents: Vec<String> = {
        let c = rusqlite::Connection::open(&db).expect("open");
        let mut stmt = c
            .prepare("SELECT agent_id FROM subagent_history")
            .expect("prepare");
        stmt.query_map([], |r| r.get(0))
            .expect("query")
            .map(|r| r.expect("row"))
            .collect()
    };
    assert!(
        html.contains("session timeline"),
        "no timeline drawn:\n{html}\n{}",
        String::from_utf8_lossy(&dom.stderr)
    );
    for agent in &agents {
        assert!(html.contains(agent.as_str()), "agent {agent} missing");
    }
    // Each refused or asked hit with its reason, edged by its decision.
    let reasons: Vec<String> = {
        let c = rusqlite::Connection::open(&db).expect("open");
        let mut stmt = c
            .prepare("SELECT reason FROM rule_hits WHERE decision IN ('deny', 'ask', 'block')")
            .expect("prepare");
        stmt.query_map([], |r| r.get(0))
            .expect("query")
            .map(|r| r.expect("a reason for every hit"))
            .collect()
    };
    assert!(!reasons.is_empty());
    for reason in &reasons {
        let escaped = reason
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        assert!(html.contains(&escaped), "reason {reason:?} missing");
    }
    for shown in [
        "main agent",
        "role source: ",
        "compaction",
        "m-deny",
        "m-context",
        "exact link",
        "reason wrap r-deny",
        "reason wrap r-ask",
        "reason wrap r-block",
    ] {
        assert!(
            html.contains(shown),
            "{shown:?} missing from the rendered page"
        );
    }

    // The time axis spans the session, however short: its last hook run is drawn near
    // the chart's right edge, not squeezed into a fixed span.
    let chart = html
        .split_once("aria-label=\"session timeline\"")
        .map(|(before, after)| (before.rsplit_once("<svg").map_or("", |(_, s)| s), after))
        .expect("the timeline chart");
    let number_after = |text: &str, key: &str| -> Vec<f64> {
        text.split(key)
            .skip(1)
            .filter_map(|rest| rest.split('"').next()?.parse().ok())
            .collect()
    };
    let width = number_after(chart.0, "width=\"")[0];
    let marks = chart.1.split("</svg>").next().unwrap_or("");
    let xs = number_after(marks, "cx=\"");
    let last = xs.iter().copied().fold(0.0_f64, f64::max);
    assert!(
        last > 0.9 * width,
        "the last run is drawn at {last} of {width}: the axis does not span the session"
    );

    let png = p.root.join("timeline.png");
    let shot = headless(
        &browser,
        &profile,
        &[&format!("--screenshot={}", png.display())],
        &url,
    );
    assert!(
        png.is_file(),
        "no screenshot: {}",
        String::from_utf8_lossy(&shot.stderr)
    );
    let (width, height, colours, spread) = picture_stats(&png);
    assert_eq!((width, height), (1280, 900));
    assert!(colours > 50, "a near-blank picture: {colours} colours");
    assert!(
        spread > 100.0,
        "a near-blank picture: luma variance {spread}"
    );
}

/// Width, height, distinct colours and luma variance of a PNG.
fn picture_stats(path: &Path) -> (u32, u32, usize, f64) {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path).expect("open png"),
    ));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("png frame");
    let channels = info.color_type.samples();
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let pixels = &buf[..info.buffer_size()];
    let mut colours = std::collections::HashSet::new();
    let (mut sum, mut sum_sq, mut n) = (0f64, 0f64, 0f64);
    for px in pixels.chunks(channels) {
        let rgb = if channels >= 3 {
            [px[0], px[1], px[2]]
        } else {
            [px[0]; 3]
        };
        colours.insert(rgb);
        let luma =
            0.299 * f64::from(rgb[0]) + 0.587 * f64::from(rgb[1]) + 0.114 * f64::from(rgb[2]);
        sum += luma;
        sum_sq += luma * luma;
        n += 1.0;
    }
    let mean = sum / n;
    (
        info.width,
        info.height,
        colours.len(),
        sum_sq / n - mean * mean,
    )
}
