use super::projection::covers;
use super::*;
use crate::domain::config::Config;
use crate::domain::guard::GuardConfig;
use crate::domain::rules::{PatternRule, RulesConfig, Severity, ToolRule};
use proptest::prelude::*;

fn rule(name: &str, pattern: &str, severity: Severity) -> PatternRule {
    PatternRule {
        name: name.into(),
        patterns: vec![pattern.into()],
        severity,
        message: format!("no {pattern}"),
        ..Default::default()
    }
}

fn projection(guard: &GuardConfig, commands: Vec<PatternRule>) -> Projection {
    Projection::of(
        guard,
        &RulesConfig {
            command: commands,
            ..Default::default()
        },
    )
}

#[test]
fn each_kind_of_weakening_is_named() {
    let trusted = projection(
        &GuardConfig {
            deny: vec!["terraform destroy*".into()],
            ..Default::default()
        },
        vec![rule("tf", "terraform *", Severity::Deny)],
    );
    let mut guard = GuardConfig {
        enabled: false,
        allow: vec!["rm *".into()],
        shell_tools: vec![],
        ..Default::default()
    };
    guard.secrets.retain(|s| s != ".env");
    guard.secrets.push("!id_rsa".into());
    let current = projection(&guard, vec![rule("tf", "terraform *", Severity::Warn)]);
    let said: Vec<String> = current
        .weakenings(&trusted)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        said,
        vec![
            "guard off",
            "`[guard] deny` loses `terraform destroy*`",
            "`[guard] allow` gains `rm *`",
            "`[guard] secrets` loses `.env`",
            "`[guard] secrets` gains the exemption `!id_rsa`",
            "`[guard] shell_tools` loses `Bash`",
            "rule `rules.command` \"tf\" removed or weakened",
        ]
    );
}

#[test]
fn strengthening_is_no_weakening_and_the_order_of_lists_does_not_matter() {
    let trusted = projection(
        &GuardConfig::default(),
        vec![rule("tf", "terraform *", Severity::Block)],
    );
    let mut guard = GuardConfig::default();
    guard.secrets.reverse();
    guard.deny.push("make clean".into());
    let current = projection(
        &guard,
        vec![
            rule("tf", "terraform *", Severity::Deny),
            rule("push", "git push*", Severity::Block),
        ],
    );
    assert!(current.weakenings(&trusted).is_empty());
    assert!(!trusted.weakenings(&current).is_empty());
    let combined = current.combine(&trusted);
    assert!(combined.same(&current), "{combined:?}");
    let reordered = projection(&GuardConfig::default(), vec![]);
    let mut guard = GuardConfig::default();
    guard.secrets.reverse();
    assert_eq!(reordered.digest(), projection(&guard, vec![]).digest());
    assert!(covers(
        &rule("tf", "terraform *", Severity::Deny),
        &rule("tf", "terraform *", Severity::Block)
    ));
}

#[test]
fn warn_rules_are_not_part_of_it() {
    let p = projection(
        &GuardConfig::default(),
        vec![rule("push", "git push*", Severity::Warn)],
    );
    assert!(p.same(&Projection::defaults()));
}

/// Every severity that stops a call or puts it before the user, and which of them keeps
/// what another does: removing or softening one of them lets a call through that was not.
#[test]
fn a_rule_that_asks_or_refuses_is_kept_and_only_deny_keeps_the_others() {
    use Severity::{Ask, Block, Deny, Warn};
    let one = |severity| {
        projection(
            &GuardConfig::default(),
            vec![rule("push", "git push*", severity)],
        )
    };
    let none = projection(&GuardConfig::default(), vec![]);
    for trusted in [Ask, Block, Deny] {
        assert_eq!(
            none.weakenings(&one(trusted)).len(),
            1,
            "removing a {trusted:?} rule"
        );
        for current in [Warn, Ask, Block, Deny] {
            let weaker = !one(current).weakenings(&one(trusted)).is_empty();
            let keeps = current == trusted || current == Deny;
            assert_eq!(weaker, !keeps, "{trusted:?} changed to {current:?}");
            // Whatever the change, the combination keeps the trusted rule.
            let combined = one(current).combine(&one(trusted));
            assert!(combined.weakenings(&one(trusted)).is_empty());
        }
    }
    // An ask rule comes back beside the block rule that took its name.
    let mut config = Config::default();
    config.rules.command = vec![rule("push", "git push*", Block)];
    apply(&mut config, &one(Ask));
    let kept: Vec<(&str, Severity)> = config
        .rules
        .command
        .iter()
        .map(|r| (r.name.as_str(), r.severity))
        .collect();
    assert_eq!(kept, vec![("push", Block), ("push (trusted)", Ask)]);
}

