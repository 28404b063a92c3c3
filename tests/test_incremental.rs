//! The parent transcript is scanned incrementally: a SubagentStart reads only
//! what was appended since the last scan, even on a 100 MB transcript.

use crate::common::*;
use serde_json::json;
use std::io::Write;

fn bytes_scanned(p: &Project) -> u64 {
    let log = p.hook_log();
    let last = log
        .iter()
        .rev()
        .find(|l| l.0 == "SubagentStart")
        .expect("a SubagentStart row");
    last.2["bytes_scanned"]
        .as_u64()
        .expect("bytes_scanned recorded")
}

#[test]
fn subagent_start_on_a_100_mb_transcript_reads_only_the_appended_bytes() {
    let p = Project::new();
    {
        let mut f = std::io::BufWriter::new(
            std::fs::OpenOptions::new()
                .append(true)
                .open(&p.transcript)
                .unwrap(),
        );
        let filler = "x".repeat(4000);
        let mut i = 0u64;
        while f.get_ref().metadata().unwrap().len() < 100 * 1024 * 1024 {
            let line = usage_line(&format!("m{i}"), 1000 + i);
            let mut line = line;
            line["message"]["content"][0]["text"] = json!(filler);
            writeln!(f, "{line}").unwrap();
            if i.is_multiple_of(5000) {
                writeln!(f, "{}", spawn_line(&format!("toolu_{i}"), "coder", "work")).unwrap();
            }
            i += 1;
            if i.is_multiple_of(1000) {
                f.flush().unwrap();
            }
        }
        f.flush().unwrap();
    }
    let size = std::fs::metadata(&p.transcript).unwrap().len();
    p.hook(&p.subagent_start("ag-first", "coder"));
    // A transcript met for the first time is read over its last bytes only.
    assert_eq!(
        bytes_scanned(&p),
        nagger::storage::transcript::SCAN_BUDGET.min(size),
        "first scan reads the end of the file once"
    );

    // append ~10 KB, including a new spawn, and start another agent
    let mut appended = vec![spawn_line("toolu_new", "tester", "[ROLE:tester] check")];
    while appended
        .iter()
        .map(|l| l.to_string().len() + 1)
        .sum::<usize>()
        < 10 * 1024
    {
        appended.push(usage_line("late", 2000));
    }
    let appended_bytes: usize = appended.iter().map(|l| l.to_string().len() + 1).sum();
    p.append(&appended);
    p.hook(&p.subagent_start("ag-second", "tester"));
    // the appended bytes, plus the few hundred before them that prove the file is the same one
    let read = bytes_scanned(&p);
    assert!(
        read >= appended_bytes as u64 && read <= appended_bytes as u64 + 512,
        "only the appended bytes are read: {read} of {size}"
    );
    let role: String = p
        .db()
        .query_row(
            "SELECT role FROM subagents WHERE agent_id = 'ag-second'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(role, "tester");

    // nothing appended: nothing but the identity check is read
    p.hook(&p.subagent_start("ag-third", "coder"));
    assert!(bytes_scanned(&p) <= 512);
}

#[test]
fn a_partial_last_line_is_left_for_the_next_scan() {
    let p = Project::new();
    let line = spawn_line("toolu_p", "coder", "[ROLE:coder] x").to_string();
    let (head, tail) = line.split_at(line.len() / 2);
    std::fs::write(&p.transcript, head).unwrap();
    p.hook(&p.subagent_start("ag-1", "coder"));
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&p.transcript)
        .unwrap();
    writeln!(f, "{tail}").unwrap();
    p.hook(&p.subagent_start("ag-2", "coder"));
    let spawns: i64 = p
        .db()
        .query_row(
            "SELECT count(*) FROM task_spawns WHERE tool_use_id = 'toolu_p'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(spawns, 1, "the spawn split across two scans is found once");
}

#[test]
fn a_replaced_transcript_is_rescanned_from_the_start() {
    let p = Project::new();
    p.append(&[spawn_line("toolu_1", "coder", "a"), usage_line("m", 5)]);
    p.hook(&p.subagent_start("ag-1", "coder"));
    std::fs::write(
        &p.transcript,
        format!("{}\n", spawn_line("toolu_2", "tester", "b")),
    )
    .unwrap();
    p.hook(&p.subagent_start("ag-2", "tester"));
    let role: Option<String> = p
        .db()
        .query_row(
            "SELECT role FROM subagents WHERE agent_id = 'ag-2'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(role.as_deref(), Some("tester"));
    let source: String = p
        .db()
        .query_row(
            "SELECT role_source FROM subagents WHERE agent_id = 'ag-2'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(source, "task_match");
}
