//! Programs the guard does not know. What such a program does with its words cannot be
//! told, so two things it may be handed are asked about instead of passed: the filesystem
//! root, a home or a top-level system folder as a whole (`rimraf ~`, `wipe -rf /`), and a
//! command line the guard objects to, in one word (`nu -c 'rm -rf /'`, `hyperfine 'rm -rf
//! ~'`) or as its words from some point on (`uvx tool rm -rf ~`, `devbox run rm -rf /`),
//! which it may well run. Known deleters the destructive checks do not read otherwise
//! (`gio trash`, `trash-put`, `srm`) are refused on those folders.

use super::finding::{Finding, operands};
use super::paths::resolve;
use super::protect;
use super::protect::Cwd;
use super::shell::{self, SimpleCommand, basename, has_flag};
use super::targets::whole_tree;

/// Most positions of one command's words tried as the start of a command line it runs.
const MAX_TAILS: usize = 8;
/// Most words of one command read as command lines of their own.
const MAX_LINES: usize = 8;
/// Longest word read as a command line.
const MAX_LINE: usize = 4096;

/// Whether the guard reads what `command`'s program does with its words: self-protection
/// knows what it does to its operands, the parser follows the commands it runs, it is an
/// interpreter whose inline code is read, or it has checks of its own.
pub(super) fn understood(command: &SimpleCommand) -> bool {
    let name = command.name();
    protect::known_program(name)
        || shell::follows(name)
        // Key store clients: the command their words give is read whole (`sql`).
        || super::sql::dialect(name) == Some(super::sql::Dialect::Redis)
        || (shell::is_interpreter(name) && shell::inline_program(&command.argv).is_some())
}

/// Programs that delete what they are given, read by no other destructive check.
fn deletes_operands(command: &SimpleCommand) -> bool {
    match command.name() {
        "trash" | "trash-put" | "srm" | "shred" | "wipe" => true,
        "gio" => command
            .args()
            .first()
            .is_some_and(|a| matches!(a.as_str(), "trash" | "remove" | "rm")),
        _ => false,
    }
}

/// The root, a home or a top-level system folder handed whole to a program the guard
/// does not know (asked about), or to a deleter (refused).
pub(super) fn whole_trees(command: &SimpleCommand, known: bool) -> Option<Finding> {
    let deleter = deletes_operands(command);
    // A program nagger knows, sent through all of such a folder (`setfacl -R`, `chattr
    // -R`, `gzip -r`), unless it only reads (`ls -R ~`, `grep -r x /etc`) or has checks of
    // its own for it (`chmod -R`, `rm -r`).
    let recursive = has_flag(command.args(), "rR", &["recursive"])
        && !protect::leaves_operands_of(command)
        && !matches!(
            command.name(),
            "rm" | "chmod" | "chown" | "chgrp" | "cp" | "rsync" | "scp"
        );
    if known && !deleter && !recursive {
        return None;
    }
    let name = command.name();
    // `CARGO_TARGET_DIR=~ cargo clean`, `GOMODCACHE="$HOME" go clean -modcache`: a
    // folder a variable set for the command names, where it cleans.
    let cleans = command.args().iter().take(3).any(|a| {
        matches!(
            a.as_str(),
            "clean" | "purge" | "prune" | "wipe" | "reset" | "-modcache" | "-cache"
        )
    });
    // So does a property a build tool is handed (`mvn clean
    // -Dproject.build.directory=$HOME`, `gradle clean -PbuildDir=~`).
    let properties = command
        .args()
        .iter()
        .filter(|a| (a.starts_with("-D") || a.starts_with("-P")) && a.contains('='));
    let assigned = command
        .env
        .iter()
        .chain(command.prefixed.iter().flatten())
        .chain(properties)
        .filter(|_| cleans)
        .filter_map(|w| w.split_once('=').map(|(_, v)| v));
    let (word, what) = operands(command.args())
        .into_iter()
        .filter(|w| !w.contains('='))
        .chain(assigned)
        .find_map(|w| whole_tree(w).map(|what| (w, what)))?;
    if deleter {
        return Some(Finding::deny(
            "guard:delete-whole",
            format!("deletes {what} (`{word}`)"),
            "Delete specific paths inside the project instead.",
        ));
    }
    if known {
        return Some(Finding::ask(
            "guard:whole-recursive",
            format!("works through all of {what} (`{name} -R {word}`)"),
            "Work on specific paths inside the project instead, or ask the user.",
        ));
    }
    Some(Finding::ask(
        "guard:unknown-whole",
        format!(
            "hands `{name}`, a program nagger does not know, {what} (`{word}`): what it does \
             there cannot be checked"
        ),
        "Ask the user, or run a command nagger knows on specific paths.",
    ))
}

