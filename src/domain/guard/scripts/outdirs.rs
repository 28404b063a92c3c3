//! Folders a build tool empties before it writes its output there: Vite's `outDir`,
//! webpack's `output.path` with `clean`, tsup's `outDir` with `clean`, Next's `distDir`,
//! MkDocs' `site_dir`, Jekyll's `destination`, Angular's `outputPath`, Cargo's target
//! folder under `cargo clean`, … named on the command line or in the tool's config. Each
//! is judged as the `rm -rf` it amounts to, so a config pointing the output at the home
//! or the project's parent is caught where the tool runs; a folder the config computes
//! is asked about.

use super::super::paths::normalize;
use super::super::protect::Cwd;
use super::super::shell::{self, SimpleCommand};
use super::files::{Ran, View, read_named};

/// How a config file is written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    /// JavaScript or TypeScript code (tried with each of [`JS_ENDINGS`]).
    Js,
    /// `key: value` lines.
    Yaml,
    /// `key = value` lines (TOML, Python settings).
    Assign,
    /// JSON, the key anywhere in it.
    Json,
}

/// When the tool empties the folder.
#[derive(Clone, Copy)]
enum When {
    /// Always, unless one of these long options is given.
    Always(&'static [&'static str]),
    /// Only when switched on: by one of these options, or this key in the config.
    Switched(
        &'static [&'static str],
        &'static [&'static str],
        &'static str,
    ),
    /// A folder inside the folder the tool runs in always, one outside only when this
    /// option or key says so (Vite's `emptyOutDir`).
    InsideOr(&'static str),
}

/// A tool that empties a folder it is told to write into.
struct Emptier {
    tools: &'static [&'static str],
    /// The subcommands that build (the first operand); empty: any.
    builds: &'static [&'static str],
    /// The options that name the folder.
    short: &'static [&'static str],
    long: &'static [&'static str],
    /// Variables that name it.
    env: &'static [&'static str],
    /// The config files it reads, and the options that name another.
    configs: &'static [&'static str],
    config_short: &'static [&'static str],
    config_long: &'static [&'static str],
    format: Format,
    /// The config keys that name the folder.
    keys: &'static [&'static str],
    when: When,
}

