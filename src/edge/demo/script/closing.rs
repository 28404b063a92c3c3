//! The session's closing: reports and shared context, a compaction, the end and the
//! statistics.

use super::super::player::{Call, Player};
use super::cast::{
    CODER, CODER_REPORT, NAVIGATOR, NAVIGATOR_REPORT, REVIEWER, REVIEWER_REPORT, TESTER,
    TESTER_REPORT,
};
use super::helpers::{append, files_of, last_log, who};
use crate::storage::store::NaggerStateDB;
use serde_json::{Value, json};

pub(super) fn reports_and_shared_context(p: &mut Player) -> anyhow::Result<()> {
    p.section(
        5,
        "Compressed reports and shared context",
        "A subagent that stops without a [COMPRESSED] report is sent back once with the format;\n\
         its report is collected, and agents that start later receive it. Each collected report\n\
         gets a category from its agent's role (navigator: navigation, coder: code_changes,\n\
         reviewer: review, tester: test; [context.categories] adds more), and\n\
         [context.filters] says which categories each role receives.",
    );
    let s = p.session.clone();
    let root = p.root.clone();
    let file = |rel: &str| root.join(rel).display().to_string();
    append(
        &s.agent_transcript(&NAVIGATOR),
        &[
            s.tool_use(true, "msg_n1", "toolu_n1", "Grep", json!({"pattern": "def show"}), 9_000),
            s.tool_use(true, "msg_n2", "toolu_n2", "Read", json!({"file_path": file("app/views/users/show.html.erb")}), 12_000),
            s.subagent_text("msg_n3", "The profile page is UsersController#show, rendered by app/views/users/show.html.erb."),
        ],
    )?;
    let r = p.hook(
        Call::new(
            who(&NAVIGATOR),
            "stops with a plain final message",
            s.subagent_stop(
                &NAVIGATOR,
                "The profile page is UsersController#show, rendered by app/views/users/show.html.erb.",
                false,
            ),
        ),
        7,
    )?;
    p.check(
        r.decision() == "block" && r.text().contains("[COMPRESSED] agent_type: navigator"),
        "blocked once, with the format to use",
    );
    append(
        &s.agent_transcript(&NAVIGATOR),
        &[s.subagent_text("msg_n4", NAVIGATOR_REPORT)],
    )?;
    let r = p.hook(
        Call::new(
            who(&NAVIGATOR),
            "stops again, stop_hook_active, with a report",
            s.subagent_stop(&NAVIGATOR, NAVIGATOR_REPORT, true),
        ),
        1,
    )?;
    let row = last_log(p)?;
    p.check(
        r.decision() == "pass" && row["collected_from"] == "compressed",
        format!(
            "passes; report collected from the {} final message, category {}",
            row["collected_from"], row["category"]
        ),
    );

    append(
        &s.agent_transcript(&CODER),
        &[
            s.tool_use(true, "msg_c1", "toolu_c1", "Read", json!({"file_path": file("app/models/user.rb")}), 8_000),
            s.tool_use(
                true,
                "msg_c2",
                "toolu_c2",
                "Edit",
                json!({"file_path": file("app/models/user.rb"), "old_string": "end", "new_string": "  def avatar_url(size = 80) ... end\nend"}),
                10_000,
            ),
            s.tool_use(
                true,
                "msg_c3",
                "toolu_c3",
                "Write",
                json!({"file_path": file("app/views/users/_avatar.html.erb"), "content": "<%= image_tag user.avatar_url %>\n"}),
                11_000,
            ),
            s.tool_use(
                true,
                "msg_c4",
                "toolu_c4",
                "Edit",
                json!({"file_path": file("app/views/users/show.html.erb"), "old_string": "<h1>", "new_string": "<%= render \"avatar\", user: @user %>\n<h1>"}),
                12_000,
            ),
            s.subagent_text("msg_c5", CODER_REPORT),
        ],
    )?;
    append(
        &s.agent_transcript(&TESTER),
        &[
            s.tool_use(
                true,
                "msg_t1",
                "toolu_t1",
                "Write",
                json!({"file_path": file("test/models/user_test.rb"), "content": "..."}),
                7_000,
            ),
            s.tool_use(
                true,
                "msg_t2",
                "toolu_t2",
                "Bash",
                json!({"command": "bin/rails test test/models/user_test.rb"}),
                8_000,
            ),
            s.subagent_text("msg_t3", TESTER_REPORT),
        ],
    )?;
    let stops = vec![
        Call::new(
            who(&CODER),
            "stops with a report",
            s.subagent_stop(&CODER, CODER_REPORT, false),
        ),
        Call::new(
            who(&TESTER),
            "stops with a report",
            s.subagent_stop(&TESTER, TESTER_REPORT, false),
        ),
    ];
    let replies = p.hooks_at_once(stops, 1)?;
    let files = files_of(p, CODER.id)?;
    p.check(
        replies.iter().all(|r| r.decision() == "pass")
            && files.contains(&"app/views/users/_avatar.html.erb".to_string()),
        format!(
            "both pass; the coder's files are collected: {}",
            files.join(", ")
        ),
    );
    append(
        &s.transcript,
        &[
            s.agent_result(&NAVIGATOR, NAVIGATOR_REPORT),
            s.agent_result(&CODER, CODER_REPORT),
            s.agent_result(&TESTER, TESTER_REPORT),
            s.assistant_text("msg_05", "Mapped, built and tested. Now a review.", 48_000),
            s.tool_use(
                false,
                "msg_06",
                REVIEWER.tool_use_id,
                "Agent",
                REVIEWER.spawn_input(),
                49_000,
            ),
        ],
    )?;

    p.say("");
    p.note("A reviewer starts later: its digest holds the navigator's and the coder's results\n(reviewer receives navigation and code_changes; the tester's test results are filtered out).");
    let r = p.hook(
        Call::new(
            who(&REVIEWER),
            REVIEWER.agent_type,
            s.subagent_start(&REVIEWER),
        ),
        14,
    )?;
    let digest = r.context();
    p.check(
        digest.contains("UsersController#show")
            && digest.contains("User#avatar_url(size)")
            && !digest.contains("all pass"),
        "the digest carries the navigator's and the coder's results, not the tester's",
    );
    // Claude Code 2.1.69+ writes the agent's meta file (its spawning call) right after
    // SubagentStart: the reviewer's first call finds its spawn there.
    let meta = s.agent_transcript(&REVIEWER).with_extension("meta.json");
    if let Some(dir) = meta.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(
        &meta,
        json!({"agentType": REVIEWER.agent_type, "toolUseId": REVIEWER.tool_use_id}).to_string(),
    )?;
    let r = p.hook(
        Call::new(
            who(&REVIEWER),
            "Read app/models/user.rb",
            s.pre_tool_use_as(
                &REVIEWER,
                "toolu_01Rv1",
                "Read",
                json!({"file_path": file("app/models/user.rb")}),
            ),
        ),
        2,
    )?;
    p.check(
        r.decision() == "deny" && r.text().contains("reviewer conventions"),
        "the reviewer's first call gets the reviewer's conventions",
    );
    append(
        &s.agent_transcript(&REVIEWER),
        &[s.subagent_text("msg_r1", REVIEWER_REPORT)],
    )?;
    let r = p.hook(
        Call::new(
            who(&REVIEWER),
            "stops with a reviewer report",
            s.subagent_stop(&REVIEWER, REVIEWER_REPORT, false),
        ),
        1,
    )?;
    p.check(
        r.decision() == "pass",
        "a report in the reviewer format passes",
    );
    append(&s.transcript, &[s.agent_result(&REVIEWER, REVIEWER_REPORT)])?;
    Ok(())
}