/// Subcommand words that tell a program to destroy what it manages: a database (`rails
/// db:drop`, `python manage.py flush`, `prisma migrate reset`), history (`hg strip`), a
/// bucket, an app or a release (`aws s3 rb`, `heroku apps:destroy`, `gh release delete`).
const DESTROYING_VERBS: &[&str] = &[
    "drop",
    "dropdb",
    "destroy",
    "purge",
    "wipe",
    "nuke",
    "strip",
    "obliterate",
    "truncate",
    "flush",
    "flushall",
    "flushdb",
    "reset",
    "erase",
    "rb",
    "delete",
    "teardown",
    "zap",
    "dropall",
    "fresh",
    "downgrade",
    "abandon",
    "revert",
    "clean-tree",
    "rm",
    "rmi",
    "del",
    "rmdir",
    "rmdirs",
    "deletefile",
    "undefine",
    "prune",
    "unmerge",
    "expunge",
    "replant",
];
/// Options that tell a program to delete (`aws s3 sync --delete`, `rclone sync
/// --delete-after`, `… --purge`).
const DESTROYING_OPTIONS: &[&str] = &[
    "--delete",
    "--delete-after",
    "--delete-before",
    "--delete-during",
    "--delete-excluded",
    "--delete-all",
    "--force-delete",
    "--purge",
    "--wipe",
    "--drop",
    "--destroy",
    "--reset",
    "--force-reset",
    "--accept-data-loss",
    "--delete-removed",
    "--delete-destination",
    "--delete-unmatched-destination-objects",
    "--remove-source-files",
];
/// Tools that step a database's schema forward and back by migrations.
const MIGRATION_TOOLS: &[&str] = &[
    "alembic",
    "sqlx",
    "diesel",
    "typeorm",
    "sequelize",
    "knex",
    "goose",
    "dbmate",
    "migrate",
    "refinery",
    "sea-orm-cli",
    "mikro-orm",
    "prisma",
    "drizzle-kit",
    "flyway",
    "liquibase",
    "yoyo",
    "ecto",
    "tern",
    "sql-migrate",
    "atlas",
];

/// Leading operands of a command read as its subcommand words.
const SUBCOMMAND_WORDS: usize = 3;

