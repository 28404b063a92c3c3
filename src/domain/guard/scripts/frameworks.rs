//! Code a framework runs by its own conventions, which no command line names: Rails'
//! and Rake's tasks (`lib/tasks/*.rake`), migrations (`db/migrate/*.rb`), seeds and
//! boot files; Laravel's (`php artisan`) migrations, seeders, console commands and
//! providers; Ecto's migrations and seeds and Mix's own tasks; Jekyll's plugins;
//! PHPUnit's bootstrap; Terraform's external data sources, local-exec provisioners and
//! local files. A file git keeps unchanged is the project's own and left to it; a changed
//! one is the agent's, read as the code it is.

use super::super::finding::{Finding, operands};
use super::super::protect::Cwd;
use super::super::shell::{self, SimpleCommand};
use super::files::{Content, Ran, View, read_named};

/// Most entries listed in one folder.
const MAX_LISTED: usize = 256;
/// Most changed files read for one command; past it the rest is asked about.
const MAX_READ: usize = 32;

/// How a framework's file is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lang {
    Ruby,
    Php,
    Perl,
    Elixir,
    Terraform,
}

/// Pushes onto `out` what the changed files `command` runs by convention do.
pub(super) fn runs(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let name = command.name();
    let args = command.args();
    let ops = operands(args);
    let task = ops.first().copied().unwrap_or("");
    // Where what the files run runs, when not where the command does (`-chdir=infra`).
    let mut run_in: Option<Cwd> = None;
    // Variables the command line sets (`terraform plan -var env=x`, `-var-file`).
    let own_values = args.iter().any(|a| a.starts_with("-var"));
    // (folder or file, ending, language)
    let mut wanted: Vec<(String, &str, Lang)> = Vec::new();
    let mut want = |path: &str, ending: &'static str, lang: Lang| {
        wanted.push((path.to_owned(), ending, lang));
    };
    match name {
        "rails" | "rake" => {
            for folder in ["lib/tasks", "config/initializers", "config/environments"] {
                want(folder, ".rake", Lang::Ruby);
                want(folder, ".rb", Lang::Ruby);
            }
            for file in [
                "config/application.rb",
                "config/environment.rb",
                "config/boot.rb",
            ] {
                want(file, "", Lang::Ruby);
            }
            if task.starts_with("db:") {
                if [
                    "db:migrate",
                    "db:rollback",
                    "db:setup",
                    "db:prepare",
                    "db:reset",
                    "db:redo",
                    "db:up",
                    "db:down",
                    "db:schema:load",
                ]
                .iter()
                .any(|t| task.starts_with(t))
                {
                    want("db/migrate", ".rb", Lang::Ruby);
                }
                if [
                    "db:seed",
                    "db:setup",
                    "db:reset",
                    "db:prepare",
                    "db:replant",
                ]
                .iter()
                .any(|t| task.starts_with(t))
                {
                    want("db/seeds.rb", "", Lang::Ruby);
                    want("db/seeds", ".rb", Lang::Ruby);
                }
            }
            // `rails runner script.rb`.
            if matches!(task, "runner" | "r")
                && let Some(file) = ops.get(1).filter(|f| has_ending(f, "rb"))
            {
                want(file, "", Lang::Ruby);
            }
        }
        "php" | "artisan"
            if name == "artisan" || ops.first().is_some_and(|a| a.ends_with("artisan")) =>
        {
            let command = ops.get(usize::from(name == "php")).copied().unwrap_or("");
            for folder in ["app/Console/Commands", "app/Providers", "config"] {
                want(folder, ".php", Lang::Php);
            }
            for file in ["bootstrap/app.php", "routes/console.php"] {
                want(file, "", Lang::Php);
            }
            if command.starts_with("migrate") {
                want("database/migrations", ".php", Lang::Php);
            }
            if command.starts_with("db:seed")
                || command.starts_with("migrate") && args.iter().any(|a| a == "--seed")
            {
                want("database/seeders", ".php", Lang::Php);
            }
        }
        "phpunit" | "pest" => {
            for config in ["phpunit.xml", "phpunit.xml.dist"] {
                if let Content::Text { text, .. } = files.read_unjudged(cwd, config)
                    && let Some(boot) = xml_attribute(&text, "bootstrap")
                {
                    want(&boot, "", Lang::Php);
                }
            }
            want("tests/bootstrap.php", "", Lang::Php);
            for boot in shell::option_values(args, &[], &["--bootstrap"]) {
                want(boot, "", Lang::Php);
            }
        }
        "mix" => {
            want("lib/mix/tasks", ".ex", Lang::Elixir);
            want("config", ".exs", Lang::Elixir);
            if task.starts_with("ecto.") {
                if matches!(
                    task,
                    "ecto.migrate" | "ecto.rollback" | "ecto.reset" | "ecto.setup"
                ) {
                    want("priv/repo/migrations", ".exs", Lang::Elixir);
                }
                if matches!(task, "ecto.reset" | "ecto.setup" | "ecto.seed") {
                    want("priv/repo/seeds.exs", "", Lang::Elixir);
                }
            }
            if task == "run"
                && let Some(file) = ops.get(1).filter(|f| has_ending(f, "exs"))
            {
                want(file, "", Lang::Elixir);
            }
        }
        // `prove`, `prove -r t`: Perl's tests, `t/*.t` unless named (and the folders
        // below with `-r`); `perl -MTest::Harness -e 'runtests @ARGV' t/a.t`.
        "prove" | "perl"
            if name == "prove" || args.iter().any(|a| a.starts_with("-MTest::Harness")) =>
        {
            let named: Vec<&str> = if name == "perl" {
                let code_at = args.iter().position(|a| a == "-e").map_or(0, |k| k + 2);
                operands(&args[code_at.min(args.len())..])
            } else {
                ops.iter()
                    .copied()
                    .filter(|o| !o.starts_with('-'))
                    .collect()
            };
            let deep = name == "prove" && shell::has_flag(args, "r", &["recurse"]);
            let mut folders: Vec<String> = Vec::new();
            if named.is_empty() && name == "prove" {
                folders.push("t".to_owned());
            }
            for n in named {
                if has_ending(n, "t") || has_ending(n, "pl") {
                    want(n, "", Lang::Perl);
                } else {
                    folders.push(n.trim_end_matches('/').to_owned());
                }
            }
            let mut k = 0;
            while k < folders.len() && folders.len() < 32 {
                let folder = folders[k].clone();
                want(&folder, ".t", Lang::Perl);
                if deep {
                    for entry in files.list(cwd, &folder, MAX_LISTED) {
                        let sub = format!("{folder}/{entry}");
                        if !entry.starts_with('.') && files.is_dir(cwd, &sub) {
                            folders.push(sub);
                        }
                    }
                }
                k += 1;
            }
        }
        "jekyll" if matches!(task, "build" | "b" | "serve" | "s" | "server") => {
            want("_plugins", ".rb", Lang::Ruby);
        }
        "terraform" | "tofu"
            if matches!(
                task,
                "plan" | "apply" | "destroy" | "refresh" | "import" | "console" | "test"
            ) =>
        {
            let dir = args
                .iter()
                .find_map(|a| a.strip_prefix("-chdir="))
                .unwrap_or(".");
            if dir != "." {
                run_in = Some(
                    super::super::protect::resolve(cwd, dir).map_or(Cwd::Unknown, |d| {
                        Cwd::Known(super::super::paths::normalize(&d))
                    }),
                );
            }
            want(dir, ".tf", Lang::Terraform);
            // Local modules (`source = "../modules/x"`), whose data sources and
            // provisioners run as the root's do.
            let mut modules: Vec<String> = vec![dir.to_owned()];
            let mut k = 0;
            while k < modules.len() && modules.len() < 16 {
                let folder = modules[k].clone();
                for entry in files.list(cwd, &folder, MAX_LISTED) {
                    if !has_ending(&entry, "tf") {
                        continue;
                    }
                    let path = if folder == "." {
                        entry
                    } else {
                        format!("{folder}/{entry}")
                    };
                    let Content::Text { text, .. } = files.read_unjudged(cwd, &path) else {
                        continue;
                    };
                    for value in assigned(&text, "source") {
                        let Some(source) = string_literal(value) else {
                            continue;
                        };
                        if source.starts_with("./") || source.starts_with("../") {
                            let module =
                                super::super::paths::normalize(&format!("{folder}/{source}"));
                            if !modules.contains(&module) {
                                modules.push(module);
                            }
                        }
                    }
                }
                k += 1;
            }
            for module in modules.into_iter().skip(1) {
                want(&module, ".tf", Lang::Terraform);
            }
        }
        _ => return,
    }
    let mut read = 0;
    for (path, ending, lang) in wanted {
        let found: Vec<String> = if ending.is_empty() {
            vec![path]
        } else {
            let mut listed: Vec<String> = files
                .list(cwd, &path, MAX_LISTED)
                .into_iter()
                .filter(|f| f.ends_with(ending))
                .map(|f| {
                    if path == "." {
                        f
                    } else {
                        format!("{path}/{f}")
                    }
                })
                .collect();
            listed.sort();
            listed
        };
        for file in found {
            if !files.is_file(cwd, &file) || files.settled(cwd, &file) {
                continue;
            }
            read += 1;
            if read > MAX_READ {
                out.push(Ran::Finding(Finding::ask(
                    "guard:code-unknown",
                    format!(
                        "runs `{name}`, which loads more files changed since git last kept \
                         them than nagger reads"
                    ),
                    "Commit or undo some of the changes, or ask the user.",
                )));
                return;
            }
            judged(
                &file,
                lang,
                name,
                (cwd, run_in.as_ref(), own_values),
                files,
                out,
            );
        }
    }
}