const EMPTIERS: &[Emptier] = &[
    Emptier {
        tools: &["vite"],
        builds: &["build"],
        short: &[],
        long: &["--outDir"],
        env: &[],
        configs: &["vite.config"],
        config_short: &["-c"],
        config_long: &["--config"],
        format: Format::Js,
        keys: &["outDir"],
        when: When::InsideOr("emptyOutDir"),
    },
    Emptier {
        tools: &["webpack", "webpack-cli"],
        builds: &[],
        short: &["-o"],
        long: &["--output-path"],
        env: &[],
        configs: &["webpack.config"],
        config_short: &["-c"],
        config_long: &["--config"],
        format: Format::Js,
        keys: &["path"],
        when: When::Switched(&[], &["--output-clean"], "clean"),
    },
    Emptier {
        tools: &["tsup"],
        builds: &[],
        short: &["-d"],
        long: &["--out-dir"],
        env: &[],
        configs: &["tsup.config"],
        config_short: &[],
        config_long: &["--config"],
        format: Format::Js,
        keys: &["outDir"],
        when: When::Switched(&[], &["--clean"], "clean"),
    },
    Emptier {
        tools: &["next"],
        builds: &["build"],
        short: &[],
        long: &[],
        env: &[],
        configs: &["next.config"],
        config_short: &[],
        config_long: &[],
        format: Format::Js,
        keys: &["distDir"],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["astro"],
        builds: &["build"],
        short: &[],
        long: &["--outDir"],
        env: &[],
        configs: &["astro.config"],
        config_short: &[],
        config_long: &["--config"],
        format: Format::Js,
        keys: &["outDir"],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["vitepress"],
        builds: &["build"],
        short: &[],
        long: &["--outDir"],
        env: &[],
        configs: &[".vitepress/config"],
        config_short: &[],
        config_long: &[],
        format: Format::Js,
        keys: &["outDir"],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["docusaurus"],
        builds: &["build"],
        short: &[],
        long: &["--out-dir"],
        env: &[],
        configs: &[],
        config_short: &[],
        config_long: &[],
        format: Format::Js,
        keys: &[],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["storybook"],
        builds: &["build"],
        short: &["-o"],
        long: &["--output-dir"],
        env: &[],
        configs: &[],
        config_short: &[],
        config_long: &[],
        format: Format::Js,
        keys: &[],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["build-storybook"],
        builds: &[],
        short: &["-o"],
        long: &["--output-dir"],
        env: &[],
        configs: &[],
        config_short: &[],
        config_long: &[],
        format: Format::Js,
        keys: &[],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["mkdocs"],
        builds: &["build", "gh-deploy"],
        short: &["-d"],
        long: &["--site-dir"],
        env: &[],
        configs: &["mkdocs.yml", "mkdocs.yaml"],
        config_short: &["-f"],
        config_long: &["--config-file"],
        format: Format::Yaml,
        keys: &["site_dir"],
        when: When::Always(&["--dirty"]),
    },
    Emptier {
        tools: &["jekyll"],
        builds: &["build", "b", "serve", "s", "server"],
        short: &["-d"],
        long: &["--destination"],
        env: &[],
        configs: &["_config.yml", "_config.yaml"],
        config_short: &[],
        config_long: &["--config"],
        format: Format::Yaml,
        keys: &["destination"],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["hexo"],
        builds: &["clean", "generate", "g"],
        short: &[],
        long: &[],
        env: &[],
        configs: &["_config.yml"],
        config_short: &[],
        config_long: &["--config"],
        format: Format::Yaml,
        keys: &["public_dir"],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["hugo"],
        builds: &[],
        short: &["-d"],
        long: &["--destination"],
        env: &[],
        configs: &["hugo.toml", "config.toml"],
        config_short: &[],
        config_long: &["--config"],
        format: Format::Assign,
        keys: &["publishDir", "publishdir"],
        when: When::Switched(&[], &["--cleanDestinationDir"], "cleanDestinationDir"),
    },
    Emptier {
        tools: &["zola"],
        builds: &["build"],
        short: &["-o"],
        long: &["--output-dir"],
        env: &[],
        configs: &["config.toml"],
        config_short: &["-c"],
        config_long: &["--config"],
        format: Format::Assign,
        keys: &["output_dir"],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["mdbook"],
        builds: &["build", "clean"],
        short: &["-d"],
        long: &["--dest-dir"],
        env: &[],
        configs: &["book.toml"],
        config_short: &[],
        config_long: &[],
        format: Format::Assign,
        keys: &["build-dir"],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["pelican"],
        builds: &[],
        short: &["-o"],
        long: &["--output"],
        env: &[],
        configs: &["pelicanconf.py"],
        config_short: &["-s"],
        config_long: &["--settings"],
        format: Format::Assign,
        keys: &["OUTPUT_PATH"],
        when: When::Switched(
            &["-d"],
            &["--delete-output-directory"],
            "DELETE_OUTPUT_DIRECTORY",
        ),
    },
    Emptier {
        tools: &["ng"],
        builds: &["build", "b"],
        short: &[],
        long: &["--output-path"],
        env: &[],
        configs: &["angular.json"],
        config_short: &[],
        config_long: &[],
        format: Format::Json,
        keys: &["outputPath"],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["jest"],
        builds: &[],
        short: &[],
        long: &["--cacheDirectory"],
        env: &[],
        configs: &["jest.config"],
        config_short: &["-c"],
        config_long: &["--config"],
        format: Format::Js,
        keys: &["cacheDirectory"],
        when: When::Switched(&[], &["--clearCache"], ""),
    },
    Emptier {
        tools: &["cabal"],
        builds: &["clean", "v2-clean", "new-clean"],
        short: &[],
        long: &["--builddir"],
        env: &[],
        configs: &[],
        config_short: &[],
        config_long: &[],
        format: Format::Assign,
        keys: &[],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["stack"],
        builds: &["clean", "purge"],
        short: &[],
        long: &["--work-dir"],
        env: &["STACK_WORK"],
        configs: &["stack.yaml"],
        config_short: &[],
        config_long: &["--stack-yaml"],
        format: Format::Yaml,
        keys: &["work-dir"],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["dune"],
        builds: &["clean"],
        short: &[],
        long: &["--build-dir"],
        env: &["DUNE_BUILD_DIR"],
        configs: &[],
        config_short: &[],
        config_long: &[],
        format: Format::Assign,
        keys: &[],
        when: When::Always(&[]),
    },
    Emptier {
        tools: &["cargo"],
        builds: &["clean"],
        short: &[],
        long: &["--target-dir"],
        env: &["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"],
        configs: &[".cargo/config.toml", ".cargo/config"],
        config_short: &[],
        config_long: &[],
        format: Format::Assign,
        keys: &["target-dir"],
        when: When::Always(&[]),
    },
];

/// Where a tool takes its root folder (its config and its relative paths) from, when not
/// the folder it runs in: options, or the operand after its build subcommand.
const ROOTS: &[(&str, &[&str], &[&str], bool)] = &[
    ("vite", &[], &["--root"], true),
    ("next", &[], &[], true),
    ("astro", &[], &["--root"], false),
    ("vitepress", &[], &[], true),
    ("docusaurus", &[], &[], true),
    ("hugo", &["-s"], &["--source"], false),
    ("jekyll", &["-s"], &["--source"], false),
    ("mdbook", &[], &[], true),
    ("zola", &["-r"], &["--root"], false),
    ("hexo", &[], &["--cwd"], false),
];

/// Endings of JavaScript and TypeScript code files.
const JS_ENDINGS: &[&str] = &[".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"];

/// Most values of one key taken from one config.
const MAX_VALUES: usize = 8;

/// A folder the tool is told to write into: a path (relative to where the tool runs, or
/// absolute), or an expression nagger does not work out.
#[derive(Debug, PartialEq)]
enum Folder {
    /// A path relative to where the tool runs, or absolute.
    Path(String),
    /// A path relative to the tool's root (a config's plain string: `outDir: 'dist'`).
    FromRoot(String),
    Computed(String),
}