/// A program the guard does not know, told by a subcommand or an option to destroy what
/// it manages: asked about, since what it destroys cannot be read.
pub(super) fn destroying(command: &SimpleCommand, known: bool) -> Option<Finding> {
    // Task runners whose tasks the guard reads from the project's files (`make wipe` is
    // judged by its recipe).
    let runs_read_tasks = matches!(
        command.name(),
        "make"
            | "gmake"
            | "bmake"
            | "just"
            | "task"
            | "go-task"
            | "composer"
            | "npm"
            | "pnpm"
            | "yarn"
            | "bun"
    );
    // Programs that look a name up (`command -v rm`, `man rm`, `tldr rm`) run nothing.
    let looks_up = matches!(
        command.name(),
        "command"
            | "type"
            | "which"
            | "whereis"
            | "whatis"
            | "man"
            | "info"
            | "tldr"
            | "help"
            | "apropos"
            | "hash"
            | "compgen"
            | "cheat"
            | "complete"
    ) || command.args().first().is_some_and(|a| a == "help");
    // `pnpm prisma migrate reset`, `yarn sequelize db:migrate:undo:all`: the package
    // manager runs the migration tool of that name.
    if runs_read_tasks
        && let Some(at) = command
            .args()
            .iter()
            .position(|a| MIGRATION_TOOLS.contains(&a.as_str()))
        && command.args()[..at]
            .iter()
            .all(|a| a.starts_with('-') || matches!(a.as_str(), "exec" | "dlx" | "x" | "run"))
    {
        let mut tool = command.clone();
        tool.argv = command.args()[at..].to_vec();
        return destroying(&tool, false);
    }
    if known || runs_read_tasks || looks_up || super::outside::dry_run(command.args()) {
        return None;
    }
    let args = command.args();
    // `meson setup --wipe builddir`: the build folder made again from the sources.
    if command.name() == "meson" && args.iter().any(|a| a == "--wipe") {
        return None;
    }
    let leading: Vec<&str> = operands(args).into_iter().take(SUBCOMMAND_WORDS).collect();
    // What a cache or a package store holds is fetched again (`uv cache prune`, `pip
    // cache purge`, `pnpm store prune`).
    if leading
        .iter()
        .any(|w| matches!(*w, "cache" | "caches" | "store"))
    {
        return None;
    }
    // A project tool's environments, made again from its manifest (`hatch env prune`,
    // `hatch env remove test`); a monorepo tool's pruned copy written to a folder of its
    // own (`turbo prune web --docker`) and its cache and daemon cleared (`nx reset`).
    if leading
        .iter()
        .any(|w| matches!(*w, "env" | "envs" | "environment" | "environments"))
        && matches!(
            command.name(),
            "hatch" | "tox" | "nox" | "pdm" | "poetry" | "pixi"
        )
        || command.name() == "turbo" && leading.first() == Some(&"prune")
        || command.name() == "nx" && leading.first() == Some(&"reset")
    {
        return None;
    }
    // Test runners' words are names of tests to run (`cargo test reset`, `go test -run
    // Reset`, `cargo bench -- delete`), not what to destroy.
    if matches!(command.name(), "cargo" | "go")
        && leading
            .first()
            .is_some_and(|w| matches!(*w, "test" | "t" | "bench" | "nextest" | "miri"))
    {
        return None;
    }
    // coverage.py's data of the last runs, made again by the next (`coverage erase`).
    if command.name() == "coverage" && leading.first() == Some(&"erase") {
        return None;
    }
    // A dependency taken out of a project's manifest (`cargo rm serde`, `poetry remove
    // x`, `pip uninstall x`): routine, and added back as easily.
    if matches!(
        command.name(),
        "cargo" | "poetry" | "uv" | "pip" | "pip3" | "pdm" | "rye" | "gem" | "bundle" | "dotnet"
    ) && leading
        .first()
        .is_some_and(|w| matches!(*w, "rm" | "remove" | "uninstall"))
    {
        return None;
    }
    // The project's own test database, made again by its suite (`RAILS_ENV=test rails
    // db:reset`, `prisma migrate reset` with `NODE_ENV=test`).
    if super::outside::for_tests(command) {
        return None;
    }
    let names_production = command
        .env
        .iter()
        .chain(args)
        .any(|w| w.to_ascii_lowercase().contains("prod"));
    // A migration stepped back (`alembic downgrade -1`, `sqlx migrate revert`, `typeorm
    // migration:revert`), and a generator undone (`rails destroy scaffold x`): routine
    // steps on the project's own schema and files, unless production is named.
    let steps_back = leading.iter().any(|w| {
        w.split(':').any(|p| {
            matches!(
                p.to_ascii_lowercase().as_str(),
                "downgrade" | "revert" | "rollback" | "undo"
            )
        })
    }) && (MIGRATION_TOOLS.contains(&command.name())
        || leading
            .iter()
            .any(|w| w.contains("migrat") || matches!(*w, "db" | "database")));
    // All the way down (`downgrade base`, `revert --all`, `db:migrate:undo:all`, `down
    // 999`) empties the schema.
    let to_nothing = args.iter().any(|a| {
        matches!(
            a.as_str(),
            "base" | "zero" | "all" | "--all" | "-all" | "-a" | "0"
        ) || a.parse::<u64>().is_ok_and(|n| n >= 100)
    }) || leading.iter().any(|w| {
        w.split([':', '-', '_'])
            .next_back()
            .is_some_and(|p| p.eq_ignore_ascii_case("all"))
            && w.contains(['-', ':', '_'])
    });
    // `migrate:refresh` (every migration back, then forward: the data gone), `ef database
    // update 0`, `flyway:clean` / `flywayClean`, `db:seed:replant`.
    let rebuilds =
        leading.iter().any(|w| {
            let lower = w.to_ascii_lowercase();
            let parts: Vec<&str> = lower.split(':').collect();
            (parts.contains(&"refresh") && parts.iter().any(|p| p.contains("migrat")))
                || matches!(
                    lower.as_str(),
                    "flyway:clean" | "flywayclean" | "liquibase:dropall"
                )
                || parts.contains(&"replant")
        }) || (leading.contains(&"database") && leading.contains(&"update") && to_nothing);
    if rebuilds {
        return Some(Finding::ask(
            "guard:unknown-destroys",
            format!(
                "empties the database's schema or data and builds it again with `{}`",
                command.name()
            ),
            "Ask the user, or step back one migration.",
        ));
    }
    // Every migration taken back (`migrate down -all`, `ecto.rollback --all`, `alembic
    // downgrade base`, `goose reset`): the schema emptied, whatever the tool.
    let takes_all_back = to_nothing
        && leading.iter().any(|w| {
            w.split([':', '.', '-', '_']).any(|p| {
                matches!(
                    p.to_ascii_lowercase().as_str(),
                    "downgrade" | "revert" | "rollback" | "undo" | "down" | "redo" | "migrate"
                )
            })
        });
    // A migration tool's verb may follow its connection words (`goose DIR postgres DSN
    // reset`, `migrate -path m -database URL down -all`).
    let all_operands: Vec<&str> = operands(args).into_iter().take(16).collect();
    let tool_resets = MIGRATION_TOOLS.contains(&command.name())
        && (all_operands.contains(&"reset")
            || (to_nothing
                && all_operands
                    .iter()
                    .any(|o| matches!(*o, "down" | "rollback"))));
    if takes_all_back || tool_resets {
        return Some(Finding::ask(
            "guard:unknown-destroys",
            format!(
                "takes every migration back with `{}`, which empties the database's schema",
                command.name()
            ),
            "Ask the user, or step back one migration.",
        ));
    }
    let steps_back = steps_back && !to_nothing;
    let generator_undone = command.name() == "rails"
        && leading
            .first()
            .is_some_and(|w| matches!(*w, "destroy" | "d"));
    if !names_production && (steps_back || generator_undone) {
        return None;
    }
    let verb = leading
        .into_iter()
        .find(|w| {
            // A path (`bin/tool.rb`) is no subcommand.
            // `db:drop`, `purge_queue`, `bucket-delete`, `deleteall`: a part of the word.
            !w.contains(['/', '.'])
                && (w
                    .split(':')
                    .any(|part| DESTROYING_VERBS.contains(&part.to_ascii_lowercase().as_str()))
                    // Inside a longer word only the verbs that say it whole
                    // (`purge_queue`, `bucket-delete`), not `del` of `watch-del-all`.
                    || w.split([':', '_', '-']).any(|part| {
                        part.len() >= 4
                            && DESTROYING_VERBS.contains(&part.to_ascii_lowercase().as_str())
                    })
                    || {
                        let lower = w.to_ascii_lowercase();
                        [
                            "deleteall",
                            "dropall",
                            "purgeall",
                            "removeall",
                            "destroyall",
                        ]
                        .contains(&lower.as_str())
                    })
        })
        .or_else(|| {
            args.iter()
                .take_while(|a| *a != "--")
                .map(|a| a.split_once('=').map_or(a.as_str(), |(n, _)| n))
                .find(|a| DESTROYING_OPTIONS.contains(a))
        })?;
    Some(Finding::ask(
        "guard:unknown-destroys",
        format!(
            "tells `{}`, a program nagger does not know, to `{verb}`: what that destroys \
             cannot be checked",
            command.name()
        ),
        "Ask the user, or say what it destroys and why.",
    ))
}