/// The changed `file`, pushed onto `out` as what it does.
fn judged(
    file: &str,
    lang: Lang,
    tool: &str,
    (cwd, run_in, own_values): (&Cwd, Option<&Cwd>, bool),
    files: &View,
    out: &mut Vec<Ran>,
) {
    // Read as the code it is: changed since git kept it, it makes what the command runs
    // the agent's own, judged as strictly.
    let Some((text, shown)) = read_named(files.read(cwd, file), file, out) else {
        return;
    };
    let via = format!("{shown}, which `{tool}` loads and which changed since git last kept it");
    match lang {
        Lang::Ruby => out.push(Ran::Code(text, "ruby".into(), via)),
        Lang::Php => out.push(Ran::Code(text, "php".into(), via)),
        Lang::Perl => out.push(Ran::Code(text, "perl".into(), via)),
        Lang::Elixir => super::buildcode::elixir_calls(&text, &via, out),
        Lang::Terraform => {
            let folder = file.rsplit_once('/').map_or(".", |(d, _)| d);
            let defaults = if own_values {
                Vec::new()
            } else {
                variable_defaults(folder, cwd, files)
            };
            terraform(&text, &via, run_in, &defaults, out);
        }
    }
}

/// Whether `name` ends with `.ending`, in any case.
fn has_ending(name: &str, ending: &str) -> bool {
    std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(ending))
}

