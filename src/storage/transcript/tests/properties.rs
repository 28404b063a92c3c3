//! Properties over arbitrary transcripts and cuts.

use super::reverse::lines_forward;
use super::*;

fn fragment() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (0..4u8, 0..3u8).prop_map(|(n, t)| {
            let tool = if t == 0 { "Task" } else { "Agent" };
            spawn_line(
                &format!("msg_{n}"),
                spawn(&format!("toolu_{n}"), tool, "coder", "go"),
            )
            .into_bytes()
        }),
        (0..4u8, 0..3u8).prop_map(|(n, a)| agent_result(
            &format!("toolu_{n}"),
            &format!("agent{a}")
        )
        .into_bytes()),
        (0..4u8, 0..3u8)
            .prop_map(|(n, a)| progress(&format!("toolu_{n}"), &format!("agent{a}")).into_bytes()),
        Just(compact_boundary().into_bytes()),
        Just(SUMMARY.as_bytes().to_vec()),
        Just(tool_result("toolu_0", "ok").into_bytes()),
        prop::collection::vec(any::<u8>(), 0..40),
    ]
}

fn transcript_and_cuts() -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    prop::collection::vec(fragment(), 0..12).prop_flat_map(|fragments| {
        let content = fragments.concat();
        let len = content.len();
        (Just(content), prop::collection::vec(0..=len, 0..8))
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    // Scanning in pieces as the file grows finds exactly what one full scan finds.
    #[test]
    fn incremental_scans_match_one_full_scan((content, mut cuts) in transcript_and_cuts(), small in any::<bool>()) {
        let limits = if small { Limits { chunk: 16, max_line: 1 << 20, budget: u64::MAX } } else { FORWARD };
        cuts.push(content.len());
        cuts.sort_unstable();
        let transcript = Transcript::new("");
        let mut cursor: Option<ScanCursor> = None;
        let mut spawns = Vec::new();
        let mut links = Vec::new();
        let mut written = 0;
        for cut in cuts {
            transcript.append(&content[written..cut]);
            written = cut;
            let outcome = scan_spawns_with(&transcript.path, cursor.as_ref(), limits).expect("scan");
            prop_assert!(!outcome.rescanned_from_start);
            spawns.extend(outcome.spawns);
            for found in outcome.links {
                if !links.contains(&found) {
                    links.push(found);
                }
            }
            cursor = Some(outcome.cursor);
        }
        let full = scan_spawns_with(&transcript.path, None, limits).expect("full scan");
        prop_assert_eq!(spawns, full.spawns);
        prop_assert_eq!(links, full.links);
        prop_assert_eq!(cursor, Some(full.cursor));
    }

    // No reader panics or fails on arbitrary bytes, whatever the chunk size.
    #[test]
    fn readers_survive_arbitrary_bytes(
        content in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..600),
            prop::collection::vec(fragment(), 0..6).prop_map(|f| f.concat()),
        ],
        chunk in 1..64usize,
    ) {
        let transcript = Transcript::new("");
        transcript.append(&content);
        let limits = Limits { chunk, max_line: 256, budget: u64::MAX };
        let path = &transcript.path;
        let reverse = || ReverseLines::with_limits(File::open(path).expect("open"), limits).expect("reader");
        scan_spawns_with(path, None, limits).expect("scan");
        total_usage_with(path, limits).expect("usage");
        context_tokens_in(&mut reverse()).expect("tokens");
        last_assistant_text_in(&mut reverse()).expect("text");
        files_written_in(&mut reverse(), 50).expect("files");
        let mut backwards = Vec::new();
        let mut lines = ReverseLines::with_limits(File::open(path).expect("open"), Limits { chunk, max_line: usize::MAX, budget: u64::MAX }).expect("reader");
        while let Some(line) = lines.next_line().expect("read") {
            backwards.push(line.to_vec());
        }
        backwards.reverse();
        prop_assert_eq!(backwards, lines_forward(&content));
    }
}
