//! Rule evaluation as the PreToolUse hook does it: 200 configured rules, one Bash or Edit
//! call. "hook" variants compile the rule set for every call, as each hook process must;
//! "warm" variants reuse one; "parse" measures the shell tokeniser alone.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use nagger::base::mode::PermissionMode;
use nagger::domain::guard::{GuardConfig, shell};
use nagger::domain::rules::{
    CommandRule, FileRule, MatchContext, RuleSet, RulesConfig, Severity, ToolCall, ToolRule,
    combine,
};
use serde_json::json;

/// 100 file rules, 80 command rules, 20 tool rules, a guard with allow and deny lists.
fn config() -> (RulesConfig, GuardConfig) {
    let file = (0..100)
        .map(|i| FileRule {
            name: format!("file-{i}"),
            patterns: vec![match i % 4 {
                0 => format!("**/app/views{i}/**/*.erb"),
                1 => format!("src/module{i}/**"),
                2 => format!("**/*.ext{i}"),
                _ => format!("docs/{i}/*.md"),
            }],
            exclude: vec!["**/vendor/**".into()],
            severity: Severity::Block,
            token_threshold: Some(30_000),
            message: format!("Rule {i}."),
            ..Default::default()
        })
        .collect();
    let command = (0..80)
        .map(|i| CommandRule {
            name: format!("command-{i}"),
            patterns: vec![if i % 2 == 0 {
                format!("tool{i} deploy*")
            } else {
                format!("*secret{i}*")
            }],
            severity: Severity::Ask,
            message: format!("Command rule {i}."),
            ..Default::default()
        })
        .collect();
    let tool = (0..20)
        .map(|i| ToolRule {
            name: format!("tool-{i}"),
            tool: format!("mcp__server{i}__.*"),
            input: [("status".to_owned(), "^closed$".to_owned())].into(),
            severity: Severity::Warn,
            message: format!("Tool rule {i}."),
            ..Default::default()
        })
        .collect();
    let guard = GuardConfig {
        enabled: true,
        allow: vec!["rm -rf ./target".into()],
        deny: vec!["terraform destroy*".into(), "kubectl delete*".into()],
        ..GuardConfig::default()
    };
    (
        RulesConfig {
            file,
            command,
            tool,
            ..Default::default()
        },
        guard,
    )
}

fn rules(c: &mut Criterion) {
    let (rules, guard) = config();
    let ctx = MatchContext {
        project_root: Path::new("/work/proj"),
        cwd: None,
        is_leader: true,
        role: None,
        agent_type: None,
    };
    let bash = json!({"command": "cd /work/proj && cargo test --all 2>&1 | tail -n 20 && git push origin main"});
    let edit = json!({"file_path": "/work/proj/app/views8/users/show.erb", "old_string": "a", "new_string": "b"});
    let rm = json!({"command": "sudo bash -c 'rm -rf /'"});
    let ls = json!({"command": "ls"});
    let calls = [
        ("ls", "Bash", &ls),
        ("bash", "Bash", &bash),
        ("edit", "Edit", &edit),
        ("guard-deny", "Bash", &rm),
    ];

    let mut group = c.benchmark_group("rules");
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("compile", |b| {
        b.iter(|| RuleSet::compile(black_box(&rules), &guard).expect("valid rules"));
    });
    for (label, tool_name, input) in calls {
        let call = ToolCall {
            tool_name,
            tool_input: input,
        };
        group.bench_function(format!("hook/{label}"), |b| {
            b.iter(|| {
                let set = RuleSet::compile(black_box(&rules), &guard).expect("valid rules");
                let matches = set.evaluate(black_box(&call), &ctx);
                combine(&matches, &PermissionMode::Default)
            });
        });
        let set = RuleSet::compile(&rules, &guard).expect("valid rules");
        group.bench_function(format!("warm/{label}"), |b| {
            b.iter(|| set.evaluate(black_box(&call), &ctx));
        });
    }

    let line = r#"FOO=1 sudo -u ci env -i PATH=/bin bash -c "make -j4 && ./run.sh | tee log; echo $(date +%s) \`whoami\`" 2>/dev/null || { echo failed >&2; exit 1; }"#;
    group.bench_function("parse/complex-line", |b| {
        b.iter(|| shell::parse(black_box(line)));
    });
    let nested = format!("echo {}x{}", "$(echo ".repeat(64), ")".repeat(64));
    group.bench_function("parse/nested-64", |b| {
        b.iter(|| shell::parse(black_box(&nested)));
    });
    let script = "cd sub && make test | grep -v ok; git status --short\n".repeat(200);
    group.bench_function("parse/400-commands", |b| {
        b.iter(|| shell::parse(black_box(&script)));
    });
    group.finish();
}

criterion_group!(benches, rules);
criterion_main!(benches);