/// Pushes onto `out` the folders `command` (the tool `tool` with `args`) empties.
pub(super) fn runs(
    command: &SimpleCommand,
    tool: &str,
    args: &[String],
    cwd: &Cwd,
    files: &View,
    out: &mut Vec<Ran>,
) {
    if (tool.starts_with("python") || tool.starts_with("pypy"))
        && args.first().is_some_and(|a| a.ends_with("manage.py"))
    {
        collectstatic(args, cwd, files, out);
        return;
    }
    let Some(emptier) = EMPTIERS.iter().find(|e| e.tools.contains(&tool)) else {
        return;
    };
    let (root_short, root_long, root_operand) = ROOTS
        .iter()
        .find(|(t, ..)| *t == tool)
        .map_or((&[][..], &[][..], false), |(_, s, l, o)| (*s, *l, *o));
    // The options that take a value stand anywhere (`stack --work-dir .. clean`).
    let valued_short: Vec<&str> = emptier
        .short
        .iter()
        .chain(emptier.config_short)
        .chain(root_short)
        .copied()
        .collect();
    let valued_long: Vec<&str> = emptier
        .long
        .iter()
        .chain(emptier.config_long)
        .chain(root_long)
        .map(|l| l.trim_start_matches('-'))
        .collect();
    let ops = super::super::finding::operands_with(args, &valued_short, &valued_long);
    if !emptier.builds.is_empty() && !ops.first().is_some_and(|s| emptier.builds.contains(s)) {
        return;
    }
    // `vitepress build docs`, `hugo --source site`, `next build apps/web`: the root,
    // where its config is and what its config names is.
    let operand_at = usize::from(!emptier.builds.is_empty());
    let root = shell::option_values(args, root_short, root_long)
        .last()
        .map(|r| (*r).to_owned())
        .or_else(|| {
            root_operand
                .then(|| ops.get(operand_at).map(|r| (*r).to_owned()))
                .flatten()
        })
        .map(|r| normalize(r.trim_end_matches('/')))
        .filter(|r| !r.is_empty() && r != ".");
    let mut named: Vec<(Folder, String)> = Vec::new();
    for value in shell::option_values(args, emptier.short, emptier.long) {
        named.push((
            Folder::Path(value.to_owned()),
            format!("`{value}` on its command line"),
        ));
    }
    for word in command.env.iter().chain(command.prefixed.iter().flatten()) {
        if let Some((key, value)) = word.split_once('=')
            && emptier.env.contains(&key)
        {
            named.push((Folder::Path(value.to_owned()), format!("`{key}`")));
        }
    }
    // `cargo clean --config 'build.target-dir="/x"'`, `--config ci.toml`.
    if tool == "cargo" {
        for value in shell::option_values(args, &[], &["--config"])
            .into_iter()
            .take(8)
        {
            if let Some((key, setting)) = value.split_once('=') {
                if key.trim().ends_with("target-dir") {
                    let setting = setting.trim().trim_matches(['"', '\'']);
                    named.push((
                        Folder::Path(setting.to_owned()),
                        format!("`--config {value}` on its command line"),
                    ));
                }
            } else if let Some((text, via)) = read_named(files.read(cwd, value), value, out) {
                for (folder, key) in line_values(&text, &["target-dir"], '=', &config_base(value)) {
                    named.push((folder, format!("`{key}` in {via}")));
                }
            }
        }
    }
    let mut switched = match emptier.when {
        When::Switched(short, long, _) => shell::has_flag(
            args,
            &short
                .iter()
                .map(|s| s.trim_start_matches('-'))
                .collect::<String>(),
            &long
                .iter()
                .map(|l| l.trim_start_matches('-'))
                .collect::<Vec<_>>(),
        ),
        When::InsideOr(option) => shell::has_flag(args, "", &[option]),
        When::Always(unless) => !shell::has_flag(
            args,
            "",
            &unless
                .iter()
                .map(|l| l.trim_start_matches('-'))
                .collect::<Vec<_>>(),
        ),
    };
    let mut config_said_off = false;
    for config in config_files(emptier, args, root.as_deref(), cwd, files) {
        let Some((text, via)) = read_named(files.read(cwd, &config), &config, out) else {
            continue;
        };
        let base = config_base(&config);
        let values = match emptier.format {
            Format::Js => js_values(&text, emptier.keys, &base),
            Format::Yaml => line_values(&text, emptier.keys, ':', &base),
            Format::Assign => line_values(&text, emptier.keys, '=', &base),
            Format::Json => json_values(&text, emptier.keys, &base),
        };
        let key = match emptier.when {
            When::Switched(_, _, key) | When::InsideOr(key) => key,
            When::Always(_) => "",
        };
        if !key.is_empty() {
            match switch_in(&text, key, emptier.format) {
                Some(true) => switched = true,
                Some(false) => config_said_off = true,
                None => {}
            }
            // webpack's clean plugin empties `output.path` as `clean: true` does.
            if tool.starts_with("webpack") && text.contains("CleanWebpackPlugin") {
                switched = true;
            }
        }
        for (value, key) in values {
            named.push((value, format!("`{key}` in {via}")));
        }
    }
    for (folder, from) in named {
        let path = match folder {
            Folder::Path(path) => path,
            Folder::FromRoot(path) => match &root {
                Some(root) if !path.starts_with('/') && !path.starts_with('~') => {
                    format!("{root}/{path}")
                }
                _ => path,
            },
            Folder::Computed(expr) => {
                // A folder worked out by code: emptied when the tool is switched to, and
                // where Vite would empty it (inside its root), which nagger cannot tell.
                let empties = match emptier.when {
                    When::InsideOr(_) => !config_said_off,
                    _ => switched,
                };
                if empties {
                    out.push(Ran::Finding(super::super::finding::Finding::ask(
                        "guard:computed-command",
                        format!(
                            "runs `{tool}`, which empties the folder it writes into, and \
                             {from} computes that folder (`{expr}`)"
                        ),
                        "Name the output folder as a path inside the project, or ask the \
                         user.",
                    )));
                }
                continue;
            }
        };
        let empties = match emptier.when {
            When::InsideOr(_) => {
                let within = match &root {
                    Some(root) => path
                        .strip_prefix(root.as_str())
                        .is_some_and(|rest| inside(rest.trim_start_matches('/'))),
                    None => inside(&path),
                };
                switched || (!config_said_off && within)
            }
            _ => switched,
        };
        if !empties {
            continue;
        }
        let line = match path.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                format!("rm -rf -- ~{}", shell::shell_quote(rest))
            }
            _ => format!("rm -rf -- {}", shell::shell_quote(&path)),
        };
        out.push(Ran::Script(
            line,
            format!("the output folder `{tool}` empties, named by {from}"),
            None,
        ));
    }
}