/// A tree of files written into the root, a home or a top-level system folder (`tar -xf
/// x.tar -C /`, `unzip -o x.zip -d ~`, `cp -r dotfiles/. ~`): what lands there replaces what
/// is there, and what the archive or folder holds cannot be read.
pub(super) fn trees_over_whole(command: &SimpleCommand, cwd: &Cwd) -> Option<Finding> {
    let (dest, what) = protect::tree_destinations(command)
        .into_iter()
        .find_map(|dest| {
            let full = resolve(cwd, &dest)?;
            let full = if full.is_empty() {
                ".".to_owned()
            } else {
                full
            };
            whole_tree(&full).map(|what| (dest, what))
        })?;
    Some(Finding::ask(
        "guard:tree-over-whole",
        format!("writes a tree of files into {what} (`{dest}`), over what is there"),
        "Write into a folder of the project, or ask the user.",
    ))
}

/// The command lines a program the guard does not know may run: each word that holds a
/// command line of its own (`'rm -rf /'`, `--exec='…'`), then its words from each that
/// may name a program on (`rm -rf ~` of `uvx tool rm -rf ~`). Each comes with how it
/// is handed over.
pub(super) fn handed(command: &SimpleCommand) -> Vec<(String, String)> {
    let name = command.name();
    let args = command.args();
    let mut out = Vec::new();
    for word in args.iter().take(64) {
        let text = match word.strip_prefix("--").and_then(|w| w.split_once('=')) {
            Some((_, value)) => value,
            None => word.as_str(),
        };
        if out.len() >= MAX_LINES {
            break;
        }
        // A word the shell computes (`--body "$(cat notes.md)"`) is text by then.
        let computed = command.computed.contains(word) || text.contains("$(") || text.contains('`');
        if !computed
            && text.len() <= MAX_LINE
            && text.trim().contains([' ', '\t', '\n', ';', '|', '&'])
        {
            out.push((text.to_owned(), format!("a word given to `{name}`")));
        }
    }
    let mut tails = 0;
    for (k, word) in args.iter().enumerate().take(64) {
        if tails >= MAX_TAILS {
            break;
        }
        if !names_a_program(word) {
            continue;
        }
        tails += 1;
        let line: Vec<String> = args[k..].iter().map(|w| shell::shell_quote(w)).collect();
        out.push((line.join(" "), format!("its words from `{word}` on")));
    }
    out
}