/// The value of `attribute="…"` in an XML text.
fn xml_attribute(text: &str, attribute: &str) -> Option<String> {
    let at = text.find(&format!("{attribute}=\""))? + attribute.len() + 2;
    let end = text[at..].find('"')?;
    Some(text[at..at + end].to_owned())
}

/// What Terraform runs on this machine from a configuration: an `external` data
/// source's `program`, a `local-exec` provisioner's `command`, the file a `local_file`
/// writes. Each spelled out is judged as the command line it is; one with an
/// interpolation (`${…}`) is asked about.
/// The plain string defaults of the variables a configuration folder declares
/// (`variable "env" { default = "dev" }`), when nothing can set them otherwise: no
/// variables file (`terraform.tfvars`, `*.auto.tfvars`) in the folder and no
/// `TF_VAR_…` in the environment nagger shares with the agent.
fn variable_defaults(folder: &str, cwd: &Cwd, files: &View) -> Vec<(String, String)> {
    let listed = files.list(cwd, folder, MAX_LISTED);
    if listed
        .iter()
        .any(|f| f.ends_with(".tfvars") || f.ends_with(".tfvars.json"))
        || std::env::vars_os().any(|(k, _)| k.to_string_lossy().starts_with("TF_VAR_"))
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    for entry in listed.into_iter().filter(|f| has_ending(f, "tf")).take(32) {
        let path = if folder == "." {
            entry
        } else {
            format!("{folder}/{entry}")
        };
        let Content::Text { text, .. } = files.read_unjudged(cwd, &path) else {
            continue;
        };
        for (at, _) in text.match_indices("variable \"").take(64) {
            let rest = &text[at + "variable \"".len()..];
            let Some(end) = rest.find('"') else { continue };
            let name = &rest[..end];
            let block = &rest[end..];
            let block = &block[..block.find("\n}").unwrap_or(block.len()).min(2048)];
            if let Some(value) = assigned(block, "default").first()
                && let Some(value) = string_literal(value.trim_end_matches('}').trim())
            {
                out.push((name.to_owned(), value));
            }
        }
    }
    out
}

