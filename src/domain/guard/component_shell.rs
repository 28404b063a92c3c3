//! Component files (agents, skills, commands and output styles in a `.claude` folder)
//! put in place by the shell. Their frontmatter can add hooks Claude Code runs by itself
//! and set a permission mode that skips asking, so a file put there is judged by the
//! whole text it leaves, read as YAML: a copy, move or install by its source on disk
//! (a folder's files each), an in-place `sed` of literal substitutions by the text it
//! makes of the file now there. What leaves text nagger cannot read there (an archive
//! extracted, a stream written, a link made, an interpreter's write) is asked about.
//! Removing a component, or changing its mode, weakens nothing.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use super::code::{Effect, Language, effects_in};
use super::component::{file as component_file, text_weakens as component_text_weakens};
use super::finding::{Finding, operands};
use super::paths::normalize;
use super::protect::{
    Cwd, Scope, absolute_in, changed_earlier, changes, in_place, later_in_line, on_disk, resolve,
};
use super::shell::{SimpleCommand, basename, has_flag, inline_code, is_interpreter, option_values};

/// Most bytes of a file read to judge what it leaves in a component folder.
const MAX_READ: u64 = 256 * 1024;
/// Most files of a copied folder judged.
const MAX_FILES: usize = 64;
/// Most folders of a copied folder walked.
const MAX_DIRS: usize = 32;

/// Programs that only remove files or change their modes and times: a component removed
/// weakens nothing.
const LEAVE_NOTHING: &[&str] = &[
    "rm",
    "rmdir",
    "unlink",
    "shred",
    "srm",
    "trash",
    "trash-put",
    "chmod",
    "chown",
    "chgrp",
    "touch",
    "truncate",
    "mkdir",
];

/// Whether `full` (absolute) is a component file, or a component folder or a folder
/// inside one, where a file put lands as a component.
fn component_place(full: &str) -> bool {
    if component_file(full) {
        return true;
    }
    let parts: Vec<&str> = full.split('/').collect();
    parts.windows(2).any(|w| {
        w[0].eq_ignore_ascii_case(".claude")
            && ["agents", "skills", "commands", "output-styles"]
                .iter()
                .any(|f| w[1].eq_ignore_ascii_case(f))
    })
}

/// Where `path` (seen from `cwd`) is, when that is a component place. Where it lands is
/// not known: a name of a component folder is taken for one.
fn component_at(cwd: &Cwd, scope: &Scope, path: &str) -> Option<String> {
    match resolve(cwd, path) {
        Some(p) => Some(absolute_in(scope, &p)).filter(|f| component_place(f)),
        None => component_place(&format!("/{path}")).then(|| path.to_owned()),
    }
}