/// A word that may be a program's name: a plain name, as a runner takes it, or a path
/// spelled as a program's (`/bin/sh`, `./run`, `../tools/x`) or ending in a program the
/// guard knows (`venv/bin/python3`).
fn names_a_program(word: &str) -> bool {
    let plain = |name: &str| {
        name.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '+'))
    };
    let name = basename(word);
    if name == word {
        return plain(word);
    }
    plain(name)
        && (word.starts_with('/')
            || word.starts_with("./")
            || word.starts_with("../")
            || protect::known_program(name))
}

/// Programs that run code in languages nagger does not read.
const UNREAD_RUNNERS: &[&str] = &[
    "swift",
    "kotlin",
    "kotlinc",
    "ocaml",
    "jshell",
    "zx",
    "scala",
    "scala-cli",
    "groovy",
    "elixir",
    "iex",
    "erl",
    "escript",
    "clojure",
    "clj",
    "bb",
    "racket",
    "guile",
    "sbcl",
    "clisp",
    "gforth",
    "nim",
    "crystal",
    "dart",
    "runghc",
    "ghci",
    "csi",
    "fsi",
    "octave",
];

/// Words of code in any language through which it runs programs or changes files.
const EFFECT_WORDS: &[&str] = &[
    "exec",
    "spawn",
    "system(",
    "system.cmd",
    "sys.command",
    "runtime",
    "processbuilder",
    "process.",
    "popen",
    "shell",
    "delete",
    "remove",
    "unlink",
    "rmdir",
    "rmtree",
    "rm -",
    "rm(",
    "write",
    "kill",
    "fork",
    "$`",
    "file.",
    "files.",
    "directory.",
    "filemanager",
    "os.",
    "io.file",
    "truncate",
    "chmod",
    "move",
    "rename",
    "copy",
    "eval",
    "load",
    "require",
    "import",
    "include",
    "open",
    "`",
];

/// Whether code may reach a way to run programs or change files.
fn reaches_effects(code: &str) -> bool {
    let lower = code.to_ascii_lowercase();
    EFFECT_WORDS.iter().any(|w| lower.contains(w))
}

