//! The safety projection of a config: the part of `[guard]` and of the deny, block and ask
//! rules that keeps agents from doing harm, compared element by element ("stronger",
//! "weaker") and combined into the stronger of two.

use std::collections::BTreeSet;
use std::fmt;

use sha2::{Digest as _, Sha256};

use crate::domain::config::{Config, RoleResolution, printable};
use crate::domain::guard::GuardConfig;
use crate::domain::rules::{PatternRule, RulesConfig, Severity, ToolRule};

/// What of a config decides safety. Sets are sets: the order of a list in the config
/// does not change its meaning here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Projection {
    /// `[guard] enabled`.
    pub enabled: bool,
    /// `[guard] deny`.
    pub deny: BTreeSet<String>,
    /// `[guard] allow`: exemptions, so fewer is stronger.
    pub allow: BTreeSet<String>,
    /// `[guard] secrets` that protect a path.
    pub secrets: BTreeSet<String>,
    /// `[guard] secrets` that start with `!` (kept with it): exemptions, fewer is stronger.
    pub secret_exemptions: BTreeSet<String>,
    /// `[guard] shell_tools`.
    pub shell_tools: BTreeSet<String>,
    /// The deny, block and ask rules of each kind, whole.
    pub file: Vec<PatternRule>,
    pub command: Vec<PatternRule>,
    pub tool: Vec<ToolRule>,
    /// `[session] token_threshold`, which block and ask rules without a threshold of
    /// their own fall back on (`None`: no opinion, the built-in defaults).
    pub threshold: Option<u64>,
    /// `[role_resolution]`, which decides which agents a scoped rule reaches (`None`:
    /// no opinion).
    pub roles: Option<RoleResolution>,
}

/// One way a config is weaker than the settings it is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Weakening {
    GuardOff,
    DenyRemoved(String),
    AllowAdded(String),
    SecretRemoved(String),
    SecretExemptionAdded(String),
    ShellToolRemoved(String),
    /// A deny, block or ask rule removed or narrowed: its table and name.
    RuleRemoved(&'static str, String),
    /// `[session] token_threshold` raised (from, to) while block or ask rules fall back
    /// on it: they speak less often.
    ThresholdRaised(u64, u64),
    /// `[role_resolution]` changed while rules are scoped to roles: they may reach other
    /// agents.
    RolesChanged,
}

impl fmt::Display for Weakening {
    /// What the config says is shown with [`printable`]: an entry whose escape sequences
    /// erase or hide the lines around it cannot disguise what the user is asked to trust.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Weakening::GuardOff => write!(f, "guard off"),
            Weakening::DenyRemoved(p) => write!(f, "`[guard] deny` loses `{}`", printable(p)),
            Weakening::AllowAdded(p) => write!(f, "`[guard] allow` gains `{}`", printable(p)),
            Weakening::SecretRemoved(p) => {
                write!(f, "`[guard] secrets` loses `{}`", printable(p))
            }
            Weakening::SecretExemptionAdded(p) => {
                write!(
                    f,
                    "`[guard] secrets` gains the exemption `{}`",
                    printable(p)
                )
            }
            Weakening::ShellToolRemoved(t) => {
                write!(f, "`[guard] shell_tools` loses `{}`", printable(t))
            }
            Weakening::RuleRemoved(table, name) => {
                write!(
                    f,
                    "rule `{table}` \"{}\" removed or weakened",
                    printable(name)
                )
            }
            Weakening::ThresholdRaised(from, to) => write!(
                f,
                "`[session] token_threshold` raised from {from} to {to}, which block and ask rules fall back on"
            ),
            Weakening::RolesChanged => write!(
                f,
                "`[role_resolution]` changed, which decides which agents rules scoped to roles reach"
            ),
        }
    }
}

/// The severities a rule must have to be part of the projection: every one that stops a
/// call or puts it before the user. A `warn` rule lets the call through either way.
fn guards(severity: Severity) -> bool {
    matches!(severity, Severity::Deny | Severity::Block | Severity::Ask)
}