pub(super) fn compaction(p: &mut Player) -> anyhow::Result<()> {
    p.section(
        6,
        "Compaction",
        "The context is compacted. The main agent gets the shared-context digest back, and its\n\
         next tool call gets the conventions again.",
    );
    let s = p.session.clone();
    append(
        &s.transcript,
        &[
            s.compact_boundary(),
            s.compact_summary(),
            s.assistant_text("msg_07", "Continuing: the avatar work is reviewed.", 9_500),
        ],
    )?;
    let r = p.hook(
        Call::new("main agent", "source=compact", s.session_start("compact")),
        10,
    )?;
    let digest = r.context();
    p.check(
        r.decision() == "context"
            && digest.contains("restored after the compaction")
            && digest.contains("UsersController#show")
            && digest.contains("Verdict: PASS"),
        "the main agent recovers what its subagents reported",
    );
    let read = json!({"file_path": p.root.join("README.md").display().to_string()});
    append(
        &s.transcript,
        &[s.tool_use(false, "msg_08", "toolu_01Rd3", "Read", read.clone(), 10_200)],
    )?;
    let r = p.hook(
        Call::new(
            "main agent",
            "Read README.md",
            s.pre_tool_use("toolu_01Rd3", "Read", read),
        ),
        2,
    )?;
    p.check(
        r.decision() == "deny" && r.text().contains("Conventions, once more"),
        "the conventions fire again after the compaction",
    );
    Ok(())
}