/// `python3 manage.py collectstatic --clear`: Django empties `STATIC_ROOT` of the
/// settings `manage.py` names (`BASE_DIR / "static"`, a string, the home).
fn collectstatic(args: &[String], cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let clears = args.iter().any(|a| a == "collectstatic")
        && args.iter().any(|a| a == "--clear" || a == "-c");
    if !clears {
        return;
    }
    let manage = &args[0];
    let dir = manage.rsplit_once('/').map_or(".", |(d, _)| d);
    let prefix = if dir == "." {
        String::new()
    } else {
        format!("{dir}/")
    };
    let Some((manage_text, _)) = read_named(files.read(cwd, manage), manage, out) else {
        return;
    };
    let module = manage_text.find("DJANGO_SETTINGS_MODULE").and_then(|at| {
        let line = manage_text[at..].lines().next()?;
        let rest = line["DJANGO_SETTINGS_MODULE".len()..].trim_start_matches(['"', '\'']);
        let start = rest.find(['"', '\''])?;
        let q = rest[start..].chars().next()?;
        let body = &rest[start + 1..];
        Some(body[..body.find(q)?].to_owned())
    });
    let Some(module) = module else { return };
    let settings = format!("{prefix}{}.py", module.replace('.', "/"));
    let Some((text, via)) = read_named(files.read(cwd, &settings), &settings, out) else {
        return;
    };
    let Some(line) = text
        .lines()
        .find(|l| l.trim_start().starts_with("STATIC_ROOT") && l.contains('='))
    else {
        return;
    };
    let expr = line.split_once('=').map_or("", |(_, v)| v).trim();
    let expr = expr.split(" #").next().unwrap_or(expr).trim();
    let base = if dir == "." { "." } else { dir };
    let folder = if let Some(Literal::Plain(s)) = string_literal(expr) {
        Some(s)
    } else {
        let words: Vec<&str> = expr.split('/').map(str::trim).collect();
        match words.as_slice() {
            ["BASE_DIR"] => Some(base.to_owned()),
            ["Path.home()"] => Some("~".to_owned()),
            ["BASE_DIR", rest @ ..] => rest
                .iter()
                .map(|w| match string_literal(w) {
                    Some(Literal::Plain(s)) => Some(s),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .map(|parts| format!("{base}/{}", parts.join("/"))),
            _ => None,
        }
    };
    match folder {
        Some(folder) => out.push(Ran::Script(
            match folder.strip_prefix('~') {
                Some(rest) => format!("rm -rf -- ~{}", shell::shell_quote(rest)),
                None => format!("rm -rf -- {}", shell::shell_quote(&folder)),
            },
            format!("`STATIC_ROOT` in {via}, which `collectstatic --clear` empties"),
            None,
        )),
        None => out.push(Ran::Finding(super::super::finding::Finding::ask(
            "guard:computed-command",
            format!(
                "runs `collectstatic --clear`, which empties `STATIC_ROOT`, and {via} computes it (`{}`)",
                crate::base::text::one_line(expr, 80)
            ),
            "Set `STATIC_ROOT` to a folder inside the project, or ask the user.",
        ))),
    }
}

/// Whether the relative path `path` stays inside the folder it is relative to.
fn inside(path: &str) -> bool {
    if path.starts_with(['/', '~', '$']) {
        return false;
    }
    let normal = normalize(path);
    normal != ".." && !normal.starts_with("../") && normal != "." && !normal.is_empty()
}

/// The config files `emptier` reads, as the command names them, that exist.
fn config_files(
    emptier: &Emptier,
    args: &[String],
    root: Option<&str>,
    cwd: &Cwd,
    files: &View,
) -> Vec<String> {
    let given: Vec<String> = shell::option_values(args, emptier.config_short, emptier.config_long)
        .into_iter()
        .flat_map(|v| v.split(','))
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
        .take(4)
        .collect();
    if !given.is_empty() {
        return given;
    }
    let mut found = Vec::new();
    for name in emptier.configs {
        let name = match root {
            Some(root) => format!("{root}/{name}"),
            None => (*name).to_owned(),
        };
        if emptier.format == Format::Js {
            for ending in JS_ENDINGS {
                let file = format!("{name}{ending}");
                if files.is_file(cwd, &file) {
                    found.push(file);
                }
            }
        } else if files.is_file(cwd, &name) {
            found.push(name);
            // Cargo reads the first of its config files it finds; Hugo and Zola theirs.
            break;
        }
    }
    found
}

/// The folder a config's relative paths are read from, as the command names it: the
/// config's own (`.cargo/config.toml`: the folder holding `.cargo`).
fn config_base(config: &str) -> String {
    let folder = config.rsplit_once('/').map_or("", |(d, _)| d);
    let folder = folder
        .strip_suffix(".cargo")
        .map_or(folder, |f| f.trim_end_matches('/'));
    if folder.is_empty() {
        ".".to_owned()
    } else {
        folder.to_owned()
    }
}

/// `base` joined with the relative path `path` (an absolute one, or one from the home,
/// stands as it is).
fn joined(base: &str, path: &str) -> String {
    if path.starts_with(['/', '~']) || base == "." {
        path.to_owned()
    } else {
        format!("{base}/{path}")
    }
}

/// Whether `text` switches `key` on (`clean: true`, `clean = true`, `"clean": {…}`) or
/// off (`false`), by its first setting.
fn switch_in(text: &str, key: &str, format: Format) -> Option<bool> {
    let sep = match format {
        Format::Assign => '=',
        _ => ':',
    };
    for (at, _) in text.match_indices(key) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            continue;
        }
        let rest = text[at + key.len()..].trim_start_matches(['"', '\'']);
        let Some(value) = rest.trim_start().strip_prefix(sep) else {
            continue;
        };
        let value = value.trim_start();
        return Some(!(value.starts_with("false") || value.starts_with("False")));
    }
    None
}

