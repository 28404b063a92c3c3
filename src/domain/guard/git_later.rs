//! Commands that `git config` stores for git to run by itself at later commands: what
//! a file they name holds then is not what the guard reads now, so such settings are
//! asked about (see [`config_runs_later`]).

use super::finding::Finding;

/// Options of `git config` that only read or remove settings.
const CONFIG_READS: &[&str] = &[
    "--get",
    "--get-all",
    "--get-regexp",
    "--get-urlmatch",
    "--get-color",
    "--get-colorbool",
    "-l",
    "--list",
    "--unset",
    "--unset-all",
    "--remove-section",
    "--rename-section",
    "--show-origin",
    "--show-scope",
    "get",
    "list",
    "unset",
    "remove-section",
    "rename-section",
];
/// Options of `git config` followed by a value of their own.
const CONFIG_WITH_VALUE: &[&str] = &[
    "-f",
    "--file",
    "--blob",
    "--type",
    "--default",
    "--comment",
    "--value",
];

/// `git config KEY VALUE` that stores a command git runs by itself later (`core.fsmonitor`,
/// `diff.external`, `core.pager`, an alias with `!` …) naming a file or a word only known
/// as the shell runs: what that file holds when git runs it is not what is there now, so
/// it is asked about. So is moving the hooks' folder, and including configuration from
/// another file. What such a command runs now is judged by the other checks.
pub(super) fn config_runs_later(args: &[String]) -> Option<Finding> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if !arg.starts_with('-') {
            break;
        }
        i += if super::git::GLOBAL_WITH_VALUE.contains(&arg.as_str()) {
            2
        } else {
            1
        };
    }
    if args.get(i).map(String::as_str) != Some("config") {
        return None;
    }
    let rest = &args[i + 1..];
    if rest.iter().any(|a| CONFIG_READS.contains(&a.as_str())) {
        return None;
    }
    let mut words = Vec::new();
    let mut k = 0;
    while let Some(a) = rest.get(k) {
        if CONFIG_WITH_VALUE.contains(&a.as_str()) {
            k += 2;
            continue;
        }
        let subcommand = words.is_empty() && matches!(a.as_str(), "set" | "add");
        if !a.starts_with('-') && !subcommand {
            words.push(a.as_str());
        }
        k += 1;
    }
    let (key, value) = (*words.first()?, *words.get(1)?);
    let later = |harm: String| {
        Some(Finding::ask(
            "guard:git-runs-later",
            harm,
            "Set it yourself in your terminal once you have read what it runs.",
        ))
    };
    // Every later git command appends its trace there, outside any call nagger sees.
    if super::shell::trace_target(&key.to_ascii_lowercase(), value).is_some() {
        return later(format!(
            "makes every later git command append its trace to `{value}` (`{key}`), which \
             nagger does not see as a write"
        ));
    }
    // A hooks folder of the project (`.githooks`, `.husky`) holds project files, whose
    // hooks are judged as they are written; one elsewhere is read by no check.
    if key.eq_ignore_ascii_case("core.hooksPath") {
        let inside =
            !value.starts_with(['/', '~', '$', '`']) && !value.split('/').any(|p| p == "..");
        return if inside {
            None
        } else {
            super::important::hooks_moved(value)
        };
    }
    // Which files the work tree holds: a sparse pattern set by a later `git read-tree
    // -mu`, `checkout` or `pull` leaves `.claude/` and `.claude-nagger/` out of it.
    let lower = key.to_ascii_lowercase();
    if matches!(
        lower.as_str(),
        "core.sparsecheckout" | "core.sparsecheckoutcone" | "index.sparse"
    ) && !matches!(
        value.to_ascii_lowercase().as_str(),
        "false" | "no" | "off" | "0"
    ) {
        return later(format!(
            "turns on a sparse work tree (`{key}`): a later checkout, `read-tree -mu` or pull              drops every file the sparse patterns leave out, nagger's settings among them"
        ));
    }
    // A push from another repository then writes this work tree, outside any call.
    if key.eq_ignore_ascii_case("receive.denyCurrentBranch")
        && value.eq_ignore_ascii_case("updateInstead")
    {
        return later(
            "lets a push from another repository replace the files of this work tree \
             (`receive.denyCurrentBranch updateInstead`), nagger's settings among them, \
             without a command nagger sees"
                .to_owned(),
        );
    }
    if super::git_alias::includes(key) {
        return later(format!(
            "makes git read configuration from `{value}` at every later command, whatever \
             that file holds then"
        ));
    }
    let scripts = super::shell::git_config_runs(&super::git_alias::as_text(key, value));
    let file = scripts
        .iter()
        .find_map(|script| super::important::runs_a_file(script))?;
    later(format!(
        "stores in git's `{key}` a command that runs `{file}` at later git commands: what \
         it holds then cannot be checked now"
    ))
}
