use super::*;
use std::path::Path;

const EXAMPLE: &str = include_str!("../../../docs/example-config.toml");

#[test]
fn example_config_loads_as_is_with_its_meanings() {
    let c = parse(EXAMPLE, Path::new("config.toml")).expect("the example loads");
    assert_eq!(c.session.delivery, Delivery::Deny);
    assert_eq!(c.session.token_threshold, 50_000);
    assert_eq!(c.session.first_time.title, "Project conventions");
    assert!(!c.roles["Explore"].enabled);
    assert_eq!(c.roles["coder"].text, "Run the tests before you report.");
    assert_eq!(c.role_resolution.prefixes["qa"], "tester");
    assert_eq!(c.rules.file.len(), 1);
    assert_eq!(c.rules.command.len(), 1);
    assert_eq!(c.rules.tool.len(), 1);
    assert_eq!(c.guard.deny, vec!["terraform destroy*".to_string()]);
    assert_eq!(c.context.filters["navigator"], Vec::<String>::new());
    assert_eq!(c.compress.reviewer_max_lines, 20);
    assert_eq!(c.log.retention_days, 30);
}

#[test]
fn template_loads_and_matches_defaults_where_it_says_so() {
    let c = parse(TEMPLATE, Path::new("config.toml")).expect("template loads");
    assert_eq!(
        c.context.max_summary_chars,
        ContextConfig::default().max_summary_chars
    );
}

#[test]
fn the_config_template_writes_the_guard_defaults() {
    #[derive(serde::Deserialize)]
    struct Whole {
        #[serde(default)]
        guard: crate::domain::guard::GuardConfig,
    }
    let whole: Whole = toml::from_str(TEMPLATE).expect("template loads");
    assert_eq!(whole.guard, crate::domain::guard::GuardConfig::default());
    assert!(
        whole
            .guard
            .validate::<crate::domain::guard::PatternProblem>()
            .is_empty()
    );
}