/// Whether a rule of severity `strong` keeps what the same rule of severity `weak` does.
/// `deny` keeps everything; `block` and `ask` keep only themselves: a `block` rule
/// refuses once and then lets the call through without asking anyone, an `ask` rule
/// lets it through once the user said yes, so neither does what the other does.
fn severity_covers(strong: Severity, weak: Severity) -> bool {
    strong == weak || strong == Severity::Deny || weak == Severity::Warn
}

/// A rule the projection compares: equal but for the severity, which may be harder.
pub trait SafetyRule: Clone + PartialEq {
    fn severity(&self) -> Severity;
    fn name(&self) -> &str;
    fn set_name(&mut self, name: String);
    /// Equal in everything but the severity.
    fn same_but_severity(&self, other: &Self) -> bool;
    /// Whether this rule, at the same severity, stops every call `weak` stops: it
    /// matches all `weak` matches (more patterns, fewer exclusions, more roles) whatever
    /// its name and message. Only what is sure counts: where in doubt, it does not.
    fn reaches(&self, weak: &Self) -> bool;
    /// Feeds every field into `h`.
    fn digest(&self, h: &mut Hasher);
}

impl SafetyRule for PatternRule {
    fn severity(&self) -> Severity {
        self.severity
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn set_name(&mut self, name: String) {
        self.name = name;
    }
    fn same_but_severity(&self, other: &Self) -> bool {
        // Every field, named: a field added to the rule must be compared here too.
        let PatternRule {
            name,
            patterns,
            exclude,
            severity: _,
            token_threshold,
            scope,
            message,
        } = self;
        *name == other.name
            && *patterns == other.patterns
            && *exclude == other.exclude
            && *token_threshold == other.token_threshold
            && *scope == other.scope
            && *message == other.message
    }
    fn reaches(&self, weak: &Self) -> bool {
        // Every field, named: a field added to the rule must be weighed here too.
        let PatternRule {
            name: _,
            patterns,
            exclude,
            severity: _,
            token_threshold,
            scope,
            message: _,
        } = self;
        weak.patterns
            .iter()
            .all(|w| patterns.iter().any(|s| glob_reaches(s, w)))
            && exclude.iter().all(|e| weak.exclude.contains(e))
            && *token_threshold == weak.token_threshold
            && scope_reaches(scope, &weak.scope)
    }
    fn digest(&self, h: &mut Hasher) {
        let PatternRule {
            name,
            patterns,
            exclude,
            severity,
            token_threshold,
            scope,
            message,
        } = self;
        h.str(name);
        h.list(patterns);
        h.list(exclude);
        h.str(severity.as_str());
        h.u64(token_threshold.map_or(0, |t| t.saturating_add(1)));
        h.list(scope);
        h.str(message);
    }
}

impl SafetyRule for ToolRule {
    fn severity(&self) -> Severity {
        self.severity
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn set_name(&mut self, name: String) {
        self.name = name;
    }
    fn same_but_severity(&self, other: &Self) -> bool {
        // Every field, named: a field added to the rule must be compared here too.
        let ToolRule {
            name,
            tool,
            input,
            severity: _,
            token_threshold,
            scope,
            message,
        } = self;
        *name == other.name
            && *tool == other.tool
            && *input == other.input
            && *token_threshold == other.token_threshold
            && *scope == other.scope
            && *message == other.message
    }
    fn reaches(&self, weak: &Self) -> bool {
        // Every field, named: a field added to the rule must be weighed here too.
        let ToolRule {
            name: _,
            tool,
            input,
            severity: _,
            token_threshold,
            scope,
            message: _,
        } = self;
        *tool == weak.tool
            && *input == weak.input
            && *token_threshold == weak.token_threshold
            && scope_reaches(scope, &weak.scope)
    }
    fn digest(&self, h: &mut Hasher) {
        let ToolRule {
            name,
            tool,
            input,
            severity,
            token_threshold,
            scope,
            message,
        } = self;
        h.str(name);
        h.str(tool);
        h.u64(input.len() as u64);
        for (k, v) in input {
            h.str(k);
            h.str(v);
        }
        h.str(severity.as_str());
        h.u64(token_threshold.map_or(0, |t| t.saturating_add(1)));
        h.list(scope);
        h.str(message);
    }
}

/// Whether `strong` keeps everything `weak` does: as hard or harder, on every call `weak`
/// stops and maybe more (more patterns, fewer exclusions, more roles or all of them).
pub fn covers<R: SafetyRule>(strong: &R, weak: &R) -> bool {
    severity_covers(strong.severity(), weak.severity())
        && (strong.same_but_severity(weak) || strong.reaches(weak))
}

/// Whether glob `strong` matches every text glob `weak` matches, for the sure cases:
/// the same glob, or `strong` a literal prefix and a final `*` that `weak` starts with,
/// the rest of `weak` staying within one path segment (a rule on paths does not let `*`
/// cross a `/`).
fn glob_reaches(strong: &str, weak: &str) -> bool {
    if strong == weak {
        return true;
    }
    let Some(prefix) = strong.strip_suffix('*') else {
        return false;
    };
    let literal = |s: &str| !s.contains(['*', '?', '[', ']', '{', '}', '\\', '!']);
    literal(prefix)
        && weak
            .strip_prefix(prefix)
            .is_some_and(|rest| !rest.contains('/') && !rest.contains("**"))
}

/// Whether a rule of roles `strong` applies to every caller one of roles `weak` does: no
/// roles is everyone.
fn scope_reaches(strong: &[String], weak: &[String]) -> bool {
    strong.is_empty() || (!weak.is_empty() && weak.iter().all(|w| strong.contains(w)))
}

/// FNV-1a, 64 bits: a digest that stays the same across builds and platforms.
/// The hasher projections are digested with.
pub struct Hasher(Sha256);

/// A projection's digest: SHA-256, so that no config can be made to pass for a trusted
/// one by matching its digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Digest([u8; 32]);

impl Digest {
    /// The digest written as 64 hex digits, as the snapshot's header holds it.
    pub fn parse_hex(hex: &str) -> Option<Digest> {
        if hex.len() != 64 || !hex.is_ascii() {
            return None;
        }
        let mut bytes = [0u8; 32];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Digest(bytes))
    }
}

impl std::fmt::Display for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for byte in self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl Hasher {
    fn new() -> Hasher {
        Hasher(Sha256::new())
    }
    fn bytes(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
    fn u64(&mut self, n: u64) {
        self.bytes(&n.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.bytes(s.as_bytes());
    }
    fn list(&mut self, items: &[String]) {
        self.u64(items.len() as u64);
        for item in items {
            self.str(item);
        }
    }
    fn finish(self) -> Digest {
        Digest(self.0.finalize().into())
    }
}

/// The digest of the deny, block and ask rules of a list whatever their order (each rule's
/// digest, sorted, each once).
fn rules_digest<R: SafetyRule>(rules: &[R], h: &mut Hasher) {
    let mut digests: Vec<Digest> = rules
        .iter()
        .filter(|r| guards(r.severity()))
        .map(|r| {
            let mut one = Hasher::new();
            r.digest(&mut one);
            one.finish()
        })
        .collect();
    digests.sort_unstable();
    digests.dedup();
    h.u64(digests.len() as u64);
    for d in digests {
        h.bytes(&d.0);
    }
}

/// The digest of a projection from its parts: the sets as sorted lists without repeats.
fn digest_parts(
    enabled: bool,
    sets: [Vec<&str>; 5],
    (file, command, tool): (&[PatternRule], &[PatternRule], &[ToolRule]),
    (threshold, roles): (Option<u64>, Option<&RoleResolution>),
) -> Digest {
    let mut h = Hasher::new();
    // What the rules fall back on, when there is an opinion: a digest without it stays
    // what it was.
    if let Some(t) = threshold {
        h.str("threshold");
        h.u64(t);
    }
    if let Some(r) = roles {
        h.str("roles");
        for map in [&r.prefixes, &r.aliases] {
            h.u64(map.len() as u64);
            for (k, v) in map {
                h.str(k);
                h.str(v);
            }
        }
    }
    h.u64(u64::from(enabled));
    for set in sets {
        h.u64(set.len() as u64);
        for item in set {
            h.str(item);
        }
    }
    rules_digest(file, &mut h);
    rules_digest(command, &mut h);
    rules_digest(tool, &mut h);
    h.finish()
}

/// Whether a block or ask rule of these falls back on the session's threshold (has none
/// of its own).
fn relies_on_threshold(file: &[PatternRule], command: &[PatternRule], tool: &[ToolRule]) -> bool {
    let relies = |severity: Severity, own: Option<u64>| {
        own.is_none() && matches!(severity, Severity::Block | Severity::Ask)
    };
    file.iter()
        .chain(command)
        .any(|r| relies(r.severity, r.token_threshold))
        || tool.iter().any(|r| relies(r.severity, r.token_threshold))
}

/// Whether a deny, block or ask rule of these is scoped to roles (not only to the main
/// agent).
fn scoped_to_roles(file: &[PatternRule], command: &[PatternRule], tool: &[ToolRule]) -> bool {
    let scoped = |severity: Severity, scope: &[String]| {
        guards(severity) && scope.iter().any(|s| s != "leader")
    };
    file.iter()
        .chain(command)
        .any(|r| scoped(r.severity, &r.scope))
        || tool.iter().any(|r| scoped(r.severity, &r.scope))
}

/// The deny, block and ask rules of `rules`, each once.
fn safety_rules<R: SafetyRule>(rules: &[R]) -> Vec<R> {
    let mut out: Vec<R> = Vec::new();
    for rule in rules.iter().filter(|r| guards(r.severity())) {
        if !out.contains(rule) {
            out.push(rule.clone());
        }
    }
    out
}

/// The rules of `trusted` that no rule of `current` covers.
pub fn uncovered<'a, R: SafetyRule>(current: &[R], trusted: &'a [R]) -> Vec<&'a R> {
    trusted
        .iter()
        .filter(|t| !current.iter().any(|c| covers(c, t)))
        .collect()
}

fn rule_names<R: SafetyRule>(rules: Vec<&R>) -> Vec<String> {
    rules.into_iter().map(|r| r.name().to_owned()).collect()
}

/// Both lists, without a rule another one covers.
fn merge_rules<R: SafetyRule>(a: &[R], b: &[R]) -> Vec<R> {
    let mut all: Vec<R> = Vec::new();
    for rule in a.iter().chain(b) {
        if !all.contains(rule) {
            all.push(rule.clone());
        }
    }
    // Of two rules that cover each other (the same calls, another name or message) the
    // one of the lower digest is kept, whichever side it came from.
    let key = |r: &R| {
        let mut h = Hasher::new();
        r.digest(&mut h);
        h.finish()
    };
    let keys: Vec<Digest> = all.iter().map(key).collect();
    let keep: Vec<bool> = all
        .iter()
        .enumerate()
        .map(|(i, r)| {
            !all.iter()
                .enumerate()
                .any(|(j, o)| j != i && covers(o, r) && (!covers(r, o) || keys[j] < keys[i]))
        })
        .collect();
    all.into_iter()
        .zip(keep)
        .filter_map(|(r, k)| k.then_some(r))
        .collect()
}

/// The exemptions of the combined secrets: those both sides make, or, where one side has
/// no secrets check at all, the other side's.
fn combine_exemptions(a: &Projection, b: &Projection) -> BTreeSet<String> {
    if a.secrets.is_empty() && !b.secrets.is_empty() {
        b.secret_exemptions.clone()
    } else if b.secrets.is_empty() && !a.secrets.is_empty() {
        a.secret_exemptions.clone()
    } else {
        a.secret_exemptions
            .intersection(&b.secret_exemptions)
            .cloned()
            .collect()
    }
}

/// The same rules, whatever their order.
fn same_rules<R: SafetyRule>(a: &[R], b: &[R]) -> bool {
    a.iter().all(|r| b.contains(r)) && b.iter().all(|r| a.contains(r))
}

impl Projection {
    /// The projection of a config's `[guard]` and `[rules]`.
    pub fn of(guard: &GuardConfig, rules: &RulesConfig) -> Projection {
        // Every key of `[guard]` and `[rules]`, named: a key added to either must be
        // placed here, in the projection or knowingly outside it, or nagger does not
        // build. What is outside: the running program's path (not a config key), the
        // recovery hints, the after-edit checks (the edit has happened when they speak).
        let GuardConfig {
            enabled,
            allow,
            deny,
            secrets,
            shell_tools,
            binary: _,
        } = guard;
        let RulesConfig {
            file,
            command,
            tool,
            recovery: _,
            after_edit: _,
            builtin_recovery: _,
        } = rules;
        let (exemptions, secrets): (Vec<&String>, Vec<&String>) =
            secrets.iter().partition(|s| s.starts_with('!'));
        Projection {
            enabled: *enabled,
            deny: deny.iter().cloned().collect(),
            allow: allow.iter().cloned().collect(),
            secrets: secrets.into_iter().cloned().collect(),
            secret_exemptions: exemptions.into_iter().cloned().collect(),
            shell_tools: shell_tools.iter().cloned().collect(),
            file: safety_rules(file),
            command: safety_rules(command),
            tool: safety_rules(tool),
            threshold: None,
            roles: None,
        }
    }