/// Where `key` appears as a property (`key:`, `'key':`), what follows it up to the end
/// of its value.
fn js_props<'t>(text: &'t str, key: &str) -> Vec<&'t str> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices(key) {
        if out.len() >= MAX_VALUES {
            break;
        }
        let before = text[..at].trim_end_matches(['"', '\'']).chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.') {
            continue;
        }
        let rest = text[at + key.len()..].trim_start_matches(['"', '\'']);
        let Some(value) = rest.trim_start().strip_prefix(':') else {
            continue;
        };
        out.push(expression(value));
    }
    out
}

/// The expression at the start of `text`, up to a `,`, `;`, `}` or line end outside any
/// bracket or string.
fn expression(text: &str) -> &str {
    let text = text.trim_start();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return text[..i].trim_end(),
            ')' | ']' | '}' => depth -= 1,
            ',' | ';' | '\n' if depth == 0 => return text[..i].trim_end(),
            _ => {}
        }
        if i > 4096 {
            break;
        }
    }
    text.trim_end()
}

/// The folders a JavaScript config names under `keys`, its paths relative to where the
/// tool runs (`base` is the config's folder, for `__dirname`).
fn js_values(text: &str, keys: &[&str], base: &str) -> Vec<(Folder, String)> {
    let mut out = Vec::new();
    for key in keys {
        for expr in js_props(text, key) {
            // `mode === 'lib' ? 'dist/lib' : 'dist'`: each branch.
            match ternary(expr) {
                Some((yes, no)) => {
                    out.push((js_folder(yes, text, base, 0), (*key).to_owned()));
                    out.push((js_folder(no, text, base, 0), (*key).to_owned()));
                }
                None => out.push((js_folder(expr, text, base, 0), (*key).to_owned())),
            }
        }
        // `{ outDir }`: a variable of that name.
        let short = format!("{{ {key} }}");
        let short2 = format!("{key},");
        if text.contains(&short) || text.contains(&short2) {
            out.push((js_folder(key, text, base, 0), (*key).to_owned()));
        }
    }
    out
}

/// The two branches of `COND ? A : B` at the top level of `expr`.
fn ternary(expr: &str) -> Option<(&str, &str)> {
    let parts = split_top(expr, '?');
    let [_, rest] = parts.as_slice() else {
        return None;
    };
    let branches = split_top(rest, ':');
    match branches.as_slice() {
        [yes, no] => Some((yes, no)),
        _ => None,
    }
}