pub(super) fn session_end(p: &mut Player) -> anyhow::Result<()> {
    p.section(
        7,
        "SessionEnd",
        "The session ends: nagger records its metrics and writes the session's _summary.md.",
    );
    let input = p.session.session_end("prompt_input_exit");
    let r = p.hook(
        Call::new("main agent", "reason=prompt_input_exit", input),
        1,
    )?;
    let row = last_log(p)?;
    let m = &row["metrics"];
    let count = |n: &Value, one: &str, many: &str| {
        let n = n.as_i64().unwrap_or(0);
        format!("{n} {}", if n == 1 { one } else { many })
    };
    p.note(&format!(
        "metrics recorded: {}, {} before this SessionEnd ({}, {}, {}), {}, {}",
        count(&m["agents"], "agent", "agents"),
        count(&m["hook_runs"], "hook run", "hook runs"),
        count(&m["denies"], "deny", "denies"),
        count(&m["asks"], "ask", "asks"),
        count(&m["blocks"], "block", "blocks"),
        count(&m["compactions"], "compaction", "compactions"),
        count(
            &m["context_entries"],
            "shared-context entry",
            "shared-context entries"
        ),
    ));
    let summary = p
        .root
        .join(".claude-nagger/context")
        .join(&p.session.id)
        .join("_summary.md");
    p.check(
        r.decision() == "pass" && m["agents"] == 4 && summary.is_file(),
        format!("four agents finished; {} written", summary.display()),
    );
    Ok(())
}

pub(super) fn stats(p: &mut Player) -> anyhow::Result<()> {
    p.section(
        8,
        "Stats",
        "`nagger stats` on the demo's database. Its runs count this SessionEnd too; its\n\
         durations are measured inside nagger, from reading the input to writing the answer,\n\
         so they are shorter than the spawn-to-exit ms beside each step above.",
    );
    let out = p.command(&["stats"])?;
    if out.status.success() {
        p.say("");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        p.say_as_is(&text);
        return Ok(());
    }
    // `stats` may be missing from this build; the demo summarises hook_log itself.
    let why = String::from_utf8_lossy(&out.stderr);
    let why = why.lines().next().unwrap_or("no output");
    p.note(&format!(
        "(`nagger stats` failed: {}; hook_log summarised by the demo)\n",
        super::super::player::cut(why, 60)
    ));
    let db = NaggerStateDB::open(&p.root.join(".claude-nagger/state.db"))?;
    let rows = db.hook_log().recent(Some(&p.session.id), 100_000)?;
    let mut by_event: std::collections::BTreeMap<
        &str,
        (Vec<f64>, std::collections::BTreeMap<&str, usize>),
    > = std::collections::BTreeMap::new();
    for row in &rows {
        let (durations, results) = by_event.entry(&row.event_type).or_default();
        durations.push(row.duration_ms.unwrap_or(0.0));
        *results
            .entry(row.result.as_deref().unwrap_or("none"))
            .or_default() += 1;
    }
    let table_rows: Vec<Vec<String>> = by_event
        .iter_mut()
        .map(|(event, (durations, results))| {
            durations.sort_by(f64::total_cmp);
            let p50 = durations[(durations.len() - 1) / 2];
            let max = durations.last().copied().unwrap_or(0.0);
            vec![
                event.to_string(),
                durations.len().to_string(),
                results
                    .iter()
                    .map(|(r, n)| format!("{r} {n}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                format!("{p50:.1}"),
                format!("{max:.1}"),
            ]
        })
        .collect();
    let table = crate::base::table::table(
        &["EVENT", "RUNS", "DECISIONS", "P50 MS", "MAX MS"],
        &table_rows,
    );
    for line in table.lines() {
        p.say(&format!("   {line}"));
    }
    p.note(&format!(
        "\n{} hook runs in hook_log (durations measured inside nagger, without process start)",
        rows.len()
    ));
    Ok(())
}
