use std::ops::Range;

use super::*;

fn argvs(src: &str) -> Vec<String> {
    parse(src)
        .commands
        .iter()
        .map(super::SimpleCommand::normalized)
        .collect()
}

#[test]
fn operators_split_simple_commands() {
    assert_eq!(
        argvs("cd /tmp && rm -rf x || echo no; ls | wc -l & sleep 1\npwd"),
        [
            "cd /tmp", "rm -rf x", "echo no", "ls", "wc -l", "sleep 1", "pwd"
        ]
    );
}

#[test]
fn quotes_and_escapes_make_one_word() {
    let parsed = parse(r#"echo 'rm -rf /' "a b" c\ d $'x\ty' "q\"uote" r"m""#);
    assert_eq!(
        parsed.commands[0].argv,
        ["echo", "rm -rf /", "a b", "c d", "x\ty", "q\"uote", "rm"]
    );
    assert_eq!(parsed.commands.len(), 1);
}

#[test]
fn ansi_c_quotes_decode_every_escape_bash_knows_and_end_at_a_nul() {
    for (line, word) in [
        (r"rm $'\u002eclaude-nagger'", ".claude-nagger"),
        (r"rm $'\U0000002eclaude'", ".claude"),
        (r"rm $'\u2e'x", ".x"),
        (r"rm $'\x2e\056'", ".."),
        (r"rm $'.claude-nagger\0junk'", ".claude-nagger"),
        (r"rm $'.claude\x00junk'-nagger", ".claude-nagger"),
        (r"rm $'\u00e9'", "é"),
        (r"rm $'\cA'", "\u{1}"),
        (r"rm $'\u'", "\\u"),
    ] {
        assert_eq!(parse(line).commands[0].argv[1], word, "{line}");
    }
}

#[test]
fn comments_are_not_commands() {
    assert_eq!(argvs("ls # rm -rf /\n# git push -f\npwd"), ["ls", "pwd"]);
    assert_eq!(argvs("echo a#b"), ["echo a#b"]);
}

#[test]
fn redirections_leave_argv_and_are_recorded() {
    let parsed = parse("make >out.log 2>&1 </dev/null; cat <<< word >> all &>both");
    assert_eq!(argvs("make >out.log 2>&1 </dev/null"), ["make"]);
    assert_eq!(parsed.commands[0].writes_to, ["out.log"]);
    assert_eq!(parsed.commands[0].reads_from, ["/dev/null"]);
    assert_eq!(parsed.commands[1].argv, ["cat"]);
    assert_eq!(parsed.commands[1].writes_to, ["all", "both"]);
    assert_eq!(argvs("echo 2 > f"), ["echo 2"]);
}

#[test]
fn subshells_groups_and_substitutions_are_commands_too() {
    assert_eq!(
        argvs("(cd x && make) ; { rm -rf a; } ; echo $(date +%s) `whoami` <(ls)"),
        [
            "cd x",
            "make",
            "rm -rf a",
            "date +%s",
            "whoami",
            "ls",
            "echo $(date +%s) `whoami` <(ls)"
        ]
    );
    let parsed = parse("echo \"$(rm -rf /)\"");
    assert_eq!(parsed.commands[0].argv, ["rm", "-rf", "/"]);
    assert_eq!(parsed.commands[0].via, [Via::Substitution]);
    assert_eq!(argvs("x=${y:-$(id -u)}"), ["id -u"]);
}

#[test]
fn shell_scripts_are_unwrapped_recursively() {
    let parsed = parse(r#"bash -c "sh -c 'rm -rf /'""#);
    let names: Vec<String> = parsed
        .commands
        .iter()
        .map(super::SimpleCommand::normalized)
        .collect();
    assert_eq!(
        names,
        ["bash -c sh -c 'rm -rf /'", "sh -c rm -rf /", "rm -rf /"]
    );
    let rm = &parsed.commands[2];
    assert_eq!(rm.origin(), " (from `sh -c` in `bash -c`)");
    assert_eq!(
        argvs("eval 'git push' -f"),
        ["eval git push -f", "git push -f"]
    );
    assert_eq!(argvs("bash -lc 'ls'"), ["bash -lc ls", "ls"]);
    assert_eq!(
        argvs("bash -o pipefail -c 'ls'"),
        ["bash -o pipefail -c ls", "ls"]
    );
    assert_eq!(argvs("su root -c 'id'")[1], "id");
    assert!(parse("su -c 'id'").commands[1].sudo);
    assert_eq!(
        argvs("find . -name x -exec rm -rf {} \\;"),
        ["find . -name x -exec rm -rf {} ;", "rm -rf {}"]
    );
}

#[test]
fn wrappers_are_peeled_and_sudo_remembered() {
    let cases = [
        ("sudo -u root -E rm -rf /", "rm -rf /", true),
        ("sudo FOO=1 rm x", "rm x", true),
        ("doas -u root rm x", "rm x", true),
        ("env -i PATH=/bin FOO=bar rm x", "rm x", false),
        ("env -u HOME -- rm x", "rm x", false),
        ("env -S 'rm -rf' /", "rm -rf /", false),
        ("command -p rm x", "rm x", false),
        ("builtin exec nice -n 5 rm x", "rm x", false),
        ("nohup time -p timeout -s KILL 10s rm x", "rm x", false),
        ("timeout --kill-after=5 10 rm x", "rm x", false),
        ("xargs -0 -n 1 -I{} rm x", "rm x", false),
        ("xargs -I {} rm x", "rm x", false),
        ("FOO=1 BAR='a b' rm x", "rm x", false),
        ("/usr/bin/sudo /bin/rm x", "/bin/rm x", true),
        ("sudo", "sudo", false),
        ("command -v rm", "command -v rm", false),
        ("nice", "nice", false),
        ("if true; then rm x; fi", "rm x", false),
        ("! stdbuf -oL rm x", "rm x", false),
    ];
    for (src, expected, sudo) in cases {
        let parsed = parse(src);
        let found = parsed
            .commands
            .iter()
            .find(|c| c.normalized() == expected)
            .unwrap_or_else(|| panic!("{src}: {:?}", parsed.commands));
        assert_eq!(found.sudo, sudo, "{src}");
    }
    let c = &parse("sudo -u root rm -rf /").commands[0];
    assert_eq!(c.prefixes, ["sudo"]);
    assert_eq!(
        c.prefixed.as_deref().map(|p| p.join(" ")).as_deref(),
        Some("sudo -u root rm -rf /")
    );
}

#[test]
fn env_split_string_is_split_into_words_as_the_shell_splits_them() {
    assert_eq!(
        argvs(r#"env -S 'sh -c "rm -rf /tmp/a b"'"#),
        [r"sh -c rm -rf /tmp/a b", "rm -rf /tmp/a b"]
    );
    assert_eq!(argvs("env -S 'rm  -rf' /"), ["rm -rf /"]);
    assert_eq!(argvs("env -S 'echo a;b|c' x"), ["echo a;b|c x"]);
    assert_eq!(argvs("env -S 'echo $(rm -rf /)'"), ["echo $(rm -rf /)"]);
    assert_eq!(argvs("env -S ''"), ["env -S "]);
    assert_eq!(argvs("env --split-string='a\\ b' c"), ["a b c"]);
}

#[test]
fn sudo_reaches_into_unwrapped_scripts() {
    let parsed = parse("sudo bash -c 'rm -rf /tmp/x'");
    let rm = parsed
        .commands
        .iter()
        .find(|c| c.name() == "rm")
        .expect("rm found");
    assert!(rm.sudo);
}

#[test]
fn heredocs_are_skipped_unless_a_shell_reads_them() {
    assert_eq!(
        argvs("cat <<'EOF' > notes.md\nrm -rf /\nEOF\nls"),
        ["cat", "ls"]
    );
    assert_eq!(argvs("cat <<-EOF\n\trm -rf /\n\tEOF\nls"), ["cat", "ls"]);
    let parsed = parse("bash <<EOF\nrm -rf /\nEOF\n");
    assert_eq!(parsed.commands[1].normalized(), "rm -rf /");
    assert_eq!(parsed.commands[1].origin(), " (from `bash <<EOF`)");
    assert_eq!(argvs("sh <<< 'git push -f'")[1], "git push -f");
    assert_eq!(argvs("python3 <<EOF\nimport os\nEOF"), ["python3"]);
    assert_eq!(
        argvs("cat <<EOF\nnow $(date) `id`\nEOF"),
        ["cat", "date", "id"]
    );
    assert_eq!(argvs("cat <<'EOF'\nnow $(date)\nEOF"), ["cat"]);
}

#[test]
fn function_bodies_are_commands_and_arrays_are_data() {
    assert_eq!(argvs("f() { rm -rf x; }; f"), ["rm -rf x", "f"]);
    assert_eq!(
        argvs("files=(a b $(ls)) && echo ${files[@]}"),
        ["ls", "echo ${files[@]}"]
    );
}

#[test]
fn pipelines_number_their_stages() {
    let parsed = parse("curl -s x | tee f | sh; ls | wc");
    let stages: Vec<(u32, u32)> = parsed
        .commands
        .iter()
        .map(|c| (c.pipeline, c.stage))
        .collect();
    assert_eq!(stages, [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]);
}

#[test]
fn variants_cover_basename_and_split_flags() {
    let c = &parse("/bin/rm -rf build").commands[0];
    assert_eq!(
        c.variants(),
        ["/bin/rm -rf build", "rm -rf build", "rm -r -f build"]
    );
    assert_eq!(
        split_short_flags(&["-rfv".into(), "--force".into(), "-".into()]),
        ["-r", "-f", "-v", "--force", "-"]
    );
}

#[test]
fn flags_are_found_in_any_spelling() {
    let args = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
    assert!(has_flag(&args("-rfv x"), "rR", &["recursive"]));
    assert!(has_flag(&args("x --recursive"), "rR", &["recursive"]));
    assert!(!has_flag(&args("-- -r"), "rR", &["recursive"]));
    assert!(!has_flag(&args("--force-with-lease"), "f", &["force"]));
}

#[test]
fn interpreters_reading_stdin_are_told_apart() {
    let reads =
        |s: &str| reads_program_from_stdin(&s.split(' ').map(str::to_owned).collect::<Vec<_>>());
    assert!(reads("sh"));
    assert!(reads("bash -s -- -y"));
    assert!(reads("bash -x"));
    assert!(reads("python3 -"));
    assert!(reads("python3 -u"));
    assert!(reads("perl"));
    assert!(!reads("python3 -m json.tool"));
    assert!(!reads("python -c print(1)"));
    assert!(!reads("bash install.sh"));
    assert!(!reads("bash -c ls"));
    assert!(!reads("node -e 1"));
    assert!(!reads("jq ."));
}

#[test]
fn unterminated_and_unbalanced_input_still_parses() {
    for src in [
        "echo 'abc",
        "echo \"abc",
        "$(",
        "(((",
        ")))",
        "`ls",
        "${",
        "a <<",
        "x >",
        "bash -c",
        "'",
        "\\",
    ] {
        let _ = parse(src);
    }
    assert_eq!(argvs("echo $(ls"), ["ls", "echo $(ls"]);
}

#[test]
fn nesting_is_bounded_and_reported() {
    let deep = "$(".repeat(10_000);
    assert!(parse(&deep).too_deep);
    let parsed = parse(&format!("{}rm -rf /", "eval ".repeat(MAX_DEPTH + 10)));
    assert!(parsed.too_deep);
    let shallow = parse(&format!("{}rm -rf /", "eval ".repeat(MAX_DEPTH)));
    assert!(!shallow.too_deep);
    assert!(
        shallow
            .commands
            .iter()
            .any(|c| c.normalized() == "rm -rf /")
    );
    assert!(parse("echo $(echo $(echo hi))").too_deep.eq(&false));
}

use proptest::prelude::*;

/// Text rich in the characters the tokeniser treats specially.
fn shellish() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("$(".to_owned()),
            Just("<(".to_owned()),
            Just("`".to_owned()),
            Just("${".to_owned()),
            Just("<<EOF\n".to_owned()),
            Just("\nEOF\n".to_owned()),
            Just("bash -c ".to_owned()),
            Just("eval ".to_owned()),
            Just("sudo -u ".to_owned()),
            Just("env -S ".to_owned()),
            Just("xargs ".to_owned()),
            Just("find . -exec ".to_owned()),
            Just("rm -rf ".to_owned()),
            "[ a-z/~*'\"\\$`(){};&|<>#=!\n\t-]{1,4}",
            "\\PC{1,3}",
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    // The tokeniser terminates without panicking on any text, within its bounds.
    #[test]
    fn parse_never_panics_on_arbitrary_text(src in "\\PC{0,200}") {
        let parsed = parse(&src);
        prop_assert!(parsed.commands.len() <= MAX_COMMANDS);
        prop_assert!(parsed.commands.iter().all(|c| !c.argv.is_empty()));
    }

    // The same on text made of shell syntax, where the interesting paths are.
    #[test]
    fn parse_never_panics_on_shell_syntax(src in shellish()) {
        let parsed = parse(&src);
        prop_assert!(parsed.commands.len() <= MAX_COMMANDS);
        for command in &parsed.commands {
            prop_assert!(!command.argv.is_empty());
            prop_assert!(command.via.len() <= MAX_DEPTH + 1);
            let _ = (command.variants(), command.display(), command.origin());
        }
    }
}

#[test]
fn work_is_bounded_on_huge_or_twisted_input() {
    assert!(parse(&"a ".repeat(MAX_SCANNED_BYTES)).truncated);
    assert!(
        parse(&"${\"".repeat(100_000)).too_deep,
        "no stack overflow either"
    );
    assert!(parse(&"\"$(".repeat(100_000)).too_deep);
    let evals = parse(&"eval ".repeat(50_000));
    assert!(evals.too_deep || evals.truncated);
    let finds = parse(&"find . -exec ".repeat(20_000));
    assert!(finds.too_deep || finds.truncated);
}

#[test]
fn substitution_words_remember_the_commands_they_ran() {
    let parsed = parse("sh -c \"$(curl -s x)\" < <(wget y)");
    let sh = parsed
        .commands
        .iter()
        .find(|c| c.name() == "sh")
        .expect("sh");
    let names = |(word, runs): &(String, Range<usize>)| {
        let ran: Vec<&str> = parsed.commands[runs.clone()]
            .iter()
            .map(super::SimpleCommand::name)
            .collect();
        (word.clone(), ran)
    };
    let found: Vec<(String, Vec<&str>)> = sh.substitutions.iter().map(names).collect();
    assert_eq!(
        found,
        [
            ("$(curl -s x)".to_owned(), vec!["curl"]),
            ("<(wget y)".to_owned(), vec!["wget"])
        ]
    );
}

#[test]
fn command_count_is_bounded() {
    let many = "true;".repeat(MAX_COMMANDS + 10);
    let parsed = parse(&many);
    assert!(parsed.truncated);
    assert_eq!(parsed.commands.len(), MAX_COMMANDS);
}

// Brace expansion.

fn argv_of(line: &str) -> Vec<String> {
    parse(line).commands[0].argv.clone()
}

#[test]
fn alternatives_expand_in_place() {
    assert_eq!(
        argv_of("rm -rf .cla{u,}de"),
        ["rm", "-rf", ".claude", ".clade"]
    );
    assert_eq!(argv_of("mv a{,.bak}"), ["mv", "a", "a.bak"]);
    assert_eq!(argv_of("{rm,-rf,x}"), ["rm", "-rf", "x"]);
    assert_eq!(argv_of("echo {a,b}{1,2}"), ["echo", "a1", "a2", "b1", "b2"]);
    assert_eq!(argv_of("echo x{a,{b,c}}y"), ["echo", "xay", "xby", "xcy"]);
    assert_eq!(argv_of("echo {a}{b,c}"), ["echo", "{a}b", "{a}c"]);
}

#[test]
fn sequences_expand() {
    assert_eq!(argv_of("echo f{1..3}"), ["echo", "f1", "f2", "f3"]);
    assert_eq!(argv_of("echo {3..1}"), ["echo", "3", "2", "1"]);
    assert_eq!(argv_of("echo {08..10}"), ["echo", "08", "09", "10"]);
    assert_eq!(argv_of("echo {a..e..2}"), ["echo", "a", "c", "e"]);
    assert_eq!(argv_of("echo {1..a}"), ["echo", "{1..a}"]);
}

#[test]
fn quoted_or_plain_braces_stay() {
    assert_eq!(argv_of("echo '{a,b}'"), ["echo", "{a,b}"]);
    assert_eq!(argv_of("echo \\{a,b}"), ["echo", "{a,b}"]);
    assert_eq!(argv_of("echo {a\\,b}"), ["echo", "{a,b}"]);
    assert_eq!(
        argv_of("find . -exec rm {} +"),
        ["find", ".", "-exec", "rm", "{}", "+"]
    );
    assert_eq!(argv_of("echo ${x:-a,b}"), ["echo", "${x:-a,b}"]);
    assert_eq!(argv_of("echo {1'..'3}"), ["echo", "{1..3}"]);
    assert_eq!(argv_of("X={a,b} env"), ["env"]);
}

#[test]
fn too_many_words_mark_the_line_truncated() {
    let parsed = parse("echo {1..100000}");
    assert!(parsed.truncated);
    let parsed = parse("echo {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}");
    assert!(parsed.truncated);
    assert!(!parse("echo {a,b}{a,b}{a,b}").truncated);
}

#[test]
fn glob_groups_stand_for_any_name_in_their_folder() {
    for (src, word) in [
        ("rm .claude-nagger/!(x)", ".claude-nagger/*"),
        ("rm -r .claude-nagge@(r|x)", ".claude-nagge*"),
        ("rm -r .claude-n(#i)AGGER", ".claude-n*"),
        ("rm -r a/b*(.)/c", "a/b*/c"),
        ("ls ?(x|y)z", "*"),
    ] {
        let parsed = parse(src);
        assert_eq!(parsed.commands.len(), 1, "{src}");
        assert_eq!(parsed.commands[0].argv.last().unwrap(), word, "{src}");
    }
    // A function's `()`, an array and a subshell are no glob groups.
    assert_eq!(argvs("f() { ls; }; f"), ["ls", "f"]);
    assert_eq!(argvs("(cd x && ls)"), ["cd x", "ls"]);
    let parsed = parse("a=(x 'y z'); echo");
    assert_eq!(parsed.assignments[0].value.as_deref(), Some("'x' 'y z'"));
    assert!(parsed.assignments[0].array);
}

#[test]
fn declared_attributes_shape_the_value() {
    let parsed = parse("declare -n r=t; local -l x=ABC; typeset y+=z");
    let a = &parsed.assignments;
    assert!(a[0].nameref && a[0].value.as_deref() == Some("t"));
    assert_eq!(a[1].value.as_deref(), Some("abc"));
    assert!(a[2].append && a[2].name == "y");
}

#[test]
fn a_double_parenthesis_not_closed_by_two_is_a_subshell_in_a_subshell() {
    for line in ["((rm -rf /) )", "(( (rm -rf /)) )", "((true) ; rm -rf / )"] {
        let names: Vec<String> = parse(line)
            .commands
            .iter()
            .map(|c| c.name().to_owned())
            .collect();
        assert!(names.iter().any(|n| n == "rm"), "{line}: {names:?}");
    }
    // Arithmetic to bash; to dash, two subshells, whose commands are read apart.
    for line in ["((x++))", "(( (a+b) * 2 ))"] {
        let parsed = parse(line);
        assert!(parsed.commands.iter().all(|c| !c.via.is_empty()), "{line}");
        assert!(parsed.assignments.is_empty(), "{line}");
    }
}

#[test]
fn commands_in_subscripts_of_a_value_are_scripts_of_their_own() {
    assert_eq!(
        super::words::subscript_commands("a[$(rm -rf /)] b[`ls`] $(x) [0]"),
        ["rm -rf /", "ls"]
    );
    let names: Vec<String> = parse("x='a[$(shred -u f)]'")
        .commands
        .iter()
        .map(|c| c.name().to_owned())
        .collect();
    assert_eq!(names, ["shred"]);
}

#[test]
fn jobs_and_loops_are_recorded_with_their_commands() {
    let pairs = |v: &[Range<usize>]| v.iter().map(|r| (r.start, r.end)).collect::<Vec<_>>();
    let p = parse("(sleep 1; cp a b) & while :; do cp c d; done; echo x");
    assert_eq!(pairs(&p.background), [(0, 2)]);
    assert_eq!(pairs(&p.loops), [(2, 4)]);
    let p = parse("for f in a b; do for g in c; do cp $f $g; done; rm $f; done &");
    let names: Vec<&str> = p.commands.iter().map(SimpleCommand::name).collect();
    assert_eq!(names, ["for", "for", "cp", "rm"]);
    assert_eq!(pairs(&p.loops), [(1, 3), (0, 4)]);
    assert_eq!(pairs(&p.background), [(0, 4)]);
    // Neither a group nor a condition is a loop.
    assert!(
        parse("{ cp a b; } && if true; then cp c d; fi")
            .loops
            .is_empty()
    );
    let call = serde_json::json!({"command": "sleep 1; cp a b", "run_in_background": true});
    let c = Commands::of_call(&["Bash".to_owned()], "Bash", &call).expect("a command line");
    assert_eq!(pairs(&c.parsed.background), [(0, 2)]);
    let call = serde_json::json!({"command": "sleep 1; cp a b", "run_in_background": false});
    let c = Commands::of_call(&["Bash".to_owned()], "Bash", &call).expect("a command line");
    assert!(c.parsed.background.is_empty());
}

#[test]
fn more_wrappers_than_are_peeled_leave_the_line_not_understood() {
    let line = format!("{}rm -rf /", "env ".repeat(40));
    assert!(parse(&line).too_deep);
    assert!(!parse(&format!("{}rm -rf /", "env ".repeat(8))).too_deep);
}

#[test]
fn substitutions_end_where_bash_ends_them() {
    let names = |line: &str| -> Vec<String> {
        parse(line)
            .commands
            .iter()
            .map(|c| c.name().to_owned())
            .collect()
    };
    // A case pattern's `)` does not end `$(…)`; `$((…) )` is a substitution of a subshell.
    assert!(names("echo $(case x in x) rm -f a;; esac)").contains(&"rm".to_owned()));
    assert!(names("echo $((rm -f a) )").contains(&"rm".to_owned()));
    assert_eq!(names("echo $((1+2)) $(( (1+2)*3 ))"), ["echo"]);
    let after = names("y=$(case $1 in a) echo 1;; *) echo 2;; esac); ls");
    assert_eq!(after.last().map(String::as_str), Some("ls"), "{after:?}");
}

#[test]
fn a_compound_pipeline_stage_is_a_frame_of_its_own() {
    let p = parse("cd .claude; { cd ..; } | cat; rm -f settings.json");
    let cd = p
        .commands
        .iter()
        .find(|c| c.args() == ["..".to_owned()])
        .unwrap();
    let rm = p.commands.iter().find(|c| c.name() == "rm").unwrap();
    assert_ne!(cd.frame, rm.frame);
    let p = parse("cd src; ls | while read f; do cd \"$f\"; done; rm x");
    let inner = p
        .commands
        .iter()
        .find(|c| c.args() == ["$f".to_owned()])
        .unwrap();
    assert_ne!(inner.frame, p.commands[0].frame);
    // Not a stage: the group runs in the shell itself.
    let p = parse("{ cd ..; }; rm x");
    assert_eq!(p.commands[0].frame, p.commands[1].frame);
}

#[test]
fn compound_assignment_subscripts_are_read_as_expressions() {
    for line in ["a=([x]=1)", "a+=([x]=1)", "declare -a a=([x]=1)"] {
        let p = parse(line);
        assert!(
            p.evaluated.iter().any(|(_, n)| n == "x"),
            "{line}: {:?}",
            p.evaluated
        );
    }
}
