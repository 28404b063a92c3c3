//! The session's opening: setup, the main agent's conventions, parallel subagents,
//! rules and the guard.

use super::super::fixtures;
use super::super::player::{Call, Player};
use super::cast::{CODER, NAVIGATOR, TESTER};
use super::helpers::{agents_table, append, conventions_of, last_log, who};
use serde_json::{Value, json};

pub(super) fn setup(p: &mut Player) -> anyhow::Result<()> {
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

pub(super) fn session_start(p: &mut Player) -> anyhow::Result<()> {
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

pub(super) fn main_conventions(p: &mut Player) -> anyhow::Result<()> {
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

pub(super) fn parallel_subagents(p: &mut Player) -> anyhow::Result<()> {
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

pub(super) fn rules_and_guard(p: &mut Player) -> anyhow::Result<()> {
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