#[test]
fn apply_raises_the_config_and_keeps_a_clashing_rule_under_its_own_name() {
    let trusted = projection(
        &GuardConfig {
            deny: vec!["terraform destroy*".into()],
            ..Default::default()
        },
        vec![rule("tf", "terraform *", Severity::Deny)],
    );
    let mut config = Config::default();
    config.guard.enabled = false;
    config.guard.allow = vec!["rm *".into()];
    config.guard.shell_tools.clear();
    config.rules.command = vec![rule("tf", "terraform *", Severity::Warn)];
    apply(&mut config, &trusted);
    assert!(config.guard.enabled);
    assert!(config.guard.allow.is_empty());
    assert_eq!(config.guard.deny, vec!["terraform destroy*"]);
    assert_eq!(config.guard.shell_tools, vec!["Bash"]);
    let names: Vec<&str> = config
        .rules
        .command
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(names, vec!["tf", "tf (trusted)"]);
    assert!(
        Projection::of(&config.guard, &config.rules)
            .weakenings(&trusted)
            .iter()
            .all(|w| matches!(w, Weakening::RuleRemoved(..))),
        "only the renamed rule differs"
    );
}

#[test]
fn the_snapshot_round_trips_and_a_hook_run_ratchets_it_up() {
    let dir = tempfile::tempdir().unwrap();
    let config_path = dir.path().join("config.toml");
    let snap = snapshot_path(&config_path);
    let mut rules = RulesConfig::default();
    rules.tool.push(ToolRule {
        name: "tickets".into(),
        tool: "mcp__x__.*".into(),
        input: [("status".to_owned(), "^closed$".to_owned())].into(),
        severity: Severity::Block,
        token_threshold: Some(5),
        ..Default::default()
    });
    rules
        .command
        .push(rule("tf", "terraform *", Severity::Deny));
    let strong = Projection::of(&GuardConfig::default(), &rules);
    write(&snap, &strong).unwrap();
    let (read, state) = trusted(&snap);
    assert_eq!(state, SnapshotState::Present);
    assert!(read.same(&strong), "{read:?}");

    // The config drops the rule: held back, and the snapshot stays.
    let before = std::fs::read(&snap).unwrap();
    let mut config = Config::default();
    config.rules.tool = rules.tool.clone();
    let report = settle(&mut config, &config_path, Ratchet::Write);
    assert_eq!(report.held_back.len(), 1, "{report:?}");
    assert_eq!(
        config.rules.command.len(),
        1,
        "the trusted rule is in force"
    );
    assert!(report.pending_line().unwrap().contains("nagger trust"));
    assert_eq!(std::fs::read(&snap).unwrap(), before);

    // A config that adds a rule raises the snapshot.
    let mut config = Config {
        rules: rules.clone(),
        ..Default::default()
    };
    config
        .rules
        .file
        .push(rule("keys", "**/*.pem", Severity::Deny));
    let report = settle(&mut config, &config_path, Ratchet::Write);
    assert!(report.held_back.is_empty());
    let (read, _) = trusted(&snap);
    assert_eq!(read.file.len(), 1);
    // And the next run reads only the digest.
    let mut again = config.clone();
    let report = settle(&mut again, &config_path, Ratchet::Write);
    assert!(report.held_back.is_empty() && report.write_error.is_none());

    // An unreadable snapshot is the defaults, and left alone.
    std::fs::write(&snap, "not { json").unwrap();
    let mut off = Config::default();
    off.guard.enabled = false;
    let report = settle(&mut off, &config_path, Ratchet::Write);
    assert!(matches!(report.snapshot, SnapshotState::Unreadable(_)));
    assert!(off.guard.enabled);
    assert_eq!(std::fs::read_to_string(&snap).unwrap(), "not { json");
}

