//! The demo's session, step by step: a main agent asked for avatars on a profile
//! page, three parallel subagents (legacy payloads, then modern ones), rules and
//! the guard, compressed reports, shared context, a compaction and the end.

use super::fixtures::{self, Agent};
use super::{Call, Player, Reply};
use crate::store::NaggerStateDB;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

const NAVIGATOR: Agent = Agent {
    id: "a1f3c9e",
    agent_type: "navigator",
    tool_use_id: "toolu_01Nav7QkX2m",
    description: "Map the profile page",
    prompt: "Find where the user profile page is rendered and where users are loaded. \
             Report files and entry points; change nothing.",
    role: "navigator",
};

const CODER: Agent = Agent {
    id: "a7d20b4",
    agent_type: "general-purpose",
    tool_use_id: "toolu_01Cod3RvB8p",
    description: "Add avatars",
    prompt: "[ROLE:coder] Add an avatar to the user profile page: User#avatar_url from the \
             email (Gravatar) and an _avatar partial in the show view.",
    role: "coder",
};

const TESTER: Agent = Agent {
    id: "ac4e817",
    agent_type: "qa-runner",
    tool_use_id: "toolu_01Qa9TzL4w",
    description: "Test avatars",
    prompt: "Write and run model tests for User#avatar_url.",
    role: "tester",
};

const REVIEWER: Agent = Agent {
    id: "a93b5f0",
    agent_type: "reviewer",
    tool_use_id: "toolu_01Rev5HcN1s",
    description: "Review the avatar change",
    prompt: "Review the avatar change against docs/ARCHITECTURE.md.",
    role: "reviewer",
};

const NAVIGATOR_REPORT: &str = "[COMPRESSED] agent_type: navigator
Changed files: none
Result: profile = UsersController#show -> app/views/users/show.html.erb; User has email, no avatar column
Decisions: avatars from Gravatar by email, no migration
Blockers: none";

const CODER_REPORT: &str = "Done.

[COMPRESSED] agent_type: general-purpose
Changed files: app/models/user.rb, app/views/users/show.html.erb, app/views/users/_avatar.html.erb
Result: User#avatar_url(size) builds the Gravatar URL; show renders the _avatar partial
Decisions: md5 of the downcased email, size 80 by default
Blockers: none";

const TESTER_REPORT: &str = "[COMPRESSED] agent_type: qa-runner
Changed files: test/models/user_test.rb
Result: 3 tests for User#avatar_url, all pass (bin/rails test test/models/user_test.rb)
Decisions: none
Blockers: none";

const REVIEWER_REPORT: &str = "[COMPRESSED] agent_type: reviewer
Files reviewed: app/models/user.rb, app/views/users/show.html.erb, app/views/users/_avatar.html.erb
Critical: none
Warning: none
Suggestion: add alt text to the avatar image
Verdict: PASS";

pub fn play(p: &mut Player) -> anyhow::Result<()> {
    setup(p)?;
    session_start(p)?;
    main_conventions(p)?;
    parallel_subagents(p)?;
    rules_and_guard(p)?;
    reports_and_shared_context(p)?;
    compaction(p)?;
    session_end(p)?;
    stats(p)
}

fn setup(p: &mut Player) -> anyhow::Result<()> {
    let state_dir = p.root.join(".claude-nagger");
    std::fs::create_dir_all(&state_dir)?;
    std::fs::write(
        state_dir.join("config.toml"),
        format!("{}{}", fixtures::EXAMPLE_CONFIG, fixtures::EXTRA_ROLES),
    )?;
    for (path, text) in fixtures::PROJECT_FILES {
        let file = p.root.join(path);
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(file, text)?;
    }
    let s = p.session.clone();
    append(
        &s.transcript,
        &[
            s.user_prompt(
                "u-prompt-1",
                "Add an avatar to the user profile page. Use subagents: map it, build it, test it.",
            ),
            s.assistant_text(
                "msg_01",
                "I'll start by reading the architecture notes.",
                14_000,
            ),
        ],
    )?;
    p.say(
        "nagger demo: one Claude Code session played through `nagger hook`, as Claude Code runs it",
    );
    p.say(&format!("  project     {}", p.root.display()));
    p.say(&format!(
        "  config      {} (example rules and conventions, plus conventions for navigator, tester, reviewer)",
        p.root.join(".claude-nagger/config.toml").display()
    ));
    p.say(&format!("  transcript  {}", s.transcript.display()));
    p.say("  every step is one `nagger hook` process: JSON on stdin, decision on stdout;");
    p.say(
        "  the ms beside a step is that whole process, spawn to exit, as Claude Code waits for it",
    );
    Ok(())
}