/// A component file the shell command puts in place with text that weakens nagger, or
/// with text nagger cannot read. `shown`: the paths whose text the line spells out
/// (`printf '…' > f`), judged where the line is read.
pub(super) fn placed(
    command: &SimpleCommand,
    fed: &[String],
    cwd: &Cwd,
    scope: &Scope,
    shown: &[String],
) -> Option<Finding> {
    // Nothing on the command may lead into a component folder: no lookups.
    let near = |w: &str| {
        let lower = w.to_ascii_lowercase();
        [
            "claude",
            "agents",
            "skills",
            "commands",
            "output-styles",
            "$",
            "`",
            "..",
        ]
        .iter()
        .any(|n| lower.contains(n))
    };
    let cwd_near = match cwd {
        Cwd::Known(dir) => near(dir),
        Cwd::Unknown => true,
    };
    if !cwd_near
        && !command
            .argv
            .iter()
            .chain(command.writes_to.iter())
            .chain(command.env.iter())
            .chain(fed.iter())
            .chain(command.stdin_texts.iter())
            .any(|w| near(w))
    {
        return None;
    }
    let name = command.name();
    // git's own versions of tracked files are judged as git commands (what they bring
    // back was written, and judged, before it was committed).
    if LEAVE_NOTHING.contains(&name) {
        return None;
    }
    // `… | xargs -I{} mv {} .claude/`: each word handed in stands where `{}` does.
    if command.under_xargs() && !fed.is_empty() && command.argv.iter().any(|w| w.contains("{}")) {
        return fed.iter().take(32).find_map(|word| {
            let run = SimpleCommand {
                argv: command.argv.iter().map(|w| w.replace("{}", word)).collect(),
                ..command.clone()
            };
            placed(&run, &[], cwd, scope, shown)
        });
    }
    let place = |path: &str| component_at(cwd, scope, path);
    if name == "git" {
        return git_placed(command, cwd, scope, shown, &place);
    }
    // Files named from a prefix (`csplit -f DIR/SKILL -b '.md%d'`, `split … DIR/SKILL`),
    // `find`'s output files, and what an editor's own commands write (`ed <<< 'w F'`,
    // `vim -c 'w! F'`): their text is the input's or the buffer's, unread here.
    let args = command.args();
    let mut unread: Vec<String> = Vec::new();
    match name {
        "csplit" | "gcsplit" => {
            unread.extend(
                option_values(args, &["-f"], &["--prefix"])
                    .into_iter()
                    .map(str::to_owned),
            );
        }
        "split" | "gsplit" => {
            let ops = operands(args);
            if ops.len() == 2 {
                unread.push(ops[1].to_owned());
            }
        }
        "find" | "gfind" => {
            for w in args.windows(2) {
                if matches!(w[0].as_str(), "-fprint" | "-fprint0" | "-fprintf" | "-fls") {
                    unread.push(w[1].clone());
                }
            }
        }
        _ => {
            let lang = Language::of(name);
            if matches!(lang, Language::Vim | Language::Ed) {
                let program = super::shell::inline_program(&command.argv);
                let code = program
                    .iter()
                    .map(String::as_str)
                    .chain(command.stdin_texts.iter().map(String::as_str));
                for effect in code.flat_map(|t| effects_in(t, lang)) {
                    if let Effect::Writes(Some(path)) = effect {
                        unread.push(path);
                    }
                }
            }
        }
    }
    if let Some(here) = unread.iter().find_map(|p| place(p)) {
        return Some(unseen(
            &here,
            &format!("has `{name}` write a file there whose text nagger cannot read"),
        ));
    }
    let c = changes(command, fed, scope.binary);
    // Links: a link made into a component folder leads to a file that can change
    // unseen; a second name of a component file is a way to change it unseen.
    if matches!(name, "ln" | "link" | "gln" | "glink")
        || (matches!(name, "cp" | "gcp")
            && has_flag(command.args(), "ls", &["link", "symbolic-link"]))
    {
        let args = command.args();
        let ops = operands(args);
        let dirs = option_values(args, &["-t"], &["--target-directory"]);
        let mut all: Vec<String> = ops.iter().map(|o| (*o).to_owned()).collect();
        all.extend(dirs.iter().map(|d| (*d).to_owned()));
        // Where the links are made: in `-t DIR`, under a folder named last, or, for a
        // lone target, in the current folder under the target's name.
        let targets: &[&str] = if dirs.is_empty() && ops.len() > 1 {
            &ops[..ops.len() - 1]
        } else {
            &ops
        };
        let folder = dirs
            .first()
            .copied()
            .or_else(|| (ops.len() > 1).then(|| ops[ops.len() - 1]))
            .unwrap_or(".");
        for target in targets {
            all.push(format!(
                "{}/{}",
                folder.trim_end_matches('/'),
                basename(target.trim_end_matches('/'))
            ));
        }
        let inside_claude = |p: &str| {
            let full = match resolve(cwd, p) {
                Some(r) => absolute_in(scope, &r),
                None => p.to_owned(),
            };
            let full = full.trim_end_matches('/');
            let parent = full.rsplit_once('/').map_or("", |(d, _)| d);
            basename(parent).eq_ignore_ascii_case(".claude")
                || basename(full).eq_ignore_ascii_case(".claude")
        };
        // A link named as a file no component is (a skill's reference `guide.md`) is
        // read by nobody as a component.
        let named_file = |p: &str| {
            std::path::Path::new(p)
                .extension()
                .is_some_and(|e| !e.eq_ignore_ascii_case("md"))
                || p.to_ascii_lowercase().ends_with(".md") && !component_file(p)
        };
        if let Some(p) = all
            .iter()
            .filter(|p| !named_file(p))
            .find_map(|p| place(p).or_else(|| inside_claude(p).then(|| p.clone())))
        {
            return Some(unseen(
                &p,
                "makes a link there (or a second name of one), through which what it holds \
                 can change without nagger reading it",
            ));
        }
        return None;
    }
    for into in &c.into {
        let dest = match resolve(cwd, &into.dest) {
            Some(p) => absolute_in(scope, &p),
            None => into.dest.clone(),
        };
        if into.sources.is_empty() {
            if component_place(&dest) {
                return Some(unseen(
                    &dest,
                    "puts files there whose text nagger cannot read",
                ));
            }
            continue;
        }
        // Into a folder (or a path that ends in one): each source lands under its name.
        let into_folder = into.dest.ends_with('/')
            || into.sources.len() > 1
            || Path::new(&dest).is_dir()
            || !option_values(command.args(), &["-t"], &["--target-directory"]).is_empty();
        let dest_near = component_place(&dest)
            || basename(dest.trim_end_matches('/')).eq_ignore_ascii_case(".claude");
        for source in &into.sources {
            // A name only known as it runs (`find … -exec mv {} .claude/ \;`, `xargs -I{}`,
            // `$x`): where it lands and what it holds are not known.
            if dest_near
                && (source.contains("{}")
                    || source.contains(['$', '`'])
                    || command.computed.iter().any(|c| c == source))
            {
                return Some(unseen(
                    &dest,
                    &format!("moves or copies `{source}` there, a name only known as it runs"),
                ));
            }
            let landing = if into_folder {
                format!(
                    "{}/{}",
                    dest.trim_end_matches('/'),
                    basename(source.trim_end_matches('/'))
                )
            } else {
                dest.clone()
            };
            // Lands in a component folder, or as one (`mv stage/agents .claude/`), or as a
            // `.claude` folder of its own (`mv sub/.claudx sub/.claude`).
            let lands = component_place(&landing)
                || basename(landing.trim_end_matches('/')).eq_ignore_ascii_case(".claude");
            if lands && let Some(found) = judge_source(command, source, &landing, cwd, scope) {
                return Some(found);
            }
        }
    }
    // An interpreter's (or awk's) writes are what its code writes and its redirections:
    // the files it is handed may be only read. A write to a name the code computes asks
    // when the code names a component folder.
    let lang = Language::of(name);
    let editor = matches!(lang, Language::Vim | Language::Ed);
    if (is_interpreter(name) || lang == Language::Awk) && !editor && !in_place(name, command.args())
    {
        let mut code: Vec<&str> = inline_code(&command.argv).into_iter().collect();
        if lang == Language::Awk {
            code.extend(operands(command.args()).first());
        }
        code.extend(command.stdin_texts.iter().map(String::as_str));
        let mut writes: Vec<String> = command.writes_to.clone();
        for effect in code.iter().flat_map(|t| effects_in(t, lang)) {
            match effect {
                Effect::Writes(Some(path)) => writes.push(path),
                Effect::Writes(None) if code.iter().any(|t| names_component_folder(t)) => {
                    return Some(unseen(
                        ".claude",
                        "runs code that writes a file whose name it computes, near a \
                         component folder it names",
                    ));
                }
                _ => {}
            }
        }
        return writes
            .iter()
            .filter(|p| !shown.contains(p))
            .find_map(|p| place(p))
            .map(|here| unseen(&here, "writes it with code whose text nagger cannot read"));
    }
    let mv_sources: Vec<&str> = if name == "mv" {
        c.into
            .iter()
            .flat_map(|i| i.sources.iter().copied())
            .collect()
    } else {
        Vec::new()
    };
    for path in &c.paths {
        if mv_sources.contains(&path.as_str()) {
            // Moved away: judged where it lands.
            continue;
        }
        let Some(here) = place(path) else {
            continue;
        };
        // Appended to an agent or output style (prose, run by nothing) whose frontmatter
        // on disk is closed: what comes after it cannot change it, whatever the shell
        // fills in (`echo "Owner: $USER" >> agent.md`).
        let appended = command.appends_to.iter().any(|a| a == path);
        if appended && super::component::prose(&here) {
            let settled = !changed_earlier(command, path, scope)
                && read(Path::new(&here)).is_some_and(|text| frontmatter_settled(&text));
            if settled {
                continue;
            }
            let fills_in = command.computed.iter().any(|w| command.argv.contains(w))
                || !command.stdin_literal
                    && command.stdin_texts.iter().any(|t| t.contains(['$', '`']));
            if fills_in {
                return Some(unseen(
                    &here,
                    "appends text the shell fills in to it, whose frontmatter on disk is not \
                     closed",
                ));
            }
        }
        if shown.iter().any(|s| s == path) {
            continue;
        }
        let program = match name {
            "sed" | "gsed" => Some(command.args().to_vec()),
            "perl" => perl_as_sed(command.args()),
            _ => None,
        };
        // `perl -0pi -e 's/…/…/' FILE`, `-0777`: one substitution over the whole file.
        if name == "perl"
            && in_place(name, command.args())
            && let Some(text) = perl_slurped(command.args(), &here)
        {
            if let Some(found) = component_text_weakens(&here, &text, true) {
                return Some(found);
            }
            continue;
        }
        if in_place(name, command.args())
            && let Some(program) = program
            && let Some(text) = sed_result(&program, &here)
        {
            if let Some(found) = component_text_weakens(&here, &text, true) {
                return Some(found);
            }
            continue;
        }
        if let Some(text) = copied_text(command, path, &here, cwd, scope) {
            if let Some(found) = component_text_weakens(&here, &text, true) {
                return Some(found);
            }
            continue;
        }
        return Some(unseen(&here, "changes it in a way nagger cannot read"));
    }
    None
}