/// The folder the JavaScript expression `expr` names: a string, `path.resolve(__dirname,
/// 'dist')`, `path.join(…)`, `fileURLToPath(new URL('./dist', import.meta.url))`, a
/// concatenation, a constant the file sets.
fn js_folder(expr: &str, text: &str, base: &str, depth: usize) -> Folder {
    if let Some(Literal::Plain(s)) = string_literal(expr.trim()) {
        return Folder::FromRoot(s);
    }
    match js_piece(expr, text, base, depth) {
        Some(path) => Folder::Path(path),
        None => Folder::Computed(expr.chars().take(80).collect()),
    }
}

fn js_piece(expr: &str, text: &str, base: &str, depth: usize) -> Option<String> {
    let expr = expr.trim();
    let expr = expr.strip_suffix(" as const").unwrap_or(expr).trim();
    if depth > 3 || expr.is_empty() {
        return None;
    }
    if let Some(s) = string_literal(expr) {
        return match s {
            Literal::Plain(s) => Some(s),
            Literal::Template(parts) => {
                let mut out = String::new();
                for (k, part) in parts.into_iter().enumerate() {
                    if k % 2 == 0 {
                        out.push_str(&part);
                    } else {
                        out.push_str(&js_piece(&part, text, base, depth + 1)?);
                    }
                }
                Some(out)
            }
        };
    }
    if matches!(
        expr,
        "__dirname"
            | "import.meta.dirname"
            | "process.cwd()"
            | "path.dirname(__filename)"
            | "os.path.dirname(__file__)"
            | "os.path.dirname(os.path.abspath(__file__))"
            | "os.path.abspath(os.path.dirname(__file__))"
            | "Path(__file__).parent"
            | "Path(__file__).resolve().parent"
            | "os.getcwd()"
    ) {
        return Some(base.to_owned());
    }
    // `process.env.OUT || 'dist'`, `process.env.OUT ?? 'dist'`: the variable as the
    // environment nagger shares with the agent holds it, else the fallback.
    for op in ["||", "??"] {
        if let Some((first, fallback)) = expr.split_once(op)
            && let Some(name) = first.trim().strip_prefix("process.env.")
            && name.chars().all(|c| c.is_alphanumeric() || c == '_')
        {
            return match std::env::var(name) {
                Ok(v) if !v.is_empty() => Some(v),
                _ => js_piece(fallback, text, base, depth + 1),
            };
        }
    }
    if matches!(
        expr,
        "tmpdir()" | "os.tmpdir()" | "require('os').tmpdir()" | "require(\"os\").tmpdir()"
    ) {
        return Some(std::env::temp_dir().to_string_lossy().into_owned());
    }
    if matches!(
        expr.trim_start_matches("require('os').")
            .trim_start_matches("require(\"os\").")
            .trim_start_matches("os."),
        "homedir()" | "process.env.HOME" | "process.env['HOME']" | "process.env[\"HOME\"]"
    ) || expr == "process.env.HOME"
    {
        return Some("~".to_owned());
    }
    // `a + '/dist'`.
    let sums = split_top(expr, '+');
    if sums.len() > 1 {
        let mut out = String::new();
        for part in sums {
            out.push_str(&js_piece(part, text, base, depth + 1)?);
        }
        return Some(out);
    }
    // `fileURLToPath(new URL('./dist', import.meta.url))`, `new URL('dist',
    // import.meta.url).pathname`.
    let unwrapped = expr
        .strip_prefix("fileURLToPath(")
        .and_then(|e| e.strip_suffix(')'))
        .or_else(|| expr.strip_suffix(".pathname"))
        .map(str::trim);
    if let Some(url) = unwrapped
        && let Some(args) = url
            .strip_prefix("new URL(")
            .and_then(|e| e.strip_suffix(')'))
    {
        let parts = split_top(args, ',');
        if parts.len() == 2 && parts[1].trim() == "import.meta.url" {
            let rel = js_piece(parts[0], text, base, depth + 1)?;
            return Some(joined(base, rel.trim_start_matches("./")));
        }
        return None;
    }
    // `path.resolve(…)`, `resolve(…)`, `path.join(…)`, `join(…)`, and
    // `require('path').join(…)`.
    let expr = [
        "require('path').",
        "require(\"path\").",
        "require('node:path').",
        "require(\"node:path\").",
    ]
    .iter()
    .find_map(|p| expr.strip_prefix(p))
    .unwrap_or(expr);
    if let Some(open) = expr.find('(')
        && expr.ends_with(')')
    {
        let callee = &expr[..open];
        let func = callee.rsplit('.').next().unwrap_or(callee);
        let receiver_ok = callee == func
            || callee
                .chars()
                .all(|c| c.is_alphanumeric() || c == '.' || c == '_' || c == '$')
                && !callee.starts_with('.');
        if receiver_ok && matches!(func, "resolve" | "join") {
            let args = &expr[open + 1..expr.len() - 1];
            let mut out = String::new();
            for part in split_top(args, ',') {
                let piece = js_piece(part, text, base, depth + 1)?;
                if func == "resolve" && piece.starts_with('/') || out.is_empty() {
                    out = piece;
                } else {
                    out = format!("{}/{}", out.trim_end_matches('/'), piece);
                }
            }
            return (!out.is_empty()).then_some(out);
        }
        return None;
    }
    // A constant the file sets: `const OUT = path.resolve(__dirname, 'build')`.
    if expr
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    {
        for decl in ["const ", "let ", "var "] {
            let pattern = format!("{decl}{expr}");
            for (at, _) in text.match_indices(&pattern) {
                let rest = text[at + pattern.len()..].trim_start();
                if let Some(value) = rest.strip_prefix('=')
                    && !value.starts_with('=')
                {
                    return js_piece(expression(value), text, base, depth + 1);
                }
            }
        }
    }
    None
}