fn session_start(p: &mut Player) -> anyhow::Result<()> {
    p.section(
        1,
        "SessionStart",
        "Claude Code starts; nagger records the session and purges expired state.",
    );
    let input = p.session.session_start("startup");
    let r = p.hook(Call::new("main agent", "source=startup", input), 2)?;
    p.check(
        r.decision() == "pass",
        "a configured project starts silently",
    );
    Ok(())
}

fn main_conventions(p: &mut Player) -> anyhow::Result<()> {
    p.section(
        2,
        "The main agent's first tool call",
        "The first call of the session is refused with the project conventions; the retry passes.",
    );
    let s = p.session.clone();
    let read = json!({"file_path": p.root.join("docs/ARCHITECTURE.md").display().to_string()});
    append(
        &s.transcript,
        &[s.tool_use(false, "msg_02", "toolu_01Rd1", "Read", read.clone(), 14_500)],
    )?;
    let first = p.hook(
        Call::new(
            "main agent",
            "Read docs/ARCHITECTURE.md",
            s.pre_tool_use("toolu_01Rd1", "Read", read.clone()),
        ),
        2,
    )?;
    p.check(
        first.decision() == "deny"
            && first
                .text()
                .contains("Read docs/ARCHITECTURE.md before editing"),
        "denied with the session's conventions",
    );
    append(
        &s.transcript,
        &[
            s.tool_result(false, "toolu_01Rd1", "[nagger] ## Project conventions ..."),
            s.tool_use(false, "msg_03", "toolu_01Rd2", "Read", read.clone(), 15_800),
        ],
    )?;
    let second = p.hook(
        Call::new(
            "main agent",
            "Read docs/ARCHITECTURE.md (again)",
            s.pre_tool_use("toolu_01Rd2", "Read", read),
        ),
        1,
    )?;
    p.check(second.decision() == "pass", "the second call passes");
    append(
        &s.transcript,
        &[s.tool_result(false, "toolu_01Rd2", "# Architecture ...")],
    )?;
    Ok(())
}