/// A program that runs code in a language nagger does not read, given that code inline
/// (`swift -e`, `kotlin -e`, `dotnet script -e`), on its standard input (`jshell <<<`,
/// `zx <<<`, `… | scala`), or from `/dev/stdin` (`go run /dev/stdin`): asked about, as
/// nagger cannot tell what it does.
pub(super) fn unread_code(command: &SimpleCommand) -> Option<Finding> {
    let name = command.name();
    let args = command.args();
    let stdin = !command.stdin_texts.is_empty()
        || command.stage > 0
        || command
            .reads_from
            .iter()
            .any(|r| !r.starts_with("/dev/null"));
    let from_stdin_file = args
        .iter()
        .any(|a| matches!(a.as_str(), "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"));
    let runs = match name {
        "go" => {
            args.first().is_some_and(|a| a == "run")
                && (from_stdin_file || args.iter().any(|a| a == "-"))
        }
        "dotnet" => {
            args.first().is_some_and(|a| a == "script" || a == "fsi")
                && (args.iter().any(|a| matches!(a.as_str(), "-e" | "--eval"))
                    || stdin
                    || from_stdin_file)
        }
        "java" => args
            .iter()
            .any(|a| matches!(a.as_str(), "/dev/stdin" | "-")),
        _ if UNREAD_RUNNERS.contains(&name) => {
            args.iter().any(|a| {
                matches!(
                    a.as_str(),
                    "-e" | "--eval"
                        | "-c"
                        | "--command"
                        | "-x"
                        | "--expression"
                        | "-eval"
                        | "-Command"
                )
            }) || (stdin && operands(args).is_empty())
                || from_stdin_file
        }
        _ => false,
    };
    // Code that reaches none of the ways to change or run anything (`IO.puts(…)`,
    // `println(1 + 1)`) is let through.
    let code: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .chain(command.stdin_texts.iter().map(String::as_str))
        .collect();
    let acts = command.stage > 0
        || !command.reads_from.is_empty()
        || code.iter().any(|c| reaches_effects(c));
    (runs && acts).then(|| {
        Finding::ask(
            "guard:unread-code",
            format!(
                "runs code in a language nagger does not read (`{}`)",
                command.display()
            ),
            "Run it as a file nagger can read first, or ask the user.",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::guard::shell::parse;

    fn command(line: &str) -> SimpleCommand {
        parse(line).commands.into_iter().next().expect("a command")
    }

    #[test]
    fn whole_trees_of_unknown_programs_are_asked_about_and_deleters_refused() {
        for line in [
            "rimraf /",
            "wipe-it -rf ~",
            "tool --force \"$HOME\"",
            "x /etc",
            "x ~/..",
        ] {
            let c = command(line);
            let f = whole_trees(&c, understood(&c)).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(f.check, "guard:unknown-whole", "{line}");
        }
        for line in ["gio trash ~", "trash-put /usr", "srm -r /*"] {
            let c = command(line);
            let f = whole_trees(&c, understood(&c)).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(f.check, "guard:delete-whole", "{line}");
        }
        for line in [
            "ls /",
            "du -sh ~",
            "x ~/src",
            "x /tmp",
            "x .",
            "x --prefix=/usr",
            "x PREFIX=/usr",
            "x /usr/local/lib",
            "gio open ~",
        ] {
            let c = command(line);
            assert!(whole_trees(&c, understood(&c)).is_none(), "{line}");
        }
    }

    #[test]
    fn words_that_may_run_are_handed_over() {
        let c = command("nu -c 'rm -rf /'");
        let lines: Vec<String> = handed(&c).into_iter().map(|(l, _)| l).collect();
        assert!(lines.contains(&"rm -rf /".to_owned()), "{lines:?}");
        let c = command("uvx tool rm -rf ~");
        let lines: Vec<String> = handed(&c).into_iter().map(|(l, _)| l).collect();
        assert!(lines.contains(&"'rm' '-rf' '~'".to_owned()), "{lines:?}");
        // A program spelled as a path starts one: `chronic /bin/sh x.sh`.
        let c = command("chronic /bin/sh x.sh");
        let lines: Vec<String> = handed(&c).into_iter().map(|(l, _)| l).collect();
        assert!(lines.contains(&"'/bin/sh' 'x.sh'".to_owned()), "{lines:?}");
        let c = command("x venv/bin/python3 t.py");
        assert_eq!(handed(&c).len(), 1, "{:?}", handed(&c));
        // Options, plain files and folders start none.
        let c = command("x -c --flag src/a.txt docs/ a=b");
        assert!(handed(&c).is_empty(), "{:?}", handed(&c));
    }

    #[test]
    fn what_the_guard_reads_is_understood() {
        for line in [
            "rm -rf x",
            "cat a",
            "bash -c 'ls'",
            "python3 -c 'print(1)'",
            "find . -name x",
            "nu -c 'ls'",
        ] {
            assert!(understood(&command(line)), "{line}");
        }
        for line in ["rimraf x", "python3 tool.py", "cargo run"] {
            assert!(!understood(&command(line)), "{line}");
        }
    }
}