/// What a command that copies files' text leaves in `path` (`here` on disk): `cat a b >
/// f`, `cat a >> f`, `tee f < a`, when every file it reads can be read whole. With `>>`
/// (or `tee -a`) the file's own text comes first.
fn copied_text(
    command: &SimpleCommand,
    path: &str,
    here: &str,
    cwd: &Cwd,
    scope: &Scope,
) -> Option<String> {
    let args = command.args();
    if !command.stdin_texts.is_empty() || args.iter().any(|a| a.starts_with('-')) {
        return None;
    }
    let redirected = command.writes_to.iter().any(|t| t == path);
    let (sources, appends): (Vec<&str>, bool) = match command.name() {
        "cat" if redirected && !args.is_empty() => (
            args.iter().map(String::as_str).collect(),
            command.appends_to.iter().any(|t| t == path),
        ),
        "tee" if !redirected && command.reads_from.len() == 1 => (
            command
                .reads_from
                .iter()
                .map(String::as_str)
                .filter(|r| !r.starts_with('&'))
                .collect(),
            false,
        ),
        _ => return None,
    };
    if sources.is_empty() || sources.len() > 16 {
        return None;
    }
    let mut text = String::new();
    if appends {
        text = if std::fs::symlink_metadata(here).is_ok() {
            read(Path::new(here))?
        } else {
            String::new()
        };
    }
    for source in sources {
        if source.contains(['$', '`', '*', '?', '[']) {
            return None;
        }
        if changed_earlier(command, source, scope) {
            return None;
        }
        let full = resolve(cwd, source).and_then(|s| on_disk(scope, &s))?;
        text.push_str(&read(&full)?);
        if text.len() as u64 > MAX_READ {
            return None;
        }
    }
    Some(text)
}