#[test]
fn without_a_snapshot_the_defaults_are_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let config_path = dir.path().join("config.toml");
    let mut config = Config::default();
    config.guard.enabled = false;
    config.guard.secrets.clear();
    let report = settle(&mut config, &config_path, Ratchet::Write);
    assert_eq!(report.snapshot, SnapshotState::Missing);
    assert!(config.guard.enabled);
    let mut secrets = config.guard.secrets.clone();
    secrets.sort();
    let mut defaults = GuardConfig::default().secrets;
    defaults.sort();
    assert_eq!(secrets, defaults);
    assert!(
        !snapshot_path(&config_path).exists(),
        "nothing stronger to keep"
    );
    let mut plain = Config::default();
    let report = settle(&mut plain, &config_path, Ratchet::Write);
    assert!(report.held_back.is_empty());
    assert!(!snapshot_path(&config_path).exists());
}

fn arb_projection() -> impl Strategy<Value = Projection> {
    let names = prop::collection::btree_set("[a-c]", 0..3);
    let severity = prop::sample::select(vec![Severity::Ask, Severity::Block, Severity::Deny]);
    let rules = prop::collection::vec(("[a-c]", "[xy]", severity), 0..3);
    (
        prop::bool::ANY,
        names.clone(),
        names.clone(),
        names.clone(),
        names,
        rules,
    )
        .prop_map(|(enabled, deny, allow, secrets, tools, rules)| {
            let guard = GuardConfig {
                enabled,
                deny: deny.into_iter().collect(),
                allow: allow.into_iter().collect(),
                secrets: secrets
                    .into_iter()
                    .map(|s| if s == "a" { "!a".into() } else { s })
                    .collect(),
                shell_tools: tools.into_iter().collect(),
                binary: None,
            };
            let commands = rules
                .into_iter()
                .map(|(n, p, severity)| rule(&n, &p, severity))
                .collect();
            projection(&guard, commands)
        })
}

proptest! {
    #[test]
    fn the_combination_is_never_weaker_than_either(a in arb_projection(), b in arb_projection()) {
        let c = a.combine(&b);
        prop_assert!(c.weakenings(&a).is_empty(), "{:?}", c.weakenings(&a));
        prop_assert!(c.weakenings(&b).is_empty(), "{:?}", c.weakenings(&b));
        prop_assert!(c.same(&b.combine(&a)));
        prop_assert!(c.combine(&a).same(&c));
    }

    #[test]
    fn applying_a_snapshot_leaves_nothing_weaker_than_it(a in arb_projection(), b in arb_projection()) {
        let mut config = Config {
            guard: GuardConfig {
            enabled: a.enabled,
            deny: a.deny.iter().cloned().collect(),
            allow: a.allow.iter().cloned().collect(),
            secrets: a.secrets.iter().chain(&a.secret_exemptions).cloned().collect(),
            shell_tools: a.shell_tools.iter().cloned().collect(),
            binary: None,
            },
            ..Default::default()
        };
        config.rules.command = a.command.clone();
        apply(&mut config, &b);
        let effective = Projection::of(&config.guard, &config.rules);
        // Renamed rules count as the same rule here: compare everything but names.
        let unnamed = |p: &Projection| {
            let mut p = p.clone();
            for r in &mut p.command { r.name.clear(); }
            p
        };
        prop_assert!(unnamed(&effective).weakenings(&unnamed(&b)).is_empty());
        prop_assert!(unnamed(&effective).weakenings(&unnamed(&a)).is_empty());
    }
}

proptest! {
    #[test]
    fn the_digest_of_a_config_is_that_of_its_projection(a in arb_projection(), b in arb_projection()) {
        for p in [&a, &a.combine(&b)] {
            let guard = GuardConfig {
                enabled: p.enabled,
                deny: p.deny.iter().rev().cloned().collect(),
                allow: p.allow.iter().cloned().collect(),
                secrets: p.secret_exemptions.iter().chain(&p.secrets).cloned().collect(),
                shell_tools: p.shell_tools.iter().cloned().collect(),
                binary: None,
            };
            let rules = RulesConfig { command: p.command.iter().rev().cloned().collect(), ..Default::default() };
            prop_assert_eq!(Projection::digest_of(&guard, &rules), p.digest());
        }
    }
}