fn parallel_subagents(p: &mut Player) -> anyhow::Result<()> {
    p.section(
        3,
        "Three subagents in parallel",
        "The main agent spawns navigator, a general-purpose agent tagged [ROLE:coder] and a\n\
         qa-runner (role tester by prefix) in one message. Their SubagentStarts run at once.",
    );
    let s = p.session.clone();
    let spawns: Vec<Value> = [&NAVIGATOR, &CODER, &TESTER]
        .iter()
        .map(|a| {
            s.tool_use(
                false,
                "msg_04",
                a.tool_use_id,
                "Agent",
                a.spawn_input(),
                21_000,
            )
        })
        .collect();
    append(&s.transcript, &spawns)?;
    let starts = [&NAVIGATOR, &CODER, &TESTER]
        .iter()
        .map(|a| Call::new(who(a), a.agent_type, s.subagent_start(a)))
        .collect();
    let replies = p.hooks_at_once(starts, 2)?;
    p.check(
        replies
            .iter()
            .all(|r| r.decision() == "context" && r.context().contains("write your report to")),
        "each subagent is told where to write its report",
    );

    p.say("");
    p.note(
        "Before Claude Code 2.1.69 a tool call does not say which agent makes it. Claude Code\n\
         writes each call to the caller's own transcript (subagents/agent-<id>.jsonl, which starts\n\
         with the prompt it was spawned with) before the hook runs: nagger finds the call there,\n\
         and the prompt names the spawn, so each agent gets its own role even when all start at once.",
    );
    let glob = json!({"pattern": "app/**/*.rb"});
    let agents = [&NAVIGATOR, &CODER, &TESTER];
    for (n, agent) in agents.iter().enumerate() {
        append(
            &s.agent_transcript(agent),
            &[
                s.user_prompt(&format!("u-{}-prompt", agent.id), agent.prompt),
                s.tool_use(
                    true,
                    &format!("msg_gl{n}"),
                    &format!("toolu_01Gl{n}"),
                    "Glob",
                    glob.clone(),
                    3_000,
                ),
            ],
        )?;
    }
    let calls = (0..agents.len())
        .map(|n| {
            Call::new(
                "? (legacy payload)",
                "Glob app/**/*.rb",
                s.pre_tool_use(&format!("toolu_01Gl{n}"), "Glob", glob.clone()),
            )
        })
        .collect();
    let firsts = p.hooks_at_once(calls, 2)?;
    let got: Vec<Option<&str>> = firsts.iter().map(conventions_of).collect();
    let expected: Vec<Option<&str>> = agents.iter().map(|a| Some(a.role)).collect();
    p.check(
        firsts.iter().all(|r| r.decision() == "deny") && got == expected,
        format!(
            "three legacy calls at once, each refused with its own agent's conventions: {}",
            got.iter()
                .map(|g| g.unwrap_or("none"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    agents_table(p)?;

    p.say("");
    p.note("Claude Code 2.1.69 and later send agent_id: the agent is looked up directly.");
    let grep = json!({"pattern": "def show", "path": p.root.join("app").display().to_string()});
    p.hook(
        Call::new(
            who(&NAVIGATOR),
            "Grep \"def show\" app/",
            s.pre_tool_use_as(&NAVIGATOR, "toolu_01Gr1", "Grep", grep),
        ),
        1,
    )?;
    let row = last_log(p)?;
    p.check(
        row["caller"] == "direct" && row["role"] == "navigator" && row["first_call"] == false,
        format!(
            "hook_log: caller={} role={} first_call={} (conventions already shown)",
            row["caller"], row["role"], row["first_call"]
        ),
    );
    Ok(())
}

fn rules_and_guard(p: &mut Player) -> anyhow::Result<()> {
    p.section(
        4,
        "Rules and the guard",
        "File, command and tool rules from the config (block once / ask / block), then the\n\
         built-in shell guard, which parses commands rather than matching substrings.",
    );
    let s = p.session.clone();
    let view = p
        .root
        .join("app/views/users/show.html.erb")
        .display()
        .to_string();
    let edit = json!({"file_path": view, "old_string": "<h1>", "new_string": "<%= render \"avatar\" %>\n<h1>"});
    let r = p.hook(
        Call::new(
            who(&CODER),
            "Edit app/views/users/show.html.erb",
            s.pre_tool_use_as(&CODER, "toolu_01Ed1", "Edit", edit.clone()),
        ),
        1,
    )?;
    p.check(
        r.decision() == "deny" && r.text().contains("Views follow docs/views.md."),
        "file rule `views` (severity block) refuses the first edit of a view",
    );
    let r = p.hook(
        Call::new(
            who(&CODER),
            "Edit app/views/users/show.html.erb (again)",
            s.pre_tool_use_as(&CODER, "toolu_01Ed2", "Edit", edit),
        ),
        1,
    )?;
    p.check(
        r.decision() == "pass",
        "block fires once per session: the retry passes",
    );

    let r = p.hook(
        Call::new(
            "main agent",
            "Bash git push origin feature/avatar",
            s.pre_tool_use(
                "toolu_01Ps1",
                "Bash",
                json!({"command": "git push origin feature/avatar"}),
            ),
        ),
        1,
    )?;
    p.check(
        r.decision() == "ask" && r.text().contains("Pushing needs a green CI."),
        "command rule `push` asks the user",
    );
    let r = p.hook(
        Call::new(
            "main agent",
            "mcp__redmine__update_issue status=closed",
            s.pre_tool_use(
                "toolu_01Rm1",
                "mcp__redmine__update_issue",
                json!({"issue_id": 4711, "status": "closed"}),
            ),
        ),
        1,
    )?;
    p.check(
        r.decision() == "deny" && r.text().contains("Close tickets only after review."),
        "tool rule `ticket writes` blocks closing a ticket",
    );

    for command in ["rm -rf /", "bash -c 'rm -rf ~'"] {
        let r = p.hook(
            Call::new(
                who(&TESTER),
                format!("Bash {command}"),
                s.pre_tool_use_as(&TESTER, "toolu_01Rf1", "Bash", json!({"command": command})),
            ),
            1,
        )?;
        p.check(
            r.decision() == "deny" && r.text().contains("Refused"),
            format!("the guard denies `{command}`"),
        );
    }
    let r = p.hook(
        Call::new(
            who(&TESTER),
            "Bash rm -rf ./build",
            s.pre_tool_use_as(
                &TESTER,
                "toolu_01Rf3",
                "Bash",
                json!({"command": "rm -rf ./build"}),
            ),
        ),
        1,
    )?;
    p.check(r.decision() == "pass", "`rm -rf ./build` passes");
    Ok(())
}

fn reports_and_shared_context(p: &mut Player) -> anyhow::Result<()> {
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

fn compaction(p: &mut Player) -> anyhow::Result<()> {
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

fn session_end(p: &mut Player) -> anyhow::Result<()> {
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

fn stats(p: &mut Player) -> anyhow::Result<()> {
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
        let _ = std::io::stdout().write_all(text.as_bytes());
        return Ok(());
    }
    // `stats` may be missing from this build; the demo summarises hook_log itself.
    let why = String::from_utf8_lossy(&out.stderr);
    let why = why.lines().next().unwrap_or("no output");
    p.note(&format!(
        "(`nagger stats` failed: {}; hook_log summarised by the demo)\n",
        super::cut(why, 60)
    ));
    let db = NaggerStateDB::open(&p.root.join(".claude-nagger/state.db"))?;
    let rows = db.hook_log().get_recent(Some(&p.session.id), 100_000)?;
    let mut by_event: std::collections::BTreeMap<
        &str,
        (Vec<f64>, std::collections::BTreeMap<&str, usize>),
    > = Default::default();
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
    let table = crate::cmd::table(
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

// ── helpers ──

fn who(agent: &Agent) -> String {
    format!("{} {}", agent.role, agent.id)
}

/// Which role's conventions a reply carries.
fn conventions_of(reply: &Reply) -> Option<&'static str> {
    ["navigator", "coder", "tester"]
        .into_iter()
        .find(|role| reply.text().contains(&format!("## {role} conventions")))
}

/// `nagger agents --json`, printed as a table, checked: every subagent's first call
/// found in its own transcript and its spawn known exactly.
fn agents_table(p: &mut Player) -> anyhow::Result<()> {
    let out = p.command(&["agents", "--json"])?;
    let agents: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
    let mut rows: Vec<Vec<String>> = agents
        .iter()
        .map(|a| {
            [
                "agent_id",
                "agent_type",
                "role",
                "role_source",
                "identified_by",
            ]
            .iter()
            .map(|k| a[*k].as_str().unwrap_or("-").to_string())
            .collect()
        })
        .collect();
    // The calls raced; a stable order reads better.
    rows.sort();
    p.note("`nagger agents --json`:");
    let table = crate::cmd::table(
        &["AGENT", "TYPE", "ROLE", "ROLE SOURCE", "IDENTIFIED BY"],
        &rows,
    );
    for line in table.lines() {
        p.say(&format!("         {line}"));
    }
    p.note(
        "ROLE SOURCE is how nagger tied the agent to the Agent call that spawned it (its role:\n\
         [ROLE:…] tag, team name or subagent_type): agent_transcript = its own transcript starts\n\
         with that call's prompt; meta_file, tool_response and exact_link are other exact facts;\n\
         task_match is a guess by order, replaced as soon as an exact fact appears.\n\
         IDENTIFIED BY transcript = its first tool call, sent without agent_id, was found at the\n\
         end of its own transcript (claim = a guess by order, the last resort).",
    );
    let expected = [&NAVIGATOR, &CODER, &TESTER];
    let ok = expected.iter().all(|e| {
        agents.iter().any(|a| {
            a["agent_id"] == e.id
                && a["role"] == e.role
                && a["role_source"] == "agent_transcript"
                && a["identified_by"] == "transcript"
                && a["processed"] == true
        })
    });
    p.check(
        out.status.success() && ok,
        "each subagent tied exactly to its spawn (role) and its first call identified exactly",
    );
    Ok(())
}

/// The details of the newest hook_log row of the session.
fn last_log(p: &Player) -> anyhow::Result<Value> {
    let db = NaggerStateDB::open(&p.root.join(".claude-nagger/state.db"))?;
    let row = db.hook_log().get_recent(Some(&p.session.id), 1)?;
    Ok(row
        .first()
        .and_then(|r| r.details.as_deref())
        .and_then(|d| serde_json::from_str(d).ok())
        .unwrap_or(Value::Null))
}

/// Files the shared context records for an agent's result.
fn files_of(p: &Player, agent_id: &str) -> anyhow::Result<Vec<String>> {
    let db = NaggerStateDB::open(&p.root.join(".claude-nagger/state.db"))?;
    let entries = db
        .context()
        .session_results(&p.session.id, None, None, 100)?;
    Ok(entries
        .into_iter()
        .find(|e| e.agent_id.as_deref() == Some(agent_id))
        .map(|e| e.files)
        .unwrap_or_default())
}

fn append(path: &Path, lines: &[Value]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    let mut text = String::new();
    for line in lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    f.write_all(text.as_bytes())?;
    Ok(())
}