/// The keys a config table accepts, read from serde's answer to one it does not.
fn known_keys<T: serde::de::DeserializeOwned>() -> Vec<String> {
    let err = toml::from_str::<T>("not_a_key_of_this_table = 1")
        .err()
        .unwrap();
    let msg = err.message().to_string();
    let list = msg.split_once("expected").unwrap().1;
    list.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

#[test]
fn effective_settings_show_every_key_of_every_table() {
    let c = Config::default();
    let e = c.effective();
    let keys = |v: &serde_json::Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(keys(&e), sorted(known_keys::<Config>()));
    assert_eq!(
        keys(&e["guard"]),
        sorted(known_keys::<crate::domain::guard::GuardConfig>())
    );
    assert_eq!(keys(&e["context"]), sorted(known_keys::<ContextConfig>()));
    let text =
        "[[rules.command]]\nname = \"a\"\npatterns = [\"x\"]\n[[rules.tool]]\nname = \"b\"\n";
    let e = parse(text, Path::new("c.toml")).unwrap().effective();
    assert_eq!(
        keys(&e["rules"]["command"][0]),
        sorted(known_keys::<crate::domain::rules::PatternRule>())
    );
    assert_eq!(
        keys(&e["rules"]["tool"][0]),
        sorted(known_keys::<crate::domain::rules::ToolRule>())
    );
    assert_eq!(
        keys(&e["rules"]),
        sorted(known_keys::<crate::domain::rules::RulesConfig>())
    );
    let text =
        "[[rules.recovery]]\nname = \"a\"\n[[rules.after_edit]]\nname = \"b\"\nadded = [\"x\"]\n";
    let e = parse(text, Path::new("c.toml")).unwrap().effective();
    assert_eq!(
        keys(&e["rules"]["recovery"][0]),
        sorted(known_keys::<crate::domain::rules::RecoveryRule>())
    );
    assert_eq!(
        keys(&e["rules"]["after_edit"][0]),
        sorted(known_keys::<crate::domain::rules::AfterEditRule>())
    );
    assert_eq!(e["rules"]["builtin_recovery"], true);
}

#[test]
fn a_bad_recovery_or_after_edit_rule_is_left_out_alone() {
    let text = r#"
[rules]
builtin_recovery = false

[[rules.recovery]]
name = "lock"
error = "file lock"
message = "wait"

[[rules.recovery]]
name = "broken"
error = 5

[[rules.after_edit]]
name = "what comments"
patterns = ["**/*.rs"]
added = ["// increment"]
severity = "ask"

[[rules.after_edit]]
name = "todo"
added = ["TODO", "("]
severity = "block"
"#;
    let (c, errs) = lenient(text);
    assert!(!c.rules.builtin_recovery);
    let names = |v: Vec<&str>| v.into_iter().map(str::to_string).collect::<Vec<_>>();
    assert_eq!(
        c.rules
            .recovery
            .iter()
            .map(|r| r.name.clone())
            .collect::<Vec<_>>(),
        names(vec!["lock"])
    );
    assert_eq!(
        c.rules
            .after_edit
            .iter()
            .map(|r| r.name.clone())
            .collect::<Vec<_>>(),
        names(vec!["todo"])
    );
    let text_of = |key: &str| {
        errs.iter()
            .find(|e| e.key.as_deref() == Some(key))
            .map_or_else(
                || panic!("no error for {key}: {errs:#?}"),
                |e| (e.line, e.to_string()),
            )
    };
    assert_eq!(text_of("rules.recovery[2].error").0, Some(12));
    assert_eq!(text_of("rules.after_edit[1].severity").0, Some(18));
    let (_, bad_regex) = text_of("rules.after_edit[todo].added[1]");
    assert!(bad_regex.contains("added[1] `(`"), "{bad_regex}");
}

fn lenient(text: &str) -> (Config, Vec<ConfigError>) {
    parse_lenient(text, Path::new("c.toml"), Validation::Full)
}

#[test]
fn unknown_key_is_a_warning_with_line_key_and_suggestion() {
    let text = "[session]\nenabled = true\ntoken_treshold = 5\n";
    let (config, errs) = lenient(text);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].line, Some(3));
    assert_eq!(errs[0].key.as_deref(), Some("session.token_treshold"));
    assert_eq!(errs[0].problem, Problem::UnknownKey);
    assert_eq!(
        errs[0].to_string(),
        "c.toml:3: `session.token_treshold`: unknown key, ignored (did you mean `token_threshold`?)"
    );
    assert!(config.session.enabled);
    assert!(
        parse(text, Path::new("c.toml")).is_err(),
        "strict parse refuses"
    );
}

#[test]
fn an_unknown_key_is_named_with_its_full_path_and_a_suggestion_at_every_level() {
    for (text, key, known) in [
        ("[sesion]\nenabled = true\n", "sesion", "session"),
        (
            "[session.first_time]\ntitel = \"x\"\n",
            "session.first_time.titel",
            "title",
        ),
        ("[roles.coder]\ntxt = \"x\"\n", "roles.coder.txt", "text"),
        (
            "[[rules.command]]\nname = \"a\"\npatterns = [\"a\"]\n[[rules.command]]\nname = \"pub\"\npaterns = [\"npm publish*\"]\n",
            "rules.command[2].paterns",
            "patterns",
        ),
        (
            "[[rules.tool]]\nname = \"t\"\ntol = \"Bash\"\n",
            "rules.tool[1].tol",
            "tool",
        ),
        (
            "[[rules.comand]]\nname = \"x\"\n",
            "rules.comand",
            "command",
        ),
        ("[guard]\ndney = [\"x*\"]\n", "guard.dney", "deny"),
        (
            "[context.filters]\ncoder = [\"a\"]\n[compres]\nenabled = true\n",
            "compres",
            "compress",
        ),
    ] {
        let (_, errs) = lenient(text);
        let e = errs
            .iter()
            .find(|e| e.problem == Problem::UnknownKey)
            .unwrap_or_else(|| panic!("{text:?}: {errs:#?}"));
        assert_eq!(e.key.as_deref(), Some(key), "{text:?}: {errs:#?}");
        assert!(
            e.message.contains(&format!("did you mean `{known}`?")),
            "{text:?}: {e}"
        );
        assert!(e.line.is_some(), "{text:?}: {e}");
    }
}