/// A config may add entries until the settings in force are larger than a snapshot
/// nagger reads back; the snapshot is then left as it was, never written unreadable, so
/// what the user trusted stays in force when the additions are taken out again.
#[test]
fn additions_never_grow_the_snapshot_past_what_nagger_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let config_path = dir.path().join("config.toml");
    let snap = snapshot_path(&config_path);
    let mut config = Config::default();
    config
        .rules
        .command
        .push(rule("tf", "terraform *", Severity::Deny));
    let report = settle(&mut config.clone(), &config_path, Ratchet::Write);
    assert!(report.write_error.is_none(), "{report:?}");
    let before = std::fs::read(&snap).unwrap();

    // Entries short in TOML, longer in the snapshot: the config stays under its own
    // limit, the settings in force do not fit a snapshot.
    let many: Vec<String> = (0..90_000).map(|i| format!("z{i}")).collect();
    let toml_size: u64 = many.iter().map(|e| e.len() as u64 + 3).sum();
    assert!(toml_size < crate::domain::config::MAX_CONFIG_BYTES);
    let mut grown = config.clone();
    grown.guard.deny = many;
    let report = settle(&mut grown, &config_path, Ratchet::Write);
    assert!(report.held_back.is_empty(), "{report:?}");
    assert!(report.write_error.is_some(), "{report:?}");
    assert_eq!(std::fs::read(&snap).unwrap(), before, "left as it was");
    let (read, state) = trusted(&snap);
    assert_eq!(state, SnapshotState::Present);
    assert_eq!(read.command.len(), 1);

    // The additions and the user's rule taken out: the rule stays in force.
    let mut emptied = Config::default();
    let report = settle(&mut emptied, &config_path, Ratchet::Write);
    assert_eq!(report.held_back.len(), 1, "{report:?}");
    assert_eq!(emptied.rules.command.len(), 1);
}

#[test]
fn a_weakening_shows_what_the_config_says_as_text() {
    let trusted = projection(&GuardConfig::default(), vec![]);
    let guard = GuardConfig {
        allow: vec!["make test\u{1b}[2K\r\u{1b}[1A".into()],
        ..Default::default()
    };
    let said: Vec<String> = projection(&guard, vec![])
        .weakenings(&trusted)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        said,
        vec!["`[guard] allow` gains `make test\\u{1b}[2K\\r\\u{1b}[1A`"]
    );
}

#[test]
fn a_snapshot_weaker_than_the_defaults_counts_only_with_a_copy_of_a_confirmation() {
    let dir = tempfile::tempdir().unwrap();
    let config_path = dir.path().join("config.toml");
    let mut weak = Config::default();
    weak.guard.enabled = false;
    // Written as a hook would, without the copy a confirmation leaves outside the project.
    super::snapshot::write(&snapshot_path(&config_path), &Projection::of_config(&weak)).unwrap();
    let mut config = weak.clone();
    let report = settle(&mut config, &config_path, Ratchet::Write);
    assert!(config.guard.enabled, "the built-in defaults stay in force");
    assert!(report.held_back.contains(&Weakening::GuardOff));
    assert!(report.copy.is_none());
    assert!(!report.copy_keeps.is_empty(), "doctor is told why");
}

#[test]
fn what_trusted_rules_fall_back_on_is_trusted_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let config_path = dir.path().join("config.toml");
    let mut trusted = Config::default();
    let mut ask = rule("push", "git push*", Severity::Ask);
    ask.scope = vec!["worker".into()];
    trusted.rules.command.push(ask);
    trusted
        .role_resolution
        .aliases
        .insert("general-purpose".into(), "worker".into());
    super::snapshot::write(
        &snapshot_path(&config_path),
        &Projection::of_config(&trusted),
    )
    .unwrap();
    // What every hook run computes is the digest of the projection; a config without such
    // rules has the digest of its `[guard]` and `[rules]` alone.
    for config in [&trusted, &Config::default()] {
        assert_eq!(
            Projection::digest_of_config(config),
            Projection::of_config(config).digest()
        );
    }
    assert_eq!(
        Projection::digest_of_config(&Config::default()),
        Projection::digest_of(&Config::default().guard, &Config::default().rules)
    );
    // The session's threshold raised: the ask rule, which has none of its own, would
    // speak less often.
    let mut config = trusted.clone();
    config.session.token_threshold = u64::MAX;
    let report = settle(&mut config, &config_path, Ratchet::Write);
    assert!(matches!(
        report.held_back.as_slice(),
        [Weakening::ThresholdRaised(50_000, u64::MAX)]
    ));
    assert_eq!(config.session.token_threshold, 50_000);
    // The alias that makes `general-purpose` a worker removed: the rule reaches fewer.
    let mut config = trusted.clone();
    config.role_resolution.aliases.clear();
    let report = settle(&mut config, &config_path, Ratchet::Write);
    assert!(report.held_back.contains(&Weakening::RolesChanged));
    assert_eq!(config.role_resolution, trusted.role_resolution);
    // Lowering the threshold, or roles without a scoped rule, weakens nothing.
    let mut lower = trusted.clone();
    lower.session.token_threshold = 1_000;
    assert!(
        Projection::of_config(&lower)
            .weakenings(&Projection::of_config(&trusted))
            .is_empty()
    );
    let mut unscoped = Config::default();
    unscoped
        .rules
        .command
        .push(rule("push", "git push*", Severity::Ask));
    let mut changed = unscoped.clone();
    changed
        .role_resolution
        .aliases
        .insert("x".into(), "y".into());
    assert!(
        Projection::of_config(&changed)
            .weakenings(&Projection::of_config(&unscoped))
            .is_empty()
    );
}