/// A git command's part: what its output is redirected into, and what `git mv` moves
/// (judged by the file it moves). The versions of tracked files other git commands
/// bring back were written, and judged, before they were committed.
fn git_placed(
    command: &SimpleCommand,
    cwd: &Cwd,
    scope: &Scope,
    shown: &[String],
    place: &dyn Fn(&str) -> Option<String>,
) -> Option<Finding> {
    if let Some((path, here)) = command
        .writes_to
        .iter()
        .filter(|p| !shown.contains(p))
        .find_map(|p| place(p).map(|here| (p, here)))
    {
        // `git show feat:.claude/agents/x.md > .claude/agents/x.md`: the file as a
        // revision holds it, read from the repository, is what lands.
        let appended = command.appends_to.contains(path);
        if !appended && let Some(text) = shown_file(command, cwd, scope) {
            return component_text_weakens(&here, &text, true);
        }
        return Some(unseen(
            &here,
            "writes git's output there, which nagger cannot read",
        ));
    }
    let args = command.args();
    // Plumbing that writes the index or the work tree by hand (`update-index --cacheinfo
    // …,.claude/agents/x.md`, `read-tree --prefix=.claude/`, `checkout-index`) with a
    // component path, or from its input: what it puts there was never judged.
    let plumbing = ["update-index", "read-tree", "checkout-index", "mktree"];
    if let Some(sub) = args.iter().find(|a| plumbing.contains(&a.as_str()))
        && args.iter().any(|a| {
            a.to_ascii_lowercase().contains(".claude")
                || matches!(a.as_str(), "--index-info" | "--stdin" | "-a" | "--all")
        })
    {
        return Some(unseen(
            ".claude",
            &format!("has `git {sub}` write git's index or work tree by hand, unread"),
        ));
    }
    // The subcommand, past git's own options (`-C dir`, `-c k=v`); `-C` moves where the
    // paths after it start.
    let mut at = 0;
    let mut moved = cwd.clone();
    while let Some(a) = args.get(at) {
        if a == "-C" {
            moved = match args.get(at + 1).and_then(|d| resolve(&moved, d)) {
                Some(dir) => Cwd::Known(dir),
                None => Cwd::Unknown,
            };
            at += 2;
        } else if matches!(
            a.as_str(),
            "-c" | "--git-dir" | "--work-tree" | "--namespace"
        ) {
            at += 2;
        } else if a.starts_with('-') {
            at += 1;
        } else {
            break;
        }
    }
    args.get(at)?;
    let cwd_here = &moved;
    // A whole work tree put in a component folder (`worktree add`, `clone`, `submodule
    // add`, `init` there, or git run inside one or told its work tree is one): the files
    // it checks out were never judged as components.
    let sub = args[at].as_str();
    let rest = operands(&args[at + 1..]);
    let tree_at: Vec<String> = match sub {
        "worktree" => match rest.first().copied() {
            Some("add") => rest.get(1).map(|p| (*p).to_owned()).into_iter().collect(),
            Some("move") => rest.get(2).map(|p| (*p).to_owned()).into_iter().collect(),
            _ => Vec::new(),
        },
        // `clone [-b B] REPO [DIR]`: without DIR, a folder named after the repository.
        // Any of its words may be the folder, as option values are not told apart.
        "clone" => {
            let mut all: Vec<String> = rest.iter().map(|p| (*p).to_owned()).collect();
            if let Some(repo) = rest.last() {
                all.push(
                    basename(repo.trim_end_matches('/'))
                        .trim_end_matches(".git")
                        .to_owned(),
                );
            }
            all
        }
        "submodule" if rest.first() == Some(&"add") => {
            rest.iter().skip(1).map(|p| (*p).to_owned()).collect()
        }
        "init" => rest.first().map(|p| (*p).to_owned()).into_iter().collect(),
        _ => Vec::new(),
    };
    if let Some(here) = tree_at
        .iter()
        .find_map(|p| component_at(cwd_here, scope, p))
    {
        return Some(unseen(
            &here,
            &format!("has `git {sub}` put a work tree there, whose files nagger cannot read"),
        ));
    }
    // Run inside a component folder, or with one as its work tree, anything that checks
    // files out puts them there unread.
    let work_tree = command
        .env
        .iter()
        .filter_map(|e| e.strip_prefix("GIT_WORK_TREE="))
        .chain(option_values(&args[..at], &[], &["--work-tree"]))
        .find_map(|p| component_at(cwd, scope, p));
    let inside = match cwd_here {
        Cwd::Known(dir) => component_at(cwd_here, scope, ".").filter(|_| !dir.is_empty()),
        Cwd::Unknown => None,
    };
    let checks_out = matches!(
        sub,
        "pull"
            | "checkout"
            | "switch"
            | "reset"
            | "merge"
            | "restore"
            | "read-tree"
            | "stash"
            | "rebase"
            | "cherry-pick"
            | "revert"
            | "am"
            | "apply"
            | "clone"
            | "worktree"
            | "submodule"
            | "bisect"
    );
    if checks_out && let Some(here) = work_tree.or(inside) {
        return Some(unseen(
            &here,
            &format!("has `git {sub}` check files out there, which nagger cannot read"),
        ));
    }
    if args[at] != "mv" {
        return None;
    }
    let ops = operands(&args[at + 1..]);
    let (dest, sources) = ops.split_last()?;
    let cwd = &moved;
    let here = component_at(cwd, scope, dest)?;
    let into_folder = dest.ends_with('/') || sources.len() > 1 || Path::new(&here).is_dir();
    sources.iter().find_map(|source| {
        let landing = if into_folder {
            format!("{}/{}", here.trim_end_matches('/'), basename(source))
        } else {
            here.clone()
        };
        judge_source(command, source, &landing, cwd, scope)
    })
}