    /// The projection of a whole config: [`Self::of`] with what its rules fall back on.
    /// Only what its rules fall back on is part of it: a config without block or ask
    /// rules that lack a threshold of their own, or without rules scoped to roles, has the
    /// projection (and the digest) of its `[guard]` and `[rules]` alone.
    pub fn of_config(config: &Config) -> Projection {
        let mut p = Projection::of(&config.guard, &config.rules);
        if p.relies_on_threshold() {
            p.threshold = Some(config.session.token_threshold);
        }
        if p.scoped_to_roles() {
            p.roles = Some(config.role_resolution.clone());
        }
        p
    }

    /// Whether a block or ask rule falls back on the session's threshold.
    fn relies_on_threshold(&self) -> bool {
        relies_on_threshold(&self.file, &self.command, &self.tool)
    }

    /// Whether a rule is scoped to roles (not only to the main agent).
    fn scoped_to_roles(&self) -> bool {
        scoped_to_roles(&self.file, &self.command, &self.tool)
    }

    /// The built-in defaults: what is trusted when nothing else is.
    pub fn defaults() -> Projection {
        Projection::of(&GuardConfig::default(), &RulesConfig::default())
    }

    /// A digest of the projection that ignores the order of lists.
    pub fn digest(&self) -> Digest {
        fn list(set: &BTreeSet<String>) -> Vec<&str> {
            set.iter().map(String::as_str).collect()
        }
        digest_parts(
            self.enabled,
            [
                list(&self.deny),
                list(&self.allow),
                list(&self.secrets),
                list(&self.secret_exemptions),
                list(&self.shell_tools),
            ],
            (&self.file, &self.command, &self.tool),
            (self.threshold, self.roles.as_ref()),
        )
    }