/// A string literal's text: plain, or a template's literal parts and `${…}` expressions
/// in turn.
enum Literal {
    Plain(String),
    Template(Vec<String>),
}

fn string_literal(expr: &str) -> Option<Literal> {
    let first = expr.chars().next()?;
    if !matches!(first, '\'' | '"' | '`') || expr.len() < 2 || !expr.ends_with(first) {
        return None;
    }
    let inner = &expr[1..expr.len() - 1];
    if inner.contains(first) && !inner.contains('\\') {
        return None;
    }
    if first != '`' {
        return Some(Literal::Plain(inner.replace(['\\'], "")));
    }
    let mut parts = Vec::new();
    let mut rest = inner;
    while let Some(open) = rest.find("${") {
        parts.push(rest[..open].to_owned());
        let close = rest[open..].find('}')? + open;
        parts.push(rest[open + 2..close].to_owned());
        rest = &rest[close + 1..];
    }
    parts.push(rest.to_owned());
    Some(Literal::Template(parts))
}

/// `text` split at `sep` outside brackets and strings.
fn split_top(text: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(text[start..i].trim());
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(text[start..].trim());
    out
}

/// The folders `key: value` (`sep` `:`) or `key = value` (`=`) lines name, relative to
/// `base`. A value that is not a plain string (`!ENV [SITE_DIR]`, `os.path.join(…)`) is
/// computed.
fn line_values(text: &str, keys: &[&str], sep: char, base: &str) -> Vec<(Folder, String)> {
    let mut out = Vec::new();
    for line in text.lines().take(4000) {
        let trimmed = line.trim_start();
        for key in keys {
            let Some(rest) = trimmed.strip_prefix(key) else {
                continue;
            };
            let rest = rest.trim_start_matches(['"', '\'']);
            let Some(value) = rest.trim_start().strip_prefix(sep) else {
                continue;
            };
            let value = value.trim();
            let value = match value.find(" #") {
                Some(k) => value[..k].trim_end(),
                None if value.starts_with('#') => "",
                None => value,
            };
            if value.is_empty() || out.len() >= MAX_VALUES {
                continue;
            }
            let plain = match string_literal(value) {
                Some(Literal::Plain(s)) => Some(s),
                Some(Literal::Template(_)) => None,
                None if sep == ':'
                    && !value.starts_with(['!', '[', '{', '&', '*', '$', '%', '|', '>']) =>
                {
                    Some(value.to_owned())
                }
                // MkDocs' `!ENV [SITE_DIR, 'site']`: the variable, else the default.
                None if value.starts_with("!ENV") => env_tag(value),
                None => None,
            };
            out.push((
                match plain {
                    Some(p) => Folder::Path(joined(base, &p)),
                    // Python settings (`os.path.join(os.path.dirname(__file__), 'out')`).
                    None => match js_piece(value, text, base, 0) {
                        Some(p) if sep == '=' => Folder::Path(p),
                        _ => Folder::Computed(value.chars().take(80).collect()),
                    },
                },
                (*key).to_owned(),
            ));
        }
    }
    out
}

/// The value of YAML's `!ENV NAME` or `!ENV [NAME, …, 'default']`: the first variable
/// the environment nagger shares with the agent holds, else the default.
fn env_tag(value: &str) -> Option<String> {
    let rest = value.strip_prefix("!ENV")?.trim();
    let items: Vec<&str> = match rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        Some(list) => list.split(',').map(str::trim).collect(),
        None => vec![rest],
    };
    let (default, names) = match items.split_last() {
        Some((last, names)) if last.starts_with(['\'', '"']) => (Some(*last), names),
        _ => (None, &items[..]),
    };
    for name in names {
        if let Ok(v) = std::env::var(name.trim_matches(['\'', '"']))
            && !v.is_empty()
        {
            return Some(v);
        }
    }
    default.map(|d| d.trim_matches(['\'', '"']).to_owned())
}