/// The text `git show REV:PATH` prints (one file of a revision, nothing else asked for),
/// read from the repository the command runs in.
fn shown_file(command: &SimpleCommand, cwd: &Cwd, scope: &Scope) -> Option<String> {
    let (sub, rest) = command.args().split_first()?;
    let [spec] = rest else {
        return None;
    };
    let (rev, path) = spec.split_once(':')?;
    if sub != "show" || rev.is_empty() || path.is_empty() || rev.starts_with('-') {
        return None;
    }
    let Cwd::Known(dir) = cwd else {
        return None;
    };
    super::protect::file_in_revision(Path::new(&absolute_in(scope, dir)), rev, path)
}

/// Whether code names one of the folders component files are read from.
fn names_component_folder(code: &str) -> bool {
    ["agents", "skills", "commands", "output-styles"]
        .iter()
        .any(|f| code.contains(f))
}

/// A copy's source judged by the text it leaves at `landing`: a file by its text, a
/// folder by each of its files. A source that is not there is nothing unless an earlier
/// command of the line may make it.
fn judge_source(
    command: &SimpleCommand,
    source: &str,
    landing: &str,
    cwd: &Cwd,
    scope: &Scope,
) -> Option<Finding> {
    // An empty file weakens nothing; a here-document handed as the file to copy is
    // judged by its text.
    if command.name() != "mv" {
        match source {
            "/dev/null" => return None,
            "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
                if command.stdin_texts.len() == 1 && command.stdin_literal =>
            {
                return component_text_weakens(landing, &command.stdin_texts[0], true);
            }
            _ => {}
        }
    }
    let Some(path) = resolve(cwd, source).and_then(|s| on_disk(scope, &s)) else {
        return Some(unseen(
            landing,
            &format!("copies `{source}` there, which nagger cannot find"),
        ));
    };
    if changed_earlier(command, source, scope) {
        return Some(unseen(
            landing,
            &format!("copies `{source}` there, which the line may change first"),
        ));
    }
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        if later_in_line(command, scope) {
            return Some(unseen(
                landing,
                &format!("copies `{source}` there, which the line may make first"),
            ));
        }
        return None;
    };
    if meta.file_type().is_symlink() {
        return Some(unseen(
            landing,
            &format!("puts `{source}`, a link, there: what it leads to can change unseen"),
        ));
    }
    if meta.is_file() {
        return judge_file(&path, landing);
    }
    if !meta.is_dir() {
        return Some(unseen(
            landing,
            &format!("copies `{source}` there, which is no file"),
        ));
    }
    let mut folders = vec![(path, PathBuf::from(landing))];
    let (mut files, mut dirs) = (0, 0);
    while let Some((dir, at)) = folders.pop() {
        dirs += 1;
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Some(unseen(landing, &format!("copies `{source}` there, unread")));
        };
        for entry in entries.flatten() {
            let (from, to) = (entry.path(), at.join(entry.file_name()));
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            files += 1;
            if files > MAX_FILES || dirs > MAX_DIRS || kind.is_symlink() {
                return Some(unseen(
                    landing,
                    &format!("copies `{source}` there, more than nagger reads or with links"),
                ));
            }
            if kind.is_dir() {
                folders.push((from, to));
            } else if kind.is_file()
                && let Some(found) = judge_file(&from, &to.to_string_lossy())
            {
                return Some(found);
            }
        }
    }
    None
}