    /// The digest of [`Self::of_config`], without building it: what every hook run
    /// computes.
    pub fn digest_of_config(config: &Config) -> Digest {
        let rules = &config.rules;
        let (file, command, tool) = (&rules.file, &rules.command, &rules.tool);
        Self::digest_with(
            &config.guard,
            rules,
            (
                relies_on_threshold(file, command, tool).then_some(config.session.token_threshold),
                scoped_to_roles(file, command, tool).then_some(&config.role_resolution),
            ),
        )
    }

    /// The digest of the projection of `guard` and `rules`, without building it.
    pub fn digest_of(guard: &GuardConfig, rules: &RulesConfig) -> Digest {
        Self::digest_with(guard, rules, (None, None))
    }

    fn digest_with(
        guard: &GuardConfig,
        rules: &RulesConfig,
        behaviour: (Option<u64>, Option<&RoleResolution>),
    ) -> Digest {
        fn list(items: &[String], keep: fn(&str) -> bool) -> Vec<&str> {
            let mut v: Vec<&str> = items
                .iter()
                .map(String::as_str)
                .filter(|s| keep(s))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        }
        digest_parts(
            guard.enabled,
            [
                list(&guard.deny, |_| true),
                list(&guard.allow, |_| true),
                list(&guard.secrets, |s| !s.starts_with('!')),
                list(&guard.secrets, |s| s.starts_with('!')),
                list(&guard.shell_tools, |_| true),
            ],
            (&rules.file, &rules.command, &rules.tool),
            behaviour,
        )
    }