#[test]
fn a_rule_that_a_mistake_leaves_unable_to_fire_is_a_problem() {
    let text = r#"
[[rules.command]]
name = "pub"
paterns = ["npm publish*"]
severity = "deny"

[[rules.file]]
name = "note"
severity = "warn"

[[rules.after_edit]]
name = "todo"
patterns = ["*.rs"]
"#;
    let (c, errs) = lenient(text);
    assert_eq!(
        c.rules.command.len(),
        1,
        "the rule stays, and matches nothing"
    );
    let of = |key: &str| {
        errs.iter()
            .find(|e| e.key.as_deref() == Some(key))
            .unwrap_or_else(|| panic!("{key}: {errs:#?}"))
    };
    let typo = of("rules.command[1].paterns");
    assert_eq!((typo.problem, typo.may_weaken), (Problem::UnknownKey, true));
    let empty = of("rules.command[1].patterns");
    assert_eq!(empty.problem, Problem::BadValue);
    assert!(empty.may_weaken, "a deny rule that never fires");
    assert!(empty.message.contains("never fires"), "{empty}");
    assert_eq!(empty.line, Some(3));
    let warn = of("rules.file[1].patterns");
    assert!(
        !warn.may_weaken,
        "a warning that never fires refuses nothing"
    );
    assert!(
        !of("rules.after_edit[1].added").may_weaken,
        "warn by default"
    );
    // Only the full validation (doctor, check) looks; the hook path does not pay for it.
    let (_, quick) = parse_lenient(text, Path::new("c.toml"), Validation::Quick);
    assert!(
        quick.iter().all(|e| e.problem == Problem::UnknownKey),
        "{quick:#?}"
    );
}

#[test]
fn a_problem_weakens_safety_when_it_is_in_a_rule_that_refuses_or_in_the_guard() {
    for (text, weakens) in [
        // A severity nagger cannot read: the rule is left out, whatever it meant.
        (
            "[[rules.command]]\nname = \"p\"\npatterns = [\"x\"]\nseverity = \"dney\"\n",
            true,
        ),
        // No severity: block, the default.
        (
            "[[rules.command]]\nname = \"p\"\npatterns = [\"x\"]\ncolour = 1\n",
            true,
        ),
        (
            "[[rules.tool]]\nname = \"p\"\ntool = \"(\"\nseverity = \"ask\"\n",
            true,
        ),
        (
            "[[rules.file]]\nname = \"p\"\npatterns = [\"[\"]\nseverity = \"deny\"\n",
            true,
        ),
        ("[guard]\ndeny = [\"[\"]\n", true),
        ("[guard]\nallow = 3\n", true),
        ("[rules]\nbogus = 1\n", true),
        (
            "[[rules.command]]\nname = \"p\"\npatterns = [\"x\"]\nseverity = \"warn\"\ncolour = 1\n",
            false,
        ),
        ("[[rules.recovery]]\nname = \"p\"\nerror = \"(\"\n", false),
        (
            "[[rules.after_edit]]\nname = \"p\"\nadded = [\"(\"]\n",
            false,
        ),
        (
            "[[rules.after_edit]]\nname = \"p\"\nadded = [\"(\"]\nseverity = \"block\"\n",
            true,
        ),
        ("[context]\nttl_hour = 1\n", false),
        ("[session]\nenabled = 3\n", false),
        ("[session\nenabled = true\n", true),
    ] {
        let (_, errs) = lenient(text);
        assert!(!errs.is_empty(), "{text:?}");
        assert_eq!(
            errs.iter().any(|e| e.may_weaken),
            weakens,
            "{text:?}: {errs:#?}"
        );
    }
}