/// A file's text judged as the component it becomes at `landing`.
fn judge_file(path: &Path, landing: &str) -> Option<Finding> {
    let Some(text) = read(path) else {
        return Some(unseen(
            landing,
            &format!(
                "puts `{}` there, which nagger cannot read whole",
                path.display()
            ),
        ));
    };
    component_text_weakens(landing, &text, true)
}

/// A file's text, read bounded and without blocking; `None` when it is longer or not
/// UTF-8.
fn read(path: &Path) -> Option<String> {
    let file = crate::base::files::open_regular(path).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_READ + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > MAX_READ {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// What `sed -i` leaves in the file at `full`, when nagger can carry its program out
/// ([`super::sed_script`]): `None` otherwise, or when the file cannot be read. A file
/// that is not there stays so.
/// `perl -pi -e 's/RE/NEW/flags' FILE` as the `sed -E` program that does the same, when
/// the code is one substitution sed's reader carries out alike: a pattern without Perl's
/// own escapes and groups, a replacement that only names groups (`$1`, `$&`), flags `g`
/// and `i`. `None` for anything else (other code, `-0`, `-n`, modules), which is asked
/// about.
fn perl_as_sed(args: &[String]) -> Option<Vec<String>> {
    let mut code: Option<&str> = None;
    let mut files = Vec::new();
    let mut k = 0;
    let (mut print, mut in_place) = (false, false);
    while let Some(a) = args.get(k) {
        k += 1;
        if let Some(flags) = a
            .strip_prefix('-')
            .filter(|f| !f.is_empty() && !a.starts_with("--"))
        {
            // `-pi`, `-pi.bak`, `-i -pe CODE`, `-p -i -e CODE`.
            let mut chars = flags.chars();
            while let Some(c) = chars.next() {
                match c {
                    'p' => print = true,
                    'l' => {}
                    'i' => {
                        in_place = true;
                        break;
                    }
                    'e' | 'E' => {
                        let rest: String = chars.collect();
                        code = Some(if rest.is_empty() {
                            k += 1;
                            args.get(k - 1)?.as_str()
                        } else {
                            return None;
                        });
                        break;
                    }
                    _ => return None,
                }
            }
            continue;
        }
        files.push(a.clone());
    }
    let code = code?.trim().trim_end_matches(';').trim();
    if !(print && in_place) || code.contains(['\n', ';', '@']) {
        return None;
    }
    let rest = code.strip_prefix('s')?;
    let delim = rest
        .chars()
        .next()
        .filter(|d| *d == '/' || *d == '|' || *d == '#')?;
    let parts: Vec<&str> = rest[1..].split(delim).collect();
    let [pattern, replacement, flags] = parts.as_slice() else {
        return None;
    };
    if pattern.is_empty()
        || !flags.chars().all(|f| f == 'g' || f == 'i')
        || pattern.contains("(?")
        || pattern.match_indices('\\').any(|(at, _)| {
            !matches!(
                pattern[at + 1..].chars().next(),
                Some(
                    '.' | '/'
                        | 's'
                        | 'w'
                        | 'b'
                        | '\\'
                        | '('
                        | ')'
                        | '['
                        | ']'
                        | '-'
                        | '+'
                        | '*'
                        | '?'
                        | '$'
                        | '^'
                        | '|'
                )
            )
        })
    {
        return None;
    }
    // `$1`, `${1}`, `$&` are sed's `\1`, `&`; a literal `&` is escaped; any other `$` or
    // `\` interpolates what nagger does not follow.
    let mut sed_new = String::new();
    for piece in perl_replacement(replacement, false)? {
        match piece {
            Piece::Group('0') => sed_new.push('&'),
            Piece::Group(d) => {
                sed_new.push('\\');
                sed_new.push(d);
            }
            Piece::Text('&') => sed_new.push_str("\\&"),
            Piece::Text(c) => sed_new.push(c),
        }
    }
    let flags = flags.replace('i', "I");
    let mut program = vec![
        "-E".to_owned(),
        "-i".to_owned(),
        format!("s{delim}{pattern}{delim}{sed_new}{delim}{flags}"),
    ];
    program.extend(files);
    Some(program)
}

/// What `perl -0pi -e 's/RE/NEW/flags' FILE` (`-0777`, the file read whole) leaves of the
/// file at `full`, when the code is one substitution whose pattern the regex reader takes
/// alike (no back-references or look-around) and whose replacement only names groups
/// (`$1`, `${1}`, `$&`) and `\n`; flags `g`, `i`, `s`, `m`. `None` for anything else.
fn perl_slurped(args: &[String], full: &str) -> Option<String> {
    let (mut print, mut in_place, mut slurp) = (false, false, false);
    let mut code: Option<&str> = None;
    let mut k = 0;
    while let Some(a) = args.get(k) {
        k += 1;
        let Some(flags) = a
            .strip_prefix('-')
            .filter(|f| !f.is_empty() && !a.starts_with("--"))
        else {
            continue;
        };
        let mut chars = flags.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                'p' => print = true,
                'l' => {}
                '0' => {
                    slurp = true;
                    while chars.peek().is_some_and(char::is_ascii_digit) {
                        chars.next();
                    }
                }
                'i' => {
                    in_place = true;
                    break;
                }
                'e' | 'E' if chars.peek().is_none() => {
                    code = Some(args.get(k)?.as_str());
                    k += 1;
                }
                _ => return None,
            }
        }
    }
    if !(print && in_place && slurp) {
        return None;
    }
    let code = code?.trim().trim_end_matches(';').trim();
    let rest = code.strip_prefix('s')?;
    let delim = rest
        .chars()
        .next()
        .filter(|d| matches!(d, '/' | '|' | '#' | '!'))?;
    let parts: Vec<&str> = rest[1..].split(delim).collect();
    let [pattern, replacement, flags] = parts.as_slice() else {
        return None;
    };
    if pattern.is_empty() || pattern.contains("(?") || !flags.chars().all(|f| "gism".contains(f)) {
        return None;
    }
    // Back-references in the pattern are not the regex reader's.
    if pattern
        .match_indices('\\')
        .any(|(at, _)| pattern[at + 1..].starts_with(|c: char| c.is_ascii_digit()))
    {
        return None;
    }
    let mut new = String::new();
    for piece in perl_replacement(replacement, true)? {
        match piece {
            Piece::Group(d) => {
                new.push_str("${");
                new.push(d);
                new.push('}');
            }
            Piece::Text('$') => new.push_str("$$"),
            Piece::Text(c) => new.push(c),
        }
    }
    let inline: String = flags.chars().filter(|f| "ism".contains(*f)).collect();
    let pattern = if inline.is_empty() {
        (*pattern).to_owned()
    } else {
        format!("(?{inline}){pattern}")
    };
    let re = regex::Regex::new(&pattern).ok()?;
    let path = Path::new(full);
    if std::fs::symlink_metadata(path).is_err() {
        return Some(String::new());
    }
    let text = read(path)?;
    let out = if flags.contains('g') {
        re.replace_all(&text, new.as_str())
    } else {
        re.replacen(&text, 1, new.as_str())
    };
    Some(out.into_owned())
}