/// The folders a JSON config names under `keys`, anywhere in it (`"outputPath":
/// "dist/app"`, `"outputPath": {"base": "dist/app"}`), relative to `base`.
fn json_values(text: &str, keys: &[&str], base: &str) -> Vec<(Folder, String)> {
    let mut out = Vec::new();
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        return out;
    };
    let mut stack = vec![&json];
    let mut visited = 0;
    while let Some(value) = stack.pop() {
        visited += 1;
        if visited > 20_000 || out.len() >= MAX_VALUES {
            break;
        }
        match value {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    if keys.contains(&k.as_str()) {
                        let folder = match v {
                            serde_json::Value::String(s) => Folder::Path(joined(base, s)),
                            serde_json::Value::Object(o) => match o.get("base") {
                                Some(serde_json::Value::String(s)) => Folder::Path(joined(base, s)),
                                _ => Folder::Computed(v.to_string().chars().take(80).collect()),
                            },
                            _ => Folder::Computed(v.to_string().chars().take(80).collect()),
                        };
                        out.push((folder, k.clone()));
                    } else {
                        stack.push(v);
                    }
                }
            }
            serde_json::Value::Array(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(expr: &str, text: &str) -> Folder {
        js_folder(expr, text, ".", 0)
    }

    #[test]
    fn javascript_paths_are_worked_out_where_the_text_says_them() {
        let p = |s: &str| Folder::Path(s.to_owned());
        assert_eq!(path("'dist'", ""), Folder::FromRoot("dist".into()));
        assert_eq!(path("path.resolve(__dirname, 'dist')", ""), p("./dist"));
        assert_eq!(
            path("path.resolve(__dirname, '..', '..')", ""),
            p("./../..")
        );
        assert_eq!(path("resolve(__dirname, '/home/u')", ""), p("/home/u"));
        assert_eq!(path("join(process.cwd(), \"out\")", ""), p("./out"));
        assert_eq!(
            path("fileURLToPath(new URL('./dist', import.meta.url))", ""),
            p("dist")
        );
        assert_eq!(path("__dirname + '/../x'", ""), p("./../x"));
        assert_eq!(path("`${__dirname}/build`", ""), p("./build"));
        assert_eq!(
            path("OUT", "const OUT = path.resolve(__dirname, 'build');\n"),
            p("./build")
        );
        assert_eq!(path("require('os').homedir()", ""), p("~"));
        assert_eq!(path("os.homedir() + '/x'", ""), p("~/x"));
        for computed in ["process.env.OUT", "`${process.env.OUT}`", "dirs[0]"] {
            assert!(
                matches!(path(computed, ""), Folder::Computed(_)),
                "{computed}"
            );
        }
    }

    #[test]
    fn config_keys_are_found_in_each_format() {
        let js = "export default defineConfig({\n  build: { outDir: homedir(), emptyOutDir: true },\n});\n";
        assert_eq!(
            js_values(js, &["outDir"], "."),
            [(Folder::Path("~".into()), "outDir".into())]
        );
        assert_eq!(switch_in(js, "emptyOutDir", Format::Js), Some(true));
        let yaml = "site_name: Acme\nsite_dir: ../home # out\n";
        assert_eq!(
            line_values(yaml, &["site_dir"], ':', "docs"),
            [(Folder::Path("docs/../home".into()), "site_dir".into())]
        );
        let toml = "[build]\ntarget-dir = \"/home/u\"\n";
        assert_eq!(
            line_values(toml, &["target-dir"], '=', "."),
            [(Folder::Path("/home/u".into()), "target-dir".into())]
        );
        let json = r#"{"projects":{"a":{"architect":{"build":{"options":{"outputPath":{"base":"../.."}}}}}}}"#;
        assert_eq!(
            json_values(json, &["outputPath"], "."),
            [(Folder::Path("../..".into()), "outputPath".into())]
        );
        assert_eq!(
            line_values(
                "OUTPUT_PATH = os.path.join(os.path.dirname(__file__), 'output')\n",
                &["OUTPUT_PATH"],
                '=',
                "site"
            ),
            [(Folder::Path("site/output".into()), "OUTPUT_PATH".into())]
        );
        assert_eq!(
            line_values(
                "site_dir: !ENV [NAGGER_TEST_UNSET_SITE_DIR, 'public']\n",
                &["site_dir"],
                ':',
                "."
            ),
            [(Folder::Path("public".into()), "site_dir".into())]
        );
        assert_eq!(
            js_values(
                "export default { distDir: process.env.NAGGER_TEST_UNSET_DIST || '.next' }\n",
                &["distDir"],
                "."
            ),
            [(Folder::Path(".next".into()), "distDir".into())]
        );
        assert_eq!(
            js_values(
                "export default { outDir: opts.watch ? 'dist-dev' : 'dist' }\n",
                &["outDir"],
                "."
            ),
            [
                (Folder::FromRoot("dist-dev".into()), "outDir".into()),
                (Folder::FromRoot("dist".into()), "outDir".into())
            ]
        );
        assert!(inside("dist") && inside("./build/x"));
        assert!(!inside("..") && !inside("../x") && !inside("/tmp") && !inside("."));
        assert_eq!(config_base(".cargo/config.toml"), ".");
        assert_eq!(config_base("web/.cargo/config.toml"), "web");
    }
}