#[test]
fn a_typo_keeps_every_other_section_and_rule() {
    let text = r#"
[context]
ttl_hour = 1
max_entry_chars = 99

[[rules.command]]
name = "no push"
patterns = ["git push*"]
severity = "deny"

[guard]
deny = ["terraform destroy*"]
"#;
    let (c, errs) = lenient(text);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].line, Some(3));
    assert!(
        errs[0].message.contains("did you mean `ttl_hours`"),
        "{}",
        errs[0]
    );
    assert_eq!(c.context.max_entry_chars, 99);
    assert_eq!(c.context.ttl_hours, ContextConfig::default().ttl_hours);
    assert_eq!(c.rules.command.len(), 1);
    assert_eq!(
        c.rules.command[0].severity,
        crate::domain::rules::Severity::Deny
    );
    assert_eq!(c.guard.deny, vec!["terraform destroy*".to_string()]);
}

#[test]
fn wrong_type_keeps_the_default_and_says_so_in_words() {
    let text = "[context]\nmax_summary_chars = \"big\"\nmax_entry_chars = 7\n";
    let (c, errs) = lenient(text);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].line, Some(2));
    assert_eq!(errs[0].key.as_deref(), Some("context.max_summary_chars"));
    assert_eq!(
        errs[0].message,
        "must be a whole number, 0 or more, not the text \"big\"; the default applies"
    );
    assert_eq!(c.context.max_entry_chars, 7);
    assert_eq!(c.context.max_summary_chars, 4000);
    for (text, words) in [
        ("[session]\nenabled = 1\n", "true or false"),
        (
            "[session]\ndelivery = \"Deny\"\n",
            "one of \"deny\", \"context\"",
        ),
        ("[guard]\ndeny = \"rm *\"\n", "a list of strings"),
        ("[compress]\nmarker = 3\n", "text (in quotes)"),
        ("session = 3\n", "a table"),
    ] {
        let (_, errs) = lenient(text);
        assert!(errs[0].message.contains(words), "{text:?}: {}", errs[0]);
        for rust in ["u64", "usize", "bool", "sequence", "struct", "variant"] {
            assert!(!errs[0].message.contains(rust), "{text:?}: {}", errs[0]);
        }
    }
}

#[test]
fn a_bad_rule_is_left_out_alone() {
    let text = r#"
[[rules.command]]
name = "push"
patterns = ["git push*"]
severity = "nope"

[[rules.command]]
name = "rm"
patterns = ["rm *", 3]
severity = "deny"
colour = "red"

[guard]
deny = ["a*", 5, "b*"]
"#;
    let (c, errs) = lenient(text);
    assert_eq!(c.rules.command.len(), 1, "{errs:#?}");
    assert_eq!(c.rules.command[0].name, "rm");
    assert_eq!(c.rules.command[0].patterns, vec!["rm *".to_string()]);
    assert_eq!(c.guard.deny, vec!["a*".to_string(), "b*".to_string()]);
    let text_of = |key: &str| {
        errs.iter()
            .find(|e| e.key.as_deref() == Some(key))
            .map_or_else(
                || panic!("{key}: {errs:#?}"),
                |e| (e.line, e.message.clone()),
            )
    };
    assert_eq!(text_of("rules.command[1].severity").0, Some(5));
    assert!(
        text_of("rules.command[1]")
            .1
            .contains("rule 1 (\"push\") is left out")
    );
    assert_eq!(text_of("rules.command[2].patterns[2]").0, Some(9));
    assert_eq!(text_of("rules.command[2].colour").0, Some(11));
    assert_eq!(text_of("guard.deny[2]").0, Some(14));
}