/// A piece of a Perl substitution's replacement: a character, or a group (`$1`, `${1}`;
/// `$&` is group `0`).
enum Piece {
    Text(char),
    Group(char),
}

/// The pieces of a Perl substitution's replacement. With `escapes`, `\n`, `\t` and an
/// escaped sign stand for themselves; without, any `\` is refused. `None` for anything
/// else that interpolates (another `$`).
fn perl_replacement(replacement: &str, escapes: bool) -> Option<Vec<Piece>> {
    let mut out = Vec::new();
    let mut chars = replacement.chars();
    while let Some(c) = chars.next() {
        out.push(match c {
            '$' => match chars.next()? {
                '&' => Piece::Group('0'),
                d if d.is_ascii_digit() => Piece::Group(d),
                '{' => {
                    let d = chars.next().filter(char::is_ascii_digit)?;
                    chars.next().filter(|c| *c == '}')?;
                    Piece::Group(d)
                }
                _ => return None,
            },
            '\\' if !escapes => return None,
            '\\' => match chars.next()? {
                'n' => Piece::Text('\n'),
                't' => Piece::Text('\t'),
                other if !other.is_alphanumeric() => Piece::Text(other),
                _ => return None,
            },
            other => Piece::Text(other),
        });
    }
    Some(out)
}