/// A rule that stops every call the trusted one stops, and more, is no weakening: more
/// patterns, a pattern that takes in the old one, fewer exclusions, more roles or all of
/// them, another name or message. Fewer patterns, more exclusions or fewer roles are.
#[test]
fn a_rule_that_reaches_further_is_no_weakening_and_one_that_reaches_less_is() {
    let with = |edit: &dyn Fn(&mut PatternRule)| {
        let mut r = rule("nopush", "git push*", Severity::Deny);
        r.exclude = vec!["git push --dry-run*".into()];
        r.scope = vec!["coder".into()];
        edit(&mut r);
        projection(&GuardConfig::default(), vec![r])
    };
    let trusted = with(&|_| {});
    type Edit<'a> = (&'a str, &'a dyn Fn(&mut PatternRule));
    let further: [Edit; 7] = [
        ("a pattern added", &|r| {
            r.patterns.push("echo forbidden*".into());
        }),
        ("a wider pattern", &|r| {
            r.patterns = vec!["git pus*".into()];
        }),
        ("no exclusion", &|r| {
            r.exclude.clear();
        }),
        ("every role", &|r| {
            r.scope.clear();
        }),
        ("one more role", &|r| {
            r.scope.push("leader".into());
        }),
        ("another name", &|r| {
            r.name = "no-push".into();
        }),
        ("another message", &|r| {
            r.message = "ask first".into();
        }),
    ];
    for (what, edit) in further {
        let current = with(edit);
        assert!(current.weakenings(&trusted).is_empty(), "{what}");
        let combined = current.combine(&trusted);
        assert!(combined.weakenings(&trusted).is_empty(), "{what}");
        assert!(combined.weakenings(&current).is_empty(), "{what}");
    }
    let less: [Edit; 7] = [
        ("a narrower pattern", &|r| {
            r.patterns = vec!["git pushx*".into()];
        }),
        ("another pattern", &|r| {
            r.patterns = vec!["git push".into()];
        }),
        ("a pattern across folders", &|r| {
            r.patterns = vec!["git pus*".into()];
        }),
        ("an exclusion added", &|r| {
            r.exclude.push("git push origin*".into());
        }),
        ("another role", &|r| {
            r.scope = vec!["leader".into()];
        }),
        ("a glob prefix", &|r| {
            r.patterns = vec!["git p[u]sh*".into()];
        }),
        ("a softer severity", &|r| {
            r.severity = Severity::Ask;
        }),
    ];
    for (i, (what, edit)) in less.into_iter().enumerate() {
        // The one pattern across folders is weighed against a trusted one on paths.
        let trusted = if i == 2 {
            with(&|r| r.patterns = vec!["git pus/h*".into()])
        } else {
            trusted.clone()
        };
        assert_eq!(with(edit).weakenings(&trusted).len(), 1, "{what}");
    }
    // Two rules that cover each other are kept once, not dropped both.
    let a = rule("a", "make deploy*", Severity::Deny);
    let b = rule("b", "make deploy*", Severity::Deny);
    let both = projection(&GuardConfig::default(), vec![a])
        .combine(&projection(&GuardConfig::default(), vec![b]));
    assert_eq!(both.command.len(), 1, "{both:?}");
}