    /// The same settings, whatever the order of their lists.
    pub fn same(&self, other: &Projection) -> bool {
        self.enabled == other.enabled
            && self.deny == other.deny
            && self.allow == other.allow
            && self.secrets == other.secrets
            && self.secret_exemptions == other.secret_exemptions
            && self.shell_tools == other.shell_tools
            && same_rules(&self.file, &other.file)
            && same_rules(&self.command, &other.command)
            && same_rules(&self.tool, &other.tool)
            && self.threshold == other.threshold
            && self.roles == other.roles
    }

    /// Every way `self` is weaker than `trusted`, in the order of the config's keys.
    pub fn weakenings(&self, trusted: &Projection) -> Vec<Weakening> {
        let mut out = Vec::new();
        if trusted.enabled && !self.enabled {
            out.push(Weakening::GuardOff);
        }
        let missing = |from: &BTreeSet<String>, in_: &BTreeSet<String>| {
            from.difference(in_).cloned().collect::<Vec<_>>()
        };
        out.extend(
            missing(&trusted.deny, &self.deny)
                .into_iter()
                .map(Weakening::DenyRemoved),
        );
        out.extend(
            missing(&self.allow, &trusted.allow)
                .into_iter()
                .map(Weakening::AllowAdded),
        );
        out.extend(
            missing(&trusted.secrets, &self.secrets)
                .into_iter()
                .map(Weakening::SecretRemoved),
        );
        // An exemption narrows the secrets check only where there is one on both sides.
        if !self.secrets.is_empty() && !trusted.secrets.is_empty() {
            out.extend(
                missing(&self.secret_exemptions, &trusted.secret_exemptions)
                    .into_iter()
                    .map(Weakening::SecretExemptionAdded),
            );
        }
        out.extend(
            missing(&trusted.shell_tools, &self.shell_tools)
                .into_iter()
                .map(Weakening::ShellToolRemoved),
        );
        for (table, names) in [
            (
                "rules.file",
                rule_names(uncovered(&self.file, &trusted.file)),
            ),
            (
                "rules.command",
                rule_names(uncovered(&self.command, &trusted.command)),
            ),
            (
                "rules.tool",
                rule_names(uncovered(&self.tool, &trusted.tool)),
            ),
        ] {
            out.extend(names.into_iter().map(|n| Weakening::RuleRemoved(table, n)));
        }
        if let Some(t) = trusted.threshold
            && trusted.relies_on_threshold()
            && self.threshold.is_none_or(|own| own > t)
        {
            out.push(Weakening::ThresholdRaised(
                t,
                self.threshold.unwrap_or(u64::MAX),
            ));
        }
        if let Some(r) = &trusted.roles
            && trusted.scoped_to_roles()
            && self.roles.as_ref() != Some(r)
        {
            out.push(Weakening::RolesChanged);
        }
        out
    }

    /// The stronger of the two on every element.
    #[must_use]
    pub fn combine(&self, other: &Projection) -> Projection {
        Projection {
            enabled: self.enabled || other.enabled,
            deny: self.deny.union(&other.deny).cloned().collect(),
            allow: self.allow.intersection(&other.allow).cloned().collect(),
            secrets: self.secrets.union(&other.secrets).cloned().collect(),
            secret_exemptions: combine_exemptions(self, other),
            shell_tools: self
                .shell_tools
                .union(&other.shell_tools)
                .cloned()
                .collect(),
            file: merge_rules(&self.file, &other.file),
            command: merge_rules(&self.command, &other.command),
            tool: merge_rules(&self.tool, &other.tool),
            threshold: match (self.threshold, other.threshold) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            // Maps have no stronger of two: the other side's (the one trusted longer, as
            // nagger combines them) when both have an opinion.
            roles: other.roles.clone().or_else(|| self.roles.clone()),
        }
    }
}