fn sed_result(args: &[String], full: &str) -> Option<String> {
    let path = Path::new(full);
    if std::fs::symlink_metadata(path).is_err() {
        // Carried out on nothing, to know the program is one nagger reads.
        return super::sed_script::edited(args, "").map(|_| String::new());
    }
    let text = read(path)?;
    super::sed_script::edited(args, &text)
}

/// Whether text appended to a file holding `text` can no longer make or change its
/// frontmatter: the file opens with none (something other than blanks and `---` comes
/// first), or the one it opens has closed (a second `---` after the opening line).
fn frontmatter_settled(text: &str) -> bool {
    let start = text.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    if start.is_empty() {
        return false;
    }
    match start.strip_prefix("---") {
        None => true,
        Some(after) => after
            .split_once('\n')
            .is_some_and(|(_, rest)| rest.contains("---")),
    }
}

fn unseen(place: &str, what: &str) -> Finding {
    Finding::ask(
        "guard:self-protect-component",
        format!(
            "puts a component file in `{}` (an agent, skill or command, whose frontmatter \
             can add hooks Claude Code runs by itself): it {what}",
            normalize(place)
        ),
        "Write it with the file tools, so nagger reads what it says, or ask the user.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_places_are_the_folders_claude_code_reads() {
        assert!(component_place("/p/.claude/agents"));
        assert!(component_place("/p/.claude/skills/new/SKILL.md"));
        assert!(component_place("/h/.claude/commands/x.md"));
        assert!(!component_place("/p/docs/agents/x.md"));
        assert!(!component_place("/p/.claude"));
    }
}