#[test]
fn nameless_and_duplicate_rules_stay_in_force_under_their_position() {
    let text = r#"
[[rules.command]]
patterns = ["a*"]
severity = "deny"
[[rules.command]]
name = "x"
patterns = ["b*"]
[[rules.command]]
name = "x"
patterns = ["c*"]
severity = "deny"
"#;
    let (c, errs) = lenient(text);
    let names: Vec<&str> = c.rules.command.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["rules.command #1", "x", "x #3"]);
    assert_eq!(errs.len(), 2, "{errs:#?}");
    assert_eq!(errs[1].line, Some(9));
    assert!(crate::domain::rules::RuleSet::compile(&c.rules, &c.guard).is_ok());
}

#[test]
fn bad_patterns_are_named_and_never_switch_the_rest_off() {
    let text = "[guard]\ndeny = [\"a[\", \"b*\"]\n";
    let (c, errs) = lenient(text);
    assert_eq!(c.guard.deny.len(), 2);
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].problem, Problem::BadPattern);
    assert_eq!(errs[0].line, Some(2));
    let (_, quick) = parse_lenient(text, Path::new("c.toml"), Validation::Quick);
    assert!(
        quick.is_empty(),
        "the hook compiles patterns when first used"
    );
}

#[test]
fn broken_toml_keeps_what_can_be_read() {
    let text = "[guard]\ndeny = [\"x*\"]\n\n[context]\nttl_hours = = 3\n";
    let (c, errs) = lenient(text);
    assert_eq!(c.guard.deny, vec!["x*".to_string()]);
    assert!(
        errs.iter()
            .any(|e| e.problem == Problem::Unreadable && e.line == Some(5)),
        "{errs:#?}"
    );
}

#[test]
fn out_of_range_values_go_back_to_their_default() {
    let (c, errs) = lenient("[context]\nmax_summary_chars = 0\n");
    assert_eq!(c.context.max_summary_chars, 4000);
    assert_eq!(errs[0].line, Some(2));
}

#[test]
fn missing_file_gives_defaults_and_says_absent() {
    let l = LoadedConfig::load(Path::new("/nonexistent/nagger/config.toml"));
    assert!(!l.present);
    assert!(l.errors.is_empty());
    assert!(l.config.guard.enabled);
}

#[test]
fn role_conventions_resolve_role_then_type_then_default() {
    let c = parse(EXAMPLE, Path::new("c.toml")).unwrap();
    assert_eq!(
        c.role_conventions(Some("coder"), "general").unwrap().0,
        "coder"
    );
    assert_eq!(c.role_conventions(None, "coder").unwrap().0, "coder");
    assert_eq!(
        c.role_conventions(Some("tester"), "qa").unwrap().0,
        "default"
    );
    assert!(
        c.role_conventions(None, "Explore").is_none(),
        "disabled type is never nagged"
    );
}

#[test]
fn config_text_is_shown_without_what_a_terminal_would_act_on() {
    use super::printable;
    // Plain text, any script, is itself (and not copied).
    for plain in ["rm -rf ./target", "café 中文 ✓", "a\\tb"] {
        assert!(
            matches!(printable(plain), std::borrow::Cow::Borrowed(_)),
            "{plain}"
        );
    }
    // Escape sequences, carriage returns, newlines, bidi and zero-width marks are
    // written as escapes: nothing in the result moves the cursor, erases, hides or
    // reorders what follows.
    let shown = printable("make\u{1b}[2K\r\u{1b}[1A\n\u{202e}txt\u{200b}\u{7f}");
    assert_eq!(
        shown,
        "make\\u{1b}[2K\\r\\u{1b}[1A\\n\\u{202e}txt\\u{200b}\\u{7f}"
    );
    // A problem's key and message are shown the same way.
    let (_, errors) = super::parse_lenient(
        "[guard]\n\"x\\u001b[8m\" = 1\n",
        std::path::Path::new("config.toml"),
        super::Validation::Quick,
    );
    let said = errors[0].to_string();
    assert!(!said.contains('\u{1b}'), "{said}");
    assert!(said.contains("x\\u{1b}[8m"), "{said}");
}