fn terraform(
    text: &str,
    via: &str,
    run_in: Option<&Cwd>,
    defaults: &[(String, String)],
    out: &mut Vec<Ran>,
) {
    // `${var.env}` of a variable only its default sets: that default.
    let filled;
    let text = if defaults.is_empty() {
        text
    } else {
        let mut t = text.to_owned();
        for (name, value) in defaults {
            if !value.contains("${") {
                t = t.replace(&format!("${{var.{name}}}"), value);
            }
        }
        filled = t;
        filled.as_str()
    };
    let mut asked = false;
    let mut computed = |what: &str, out: &mut Vec<Ran>| {
        if !asked {
            asked = true;
            out.push(Ran::Finding(Finding::ask(
                "guard:code-unknown",
                format!("runs {via}, whose {what} is computed as Terraform runs"),
                "Spell it out, or run Terraform yourself in your terminal.",
            )));
        }
    };
    for (key, kind) in [
        ("program", Kind::Words),
        ("command", Kind::Line),
        ("filename", Kind::Written),
    ] {
        for value in assigned(text, key).into_iter().take(32) {
            match kind {
                Kind::Words => match list_literals(value) {
                    Some(words) if !words.is_empty() => out.push(Ran::Script(
                        words
                            .iter()
                            .map(|w| shell::shell_quote(w))
                            .collect::<Vec<_>>()
                            .join(" "),
                        via.to_owned(),
                        run_in.cloned(),
                    )),
                    _ => computed("external program", out),
                },
                Kind::Line => match string_literal(value) {
                    Some(line) => out.push(Ran::Script(line, via.to_owned(), run_in.cloned())),
                    None => computed("local-exec command", out),
                },
                Kind::Written => {
                    // `${path.module}`: the configuration's folder, where Terraform runs.
                    let value = value
                        .replace("${path.module}", ".")
                        .replace("${path.root}", ".")
                        .replace("${path.cwd}", ".");
                    match string_literal(&value) {
                        Some(path) => out.push(Ran::Script(
                            format!(": > {}", shell::shell_quote(&path)),
                            via.to_owned(),
                            run_in.cloned(),
                        )),
                        None => computed("local file's name", out),
                    }
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Words,
    Line,
    Written,
}

/// The values assigned to `key` (`key = …`) in a configuration, each up to the end of
/// its value (a bracketed list across lines, a heredoc).
fn assigned<'t>(text: &'t str, key: &str) -> Vec<&'t str> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices(key) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '"') {
            continue;
        }
        let rest = text[at + key.len()..].trim_start_matches([' ', '\t']);
        let Some(value) = rest.strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start_matches([' ', '\t']);
        let end = if value.starts_with('[') {
            value.find(']').map_or(value.len(), |e| e + 1)
        } else if let Some(marker) = value.strip_prefix("<<") {
            let marker = marker.trim_start_matches('-');
            let tag: String = marker
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let body = value.find('\n').map_or(value.len(), |n| n + 1);
            value[body..]
                .find(&format!("\n{tag}"))
                .map_or(value.len(), |e| body + e)
        } else {
            value.find('\n').unwrap_or(value.len())
        };
        out.push(value[..end].trim());
    }
    out
}

/// A plain string (`"…"` without interpolation), or a heredoc's body.
fn string_literal(value: &str) -> Option<String> {
    if let Some(rest) = value.strip_prefix("<<") {
        let body = rest.split_once('\n')?.1;
        return (!body.contains("${")).then(|| body.to_owned());
    }
    let inner = value.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains("${") && !inner.contains('"')).then(|| inner.replace("\\\"", "\""))
}

/// The strings of a list of plain strings (`["sh", "-c", "…"]`).
fn list_literals(value: &str) -> Option<Vec<String>> {
    let inner = value.strip_prefix('[')?.strip_suffix(']')?;
    let mut out = Vec::new();
    let mut rest = inner.trim();
    while !rest.is_empty() {
        let body = rest.strip_prefix('"')?;
        let end = body.find('"')?;
        let word = &body[..end];
        if word.contains("${") {
            return None;
        }
        out.push(word.to_owned());
        rest = body[end + 1..]
            .trim_start()
            .trim_start_matches(',')
            .trim_start();
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terraform_values_are_read_as_written() {
        let tf = "data \"external\" \"x\" {\n  program = [\"sh\", \"-c\",\n    \"rm -rf ~/data; echo {}\"]\n}\nresource \"null_resource\" \"y\" {\n  provisioner \"local-exec\" {\n    command = \"make clean\"\n  }\n}\nresource \"local_file\" \"z\" {\n  filename = \"${path.module}/../.claude/settings.json\"\n}\n";
        assert_eq!(
            assigned(tf, "program")
                .into_iter()
                .map(list_literals)
                .collect::<Vec<_>>(),
            [Some(vec![
                "sh".to_owned(),
                "-c".to_owned(),
                "rm -rf ~/data; echo {}".to_owned()
            ])]
        );
        assert_eq!(
            assigned(tf, "command")
                .into_iter()
                .map(string_literal)
                .collect::<Vec<_>>(),
            [Some("make clean".to_owned())]
        );
        assert_eq!(assigned(tf, "filename").len(), 1);
        assert_eq!(list_literals("[\"a\", \"${var.x}\"]"), None);
        assert_eq!(
            xml_attribute("<phpunit bootstrap=\"tests/boot.php\">", "bootstrap").as_deref(),
            Some("tests/boot.php")
        );
    }
}
