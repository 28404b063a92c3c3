//! Build files in languages the guard does not read whole, which a build tool runs as
//! code: Gradle's (`build.gradle.kts`), Maven's `pom.xml`, CMake's `CMakeLists.txt`,
//! Bundler's `Gemfile` and Rake's `Rakefile`, MSBuild's project files (`*.csproj`,
//! `Directory.Build.props`), Mix's `mix.exs` (and Elixir given with `-e`) and Meson's
//! `meson.build`. A file git keeps unchanged is the
//! project's own and left to it; a changed one is the agent's, and its calls that run a
//! command or change a file are judged: a command spelled out in the file is judged as the
//! command line it is (`commandLine("npm", "ci")`, `execute_process(COMMAND …)`,
//! `<Exec Command="…">`, `sh "rspec"`, `cmd ls` in an alias), a file deleted or written by
//! a name spelled out as the shell line that deletes or writes it, and any other such
//! call (a name or a command computed as the build runs) is asked about.

use super::super::finding::Finding;
use super::super::protect::Cwd;
use super::super::shell::{self, SimpleCommand};
use super::files::{Content, Ran, View};

/// Most calls of one file judged.
const MAX_CALLS: usize = 64;

/// A build file's language.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lang {
    /// Gradle's Kotlin or Groovy.
    Gradle,
    Maven,
    Cmake,
    Ruby,
    MsBuild,
    Elixir,
    Meson,
}

/// What one call of a build file does.
enum Call {
    /// A command line spelled out.
    Line(String),
    /// A call that runs or changes what the file computes (the call, as written).
    Computed(String),
}

/// The build files `command` runs, pushed onto `out` as what their changed code does.
pub(super) fn runs(command: &SimpleCommand, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    let args = command.args();
    let name = command.name();
    let base = name.rsplit('/').next().unwrap_or(name);
    let value_of = |flags: &[&str]| {
        args.iter()
            .position(|a| flags.contains(&a.as_str()))
            .and_then(|k| args.get(k + 1))
            .map(String::as_str)
    };
    let dir =
        |d: Option<&str>| d.map_or_else(String::new, |d| format!("{}/", d.trim_end_matches('/')));
    // `mix run -e CODE`, `elixir -e CODE`: Elixir on the line, read for the same calls.
    if matches!(base, "mix" | "elixir" | "iex")
        && let Some(code) = args
            .iter()
            .position(|a| a == "-e" || a == "--eval")
            .and_then(|k| args.get(k + 1))
    {
        let via = format!("`{base} -e` code");
        push_calls(elixir(code), &via, &via, out);
    }
    if matches!(base, "mvn" | "mvnw" | "gradle" | "gradlew")
        && let Some((file, option)) = agent_options(base, cwd, files)
    {
        out.push(Ran::Finding(Finding::ask(
            "guard:code-unknown",
            format!(
                "runs `{base}`, whose `{file}` (changed since git last kept it) loads code \
                 into it (`{option}`) nagger cannot read"
            ),
            "Undo that change, or run the build yourself in your terminal.",
        )));
    }
    let mut found: Vec<(String, Lang)> = Vec::new();
    match base {
        "gradle" | "gradlew" => {
            let at = dir(value_of(&["-p", "--project-dir"]));
            for f in [
                "build.gradle",
                "build.gradle.kts",
                "settings.gradle",
                "settings.gradle.kts",
            ] {
                found.push((format!("{at}{f}"), Lang::Gradle));
            }
        }
        "mvn" | "mvnw" => {
            let pom = match value_of(&["-f", "--file"]) {
                Some(f) if extension(f).is_some_and(|e| e.eq_ignore_ascii_case("xml")) => {
                    f.to_owned()
                }
                other => format!("{}pom.xml", dir(other)),
            };
            found.push((pom, Lang::Maven));
        }
        "cmake" if value_of(&["-P"]).is_some() => {
            // `cmake -P script.cmake`: the script, run as CMake code.
            found.extend(value_of(&["-P"]).map(|f| (f.to_owned(), Lang::Cmake)));
        }
        "cmake"
            if args
                .iter()
                .any(|a| a == "--preset" || a.starts_with("--preset=")) =>
        {
            // `cmake --preset dev`: the presets' toolchain files run as CMake code, and
            // the source's `CMakeLists.txt`.
            found.push(("CMakeLists.txt".into(), Lang::Cmake));
            for presets in ["CMakePresets.json", "CMakeUserPresets.json"] {
                if let Content::Text { text, .. } = files.read_unjudged(cwd, presets)
                    && let Ok(json) = serde_json::from_str::<serde_json::Value>(&text)
                {
                    for preset in json["configurePresets"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .take(32)
                    {
                        if let Some(tc) = preset["toolchainFile"].as_str() {
                            let tc = tc.replace("${sourceDir}/", "").replace("${sourceDir}", ".");
                            found.push((tc, Lang::Cmake));
                        }
                    }
                }
            }
        }
        "cmake" => {
            // `cmake -S src -B build`, `cmake ..`, `cmake .`; `cmake --build` runs the
            // custom commands the configured source set up.
            let source = value_of(&["-S"])
                .or_else(|| {
                    args.iter()
                        .map(String::as_str)
                        .find(|a| !a.starts_with('-'))
                })
                .filter(|_| {
                    !args
                        .iter()
                        .any(|a| a == "--build" || a == "-E" || a == "-P")
                });
            if let Some(source) = source {
                found.push((format!("{}CMakeLists.txt", dir(Some(source))), Lang::Cmake));
            }
        }
        "bundle" | "bundler" => {
            found.push(("Gemfile".into(), Lang::Ruby));
            if args.iter().any(|a| a == "rake") {
                found.push(("Rakefile".into(), Lang::Ruby));
            }
        }
        "rake" => {
            for f in ["Rakefile", "rakefile", "Rakefile.rb"] {
                found.push((f.into(), Lang::Ruby));
            }
        }
        "dotnet" | "msbuild"
            if base == "msbuild"
                || args.first().is_some_and(|s| {
                    matches!(
                        s.as_str(),
                        "build" | "test" | "run" | "restore" | "publish" | "pack" | "msbuild"
                    )
                }) =>
        {
            let at = args
                .iter()
                .skip(1)
                .find(|a| !a.starts_with('-'))
                .map(String::as_str);
            let folder = match at {
                Some(p)
                    if extension(p)
                        .is_some_and(|e| e.ends_with("proj") || e.eq_ignore_ascii_case("sln")) =>
                {
                    p.rsplit_once('/')
                        .map_or(String::new(), |(d, _)| format!("{d}/"))
                }
                other => dir(other),
            };
            let listed = files.list(cwd, if folder.is_empty() { "." } else { &folder }, 256);
            for f in listed {
                if [".csproj", ".fsproj", ".vbproj", ".props", ".targets"]
                    .iter()
                    .any(|e| f.ends_with(e))
                {
                    found.push((format!("{folder}{f}"), Lang::MsBuild));
                }
            }
            for f in ["Directory.Build.props", "Directory.Build.targets"] {
                found.push((f.into(), Lang::MsBuild));
            }
        }
        "mix" => found.push(("mix.exs".into(), Lang::Elixir)),
        "meson" => {
            // `meson setup build [source]`: the source folder's `meson.build`.
            let words: Vec<&str> = args
                .iter()
                .map(String::as_str)
                .filter(|a| !a.starts_with('-'))
                .collect();
            let source = match words.as_slice() {
                ["setup", _, source, ..] => Some(*source),
                _ => None,
            };
            found.push((format!("{}meson.build", dir(source)), Lang::Meson));
        }
        _ => return,
    }
    found.dedup();
    for (file, lang) in found.into_iter().take(16) {
        judged(&file, lang, base, cwd, files, out);
    }
}

/// A changed file of the build's own settings that loads code into the build: a Java
/// agent or another JVM's options (`.mvn/jvm.config`, `org.gradle.jvmargs` in
/// `gradle.properties`), Maven's core extensions (`.mvn/extensions.xml`), an init script
/// (`gradle/init.d`): the file and what it says.
fn agent_options(tool: &str, cwd: &Cwd, files: &View) -> Option<(String, String)> {
    let candidates: &[&str] = if tool.starts_with("mvn") {
        &[
            ".mvn/jvm.config",
            ".mvn/maven.config",
            ".mvn/extensions.xml",
        ]
    } else {
        &[
            "gradle.properties",
            "gradle/wrapper/gradle-wrapper.properties",
        ]
    };
    for file in candidates {
        if !files.is_file(cwd, file) || files.settled(cwd, file) {
            continue;
        }
        let Content::Text { text, .. } = files.read_unjudged(cwd, file) else {
            continue;
        };
        let said = [
            "-javaagent",
            "-agentpath",
            "-agentlib",
            "-Xbootclasspath",
            "<extension>",
            "distributionUrl=file",
        ]
        .iter()
        .find(|w| text.contains(**w));
        if let Some(said) = said {
            return Some(((*file).to_owned(), (*said).to_owned()));
        }
    }
    None
}

/// The extension of the file `path` names.
fn extension(path: &str) -> Option<&str> {
    std::path::Path::new(path).extension()?.to_str()
}

/// `file`, when it changed since git last kept it: its calls, pushed onto `out`.
fn judged(file: &str, lang: Lang, tool: &str, cwd: &Cwd, files: &View, out: &mut Vec<Ran>) {
    if !files.is_file(cwd, file) || files.settled(cwd, file) {
        return;
    }
    let text = match files.read_unjudged(cwd, file) {
        Content::Text { text, .. } => text,
        Content::Hidden => {
            out.push(Ran::Finding(Finding::ask(
                "guard:code-unknown",
                format!(
                    "runs `{file}`, which this command line writes with contents nagger cannot see"
                ),
                "Write the file in one call, read it, and run the build in the next.",
            )));
            return;
        }
        _ => return,
    };
    let via =
        format!("`{file}`, which `{tool}` runs as code and which changed since git last kept it");
    push_calls(
        calls(&text, lang),
        &via,
        &format!("`{file}`, which changed since git last kept it"),
        out,
    );
}

/// What `calls` of code run through `via` (named `what` in a question) do, pushed onto
/// `out`: each command line to be judged, and one question for what is computed.
fn push_calls(calls: Vec<Call>, via: &str, what: &str, out: &mut Vec<Ran>) {
    let mut asked = false;
    for call in calls.into_iter().take(MAX_CALLS) {
        match call {
            Call::Line(line) => out.push(Ran::Script(line, via.to_owned(), None)),
            Call::Computed(call) if !asked => {
                asked = true;
                let call = crate::base::text::one_line(&call, 120);
                out.push(Ran::Finding(Finding::ask(
                    "guard:code-unknown",
                    format!(
                        "runs {what}, whose `{call}` runs a command or changes files it \
                         computes as it runs"
                    ),
                    "Spell the command or path out, or run it yourself in your terminal.",
                )));
            }
            Call::Computed(_) => {}
        }
    }
}

/// Elixir `text` (run through `via`), pushed onto `out` as what its calls do.
pub(super) fn elixir_calls(text: &str, via: &str, out: &mut Vec<Ran>) {
    push_calls(elixir(text), via, via, out);
}

/// The calls of `text` that run commands or change files.
fn calls(text: &str, lang: Lang) -> Vec<Call> {
    match lang {
        Lang::Gradle => gradle(text),
        Lang::Maven => maven(text),
        Lang::Cmake => cmake(text),
        Lang::Ruby => ruby(text),
        Lang::MsBuild => msbuild(text),
        Lang::Elixir => elixir(text),
        Lang::Meson => meson(text),
    }
}

/// The string literals of a call's arguments, when every argument is one (`"a", 'b'`).
fn literals(args: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for part in split_top(args) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let quote = part.chars().next()?;
        if !matches!(quote, '"' | '\'') || !part.ends_with(quote) || part.len() < 2 {
            return None;
        }
        let inner = &part[1..part.len() - 1];
        if inner.contains(['$', '#', '\\']) {
            return None;
        }
        out.push(inner.to_owned());
    }
    Some(out)
}

/// `args` split at its commas outside quotes and brackets.
fn split_top(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut from) = (0i32, None, 0);
    for (k, c) in args.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(&args[from..k]);
                from = k + 1;
            }
            _ => {}
        }
    }
    out.push(&args[from..]);
    out
}

/// The text between the parentheses that open at `open` (the index of `(`).
fn inside(text: &str, open: usize) -> &str {
    let mut depth = 0;
    let mut quote = None;
    for (k, c) in text[open..].char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return &text[open + 1..open + k];
                }
            }
            _ => {}
        }
    }
    &text[open + 1..]
}

/// Every place `word` stands in `text` as a word of its own.
fn places<'t>(text: &'t str, word: &'t str) -> impl Iterator<Item = usize> + 't {
    text.match_indices(word)
        .map(|(at, _)| at)
        .filter(move |&at| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
}

/// `words` as a shell line: each word as it is when the shell reads it so, else quoted.
fn quoted(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_./:=@%+-,".contains(&b));
            if plain {
                w.clone()
            } else {
                shell::shell_quote(w)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Gradle: `commandLine(…)`/`commandLine …`, `exec(…)`, `delete(…)`, and the JVM's ways
/// of running and deleting (`ProcessBuilder`, `Runtime.getRuntime()`, `.execute()`,
/// `deleteRecursively()`, `Files.delete`, `writeText`).
fn gradle(text: &str) -> Vec<Call> {
    let mut out = Vec::new();
    for (word, delete) in [("commandLine", false), ("delete", true), ("args", false)] {
        for at in places(text, word) {
            let rest = text[at + word.len()..].trim_start();
            let args = if rest.starts_with('(') {
                let open = text.len() - rest.len();
                inside(text, open).to_owned()
            } else {
                rest.lines().next().unwrap_or("").to_owned()
            };
            if word == "args" {
                continue;
            }
            let args = gradle_known(&args);
            match literals(&args) {
                Some(words) if !words.is_empty() && delete => {
                    out.push(Call::Line(format!("rm -rf -- {}", quoted(&words))));
                }
                Some(words) if !words.is_empty() => out.push(Call::Line(quoted(&words))),
                _ => out.push(Call::Computed(format!("{word} {}", args.trim()))),
            }
        }
    }
    for what in [
        "ProcessBuilder",
        "Runtime.getRuntime",
        ".execute()",
        "deleteRecursively",
        "Files.delete",
        "Files.write",
        "writeText",
        "writeBytes",
        ".delete()",
        "ant.delete",
        "ant.exec",
    ] {
        if text.contains(what) {
            out.push(Call::Computed(what.to_owned()));
        }
    }
    out
}

/// Gradle's spellings of its own folders as the literals they stand for:
/// `layout.buildDirectory.dir("tmp")` is `"build/tmp"`, `buildDir` is `"build"`,
/// `file("out")` is `"out"`.
fn gradle_known(args: &str) -> String {
    let mut s = args.to_owned();
    for (dir_call, prefix) in [
        ("rootProject.layout.buildDirectory.dir(", "build/"),
        ("layout.buildDirectory.dir(", "build/"),
        ("layout.buildDirectory.file(", "build/"),
        ("layout.projectDirectory.dir(", ""),
        ("layout.projectDirectory.file(", ""),
        ("project.file(", ""),
        ("file(", ""),
    ] {
        while let Some(at) = s.find(dir_call) {
            let open = at + dir_call.len() - 1;
            let inner = inside(&s, open).to_owned();
            let end = open + inner.len() + 2;
            let Some(words) = literals(&inner).filter(|w| w.len() == 1) else {
                break;
            };
            s.replace_range(at..end.min(s.len()), &format!("\"{prefix}{}\"", words[0]));
        }
    }
    for (spelled, literal) in [
        ("rootProject.layout.buildDirectory", "\"build\""),
        ("project.layout.buildDirectory", "\"build\""),
        ("layout.buildDirectory", "\"build\""),
        ("project.buildDir", "\"build\""),
        ("\"$buildDir/", "\"build/"),
        ("\"${buildDir}/", "\"build/"),
        ("\"${layout.buildDirectory.get()}/", "\"build/"),
    ] {
        s = s.replace(spelled, literal);
    }
    if s.trim() == "buildDir" {
        return "\"build\"".into();
    }
    s
}

/// Maven's properties for its own folders and the user's home, as literal text.
fn maven_known(text: &str) -> String {
    let home = crate::base::paths::home_dir().map_or_else(
        || "${user.home}".to_owned(),
        |h| h.to_string_lossy().into_owned(),
    );
    text.replace("${project.build.directory}", "target")
        .replace("${project.build.outputDirectory}", "target/classes")
        .replace("${project.basedir}", ".")
        .replace("${basedir}", ".")
        .replace("${user.home}", &home)
}

/// Maven: plugins that run commands or scripts, or change files, from the build: the
/// Ant tasks of `maven-antrun-plugin` (`<delete>`, `<exec>`, `<copy>`), the program
/// `exec-maven-plugin` runs, and plugins that run scripts (asked about).
fn maven(text: &str) -> Vec<Call> {
    let text = maven_known(text);
    let mut out = Vec::new();
    let element = |body: &str, name: &str| -> Vec<String> {
        body.match_indices(&format!("<{name}>"))
            .filter_map(|(at, _)| {
                let from = at + name.len() + 2;
                let end = body[from..].find(&format!("</{name}>"))?;
                Some(unescape_xml(body[from..from + end].trim()))
            })
            .collect()
    };
    let computed = |v: &str| v.contains("${") || v.contains("@{");
    if text.contains("maven-antrun-plugin") {
        for (tag, attrs, prefix) in [
            ("<delete", &["dir", "file"][..], "rm -rf --"),
            ("<copy", &["todir", "tofile"][..], ":"),
            ("<move", &["todir", "tofile"][..], ":"),
            ("<echo", &["file"][..], ":"),
            ("<mkdir", &["dir"][..], "mkdir -p --"),
        ] {
            for t in xml_tags(&text, tag) {
                for name in attrs {
                    let Some(v) = xml_attr(t, name) else { continue };
                    if computed(&v) {
                        out.push(Call::Computed(format!("{tag} {name}=\"{v}\"")));
                    } else if prefix == ":" {
                        out.push(Call::Line(format!(": > {}", shell::shell_quote(&v))));
                    } else {
                        out.push(Call::Line(format!("{prefix} {}", shell::shell_quote(&v))));
                    }
                }
            }
        }
        for (at, _) in text.match_indices("<exec ") {
            let end = text[at..].find("</exec>").map_or(text.len(), |e| at + e);
            let body = &text[at..end];
            let head_end = body.find('>').unwrap_or(body.len());
            let Some(program) = xml_attr(&body[..head_end], "executable") else {
                continue;
            };
            let mut words = vec![program];
            for t in xml_tags(body, "<arg ") {
                words.extend(xml_attr(t, "value"));
                words.extend(
                    xml_attr(t, "line")
                        .into_iter()
                        .flat_map(|l| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>()),
                );
            }
            if words.iter().any(|w| computed(w)) {
                out.push(Call::Computed(format!("<exec {}>", words.join(" "))));
            } else {
                out.push(Call::Line(quoted(&words)));
            }
        }
    }
    if text.contains("exec-maven-plugin") {
        for program in element(&text, "executable") {
            let mut words = vec![program];
            words.extend(element(&text, "argument"));
            if words.iter().any(|w| computed(w)) {
                out.push(Call::Computed(format!(
                    "exec-maven-plugin {}",
                    words.join(" ")
                )));
            } else {
                out.push(Call::Line(quoted(&words)));
            }
        }
        if text.contains("<mainClass>") {
            out.push(Call::Computed("exec-maven-plugin <mainClass>".into()));
        }
    }
    for plugin in [
        "groovy-maven-plugin",
        "gmavenplus-plugin",
        "maven-scripting-plugin",
    ] {
        if text.contains(plugin) {
            out.push(Call::Computed(plugin.into()));
        }
    }
    out
}

/// CMake: `execute_process(COMMAND …)`, `add_custom_command`/`add_custom_target`'s
/// `COMMAND`s, `file(REMOVE…)`, `file(WRITE|APPEND|COPY|RENAME…)`, `install(CODE|SCRIPT)`.
fn cmake(text: &str) -> Vec<Call> {
    // CMake's own folders and programs, as the literals they stand for.
    let mut known = text.to_owned();
    for (var, value) in [
        ("${CMAKE_BINARY_DIR}", "build"),
        ("${CMAKE_CURRENT_BINARY_DIR}", "build"),
        ("${PROJECT_BINARY_DIR}", "build"),
        ("${CMAKE_SOURCE_DIR}", "."),
        ("${CMAKE_CURRENT_SOURCE_DIR}", "."),
        ("${PROJECT_SOURCE_DIR}", "."),
        ("${CMAKE_CURRENT_LIST_DIR}", "."),
        ("${CMAKE_COMMAND}", "cmake"),
        ("${CMAKE_CTEST_COMMAND}", "ctest"),
    ] {
        known = known.replace(var, value);
    }
    let text = known.as_str();
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    let keywords = [
        "COMMAND",
        "WORKING_DIRECTORY",
        "OUTPUT_VARIABLE",
        "ERROR_VARIABLE",
        "RESULT_VARIABLE",
        "OUTPUT_QUIET",
        "ERROR_QUIET",
        "DEPENDS",
        "OUTPUT",
        "BYPRODUCTS",
        "COMMENT",
        "VERBATIM",
        "USES_TERMINAL",
        "ALL",
        "TIMEOUT",
        "COMMAND_ECHO",
        "ENCODING",
        "INPUT_FILE",
        "OUTPUT_FILE",
        "ERROR_FILE",
        "COMMAND_ERROR_IS_FATAL",
        "ECHO_OUTPUT_VARIABLE",
        "OUTPUT_STRIP_TRAILING_WHITESPACE",
    ];
    for call in ["execute_process", "add_custom_command", "add_custom_target"] {
        for at in places(&lower, call) {
            let rest = &text[at + call.len()..];
            let Some(open) = rest.find('(') else { continue };
            let body = inside(rest, open);
            let words = cmake_words(body);
            let mut k = 0;
            while k < words.len() {
                if words[k] == "COMMAND" {
                    let line: Vec<String> = words[k + 1..]
                        .iter()
                        .take_while(|w| !keywords.contains(&w.as_str()))
                        .cloned()
                        .collect();
                    k += line.len();
                    if line
                        .iter()
                        .any(|w| w.contains("${") || w.contains("$ENV{") || w.contains("$<"))
                    {
                        out.push(Call::Computed(format!(
                            "{call}(COMMAND {})",
                            line.join(" ")
                        )));
                    } else if !line.is_empty() {
                        out.push(Call::Line(quoted(&line)));
                    }
                }
                k += 1;
            }
        }
    }
    for at in places(&lower, "file") {
        let rest = &text[at + 4..];
        if !rest.trim_start().starts_with('(') {
            continue;
        }
        let open = rest.find('(').unwrap_or(0);
        let words = cmake_words(inside(rest, open));
        let Some((mode, names)) = words.split_first() else {
            continue;
        };
        let shell_line = match mode.as_str() {
            "REMOVE" | "REMOVE_RECURSE" => Some("rm -rf --"),
            "WRITE" | "APPEND" | "TOUCH" | "TOUCH_NOCREATE" | "RENAME" | "COPY_FILE"
            | "CREATE_LINK" | "CHMOD" | "CHMOD_RECURSE" | "COPY" | "INSTALL" => Some(":"),
            _ => None,
        };
        let Some(shell_line) = shell_line else {
            continue;
        };
        let named: Vec<String> = match mode.as_str() {
            "REMOVE" | "REMOVE_RECURSE" | "TOUCH" | "TOUCH_NOCREATE" => names.to_vec(),
            // The file written: the first word; a copy's or link's target: the last.
            "WRITE" | "APPEND" | "CHMOD" | "CHMOD_RECURSE" => {
                names.first().cloned().into_iter().collect()
            }
            _ => names.last().cloned().into_iter().collect(),
        };
        if named
            .iter()
            .any(|n| n.contains("${") || n.contains("$ENV{") || n.contains("$<"))
        {
            out.push(Call::Computed(format!("file({mode} {})", named.join(" "))));
        } else if shell_line == ":" {
            for n in named {
                out.push(Call::Line(format!(": > {}", shell::shell_quote(&n))));
            }
        } else if !named.is_empty() {
            out.push(Call::Line(format!("{shell_line} {}", quoted(&named))));
        }
    }
    for what in ["install(CODE", "install(SCRIPT", "install (CODE"] {
        if text.contains(what) {
            out.push(Call::Computed(what.to_owned()));
        }
    }
    out
}

/// CMake's arguments: words split at white space, `"…"` one word, `#` to the end of the
/// line a comment.
fn cmake_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut comment, mut any) = (false, false, false);
    for c in text.chars() {
        if comment {
            comment = c != '\n';
            continue;
        }
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            '#' if !quoted => comment = true,
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => {
                word.push(c);
                any = true;
            }
        }
        if out.len() >= 256 {
            break;
        }
    }
    if any {
        out.push(word);
    }
    out
}

/// Ruby (`Gemfile`, `Rakefile`): `sh`, `system`, `exec`, `spawn` and backticks, the
/// `FileUtils` family (`rm_rf`, `rm_r`, `rm_f`, `rm`, `mv`, `cp_r`), `File.delete`,
/// `File.write`, `IO.popen`, `Open3`.
fn ruby(text: &str) -> Vec<Call> {
    let mut out = Vec::new();
    for (word, prefix) in [
        ("sh", ""),
        ("system", ""),
        ("exec", ""),
        ("spawn", ""),
        ("rm_rf", "rm -rf --"),
        ("rm_r", "rm -rf --"),
        ("rm_f", "rm -f --"),
        ("rm", "rm -f --"),
        ("remove_dir", "rm -rf --"),
        ("remove_entry", "rm -rf --"),
    ] {
        for at in places(text, word) {
            // Inside a string on its line (`sh "bundle exec rubocop"`): words, not a call.
            let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
            let before_on_line = &text[line_start..at];
            if before_on_line.matches('"').count() % 2 == 1
                || before_on_line.matches('\'').count() % 2 == 1
            {
                continue;
            }
            // A method of another object (`obj.sh`) or a symbol (`:rm`) is not this call.
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c == ':' || c == '.' && !text[..at].ends_with("FileUtils.")) {
                continue;
            }
            let rest = &text[at + word.len()..];
            let args = if rest.starts_with('(') {
                inside(rest, 0)
            } else if rest.starts_with([' ', '\t']) {
                rest.lines().next().unwrap_or("").trim()
            } else {
                continue;
            };
            let args = args.split(" do").next().unwrap_or(args);
            match literals(args) {
                Some(words) if !words.is_empty() && prefix.is_empty() => {
                    // `sh "a b"` runs a line; `system("a", "b")` a program and its words.
                    let line = if words.len() == 1 {
                        words[0].clone()
                    } else {
                        quoted(&words)
                    };
                    out.push(Call::Line(line));
                }
                Some(words) if !words.is_empty() => {
                    out.push(Call::Line(format!("{prefix} {}", quoted(&words))));
                }
                _ => out.push(Call::Computed(format!("{word} {}", args.trim()))),
            }
        }
    }
    for what in [
        "`",
        "%x(",
        "%x{",
        "%x[",
        "IO.popen",
        "Open3.",
        "File.delete",
        "File.unlink",
        "File.write",
        "FileUtils.mv",
        "FileUtils.cp",
        "Kernel.",
        "Process.spawn",
    ] {
        if text.contains(what) {
            out.push(Call::Computed(what.to_owned()));
        }
    }
    out
}

/// MSBuild: `<Exec Command="…">`, `<Delete Files="…">`, `<RemoveDir Directories="…">`,
/// `<WriteLinesToFile File="…">`, `<Copy DestinationFiles|DestinationFolder="…">`,
/// `<Move …>`, and inline tasks (`<UsingTask … TaskFactory`).
fn msbuild(text: &str) -> Vec<Call> {
    // MSBuild's properties for the project's own folders, as literal text.
    let mut known = text.to_owned();
    for (prop, value) in [
        ("$(OutDir)", "bin/"),
        ("$(OutputPath)", "bin/"),
        ("$(TargetDir)", "bin/"),
        ("$(IntermediateOutputPath)", "obj/"),
        ("$(BaseIntermediateOutputPath)", "obj/"),
        ("$(BaseOutputPath)", "bin/"),
        ("$(MSBuildProjectDirectory)", "."),
        ("$(MSBuildThisFileDirectory)", "./"),
        ("$(ProjectDir)", "./"),
        ("$(SolutionDir)", "./"),
        ("$(Configuration)", "Debug"),
        ("$(TargetFramework)", "net"),
        ("$(ProjectName)", "app"),
        ("$(AssemblyName)", "app"),
        ("$(TargetPath)", "bin/app.dll"),
        ("$(TargetFileName)", "app.dll"),
        ("@(Compile)", "src"),
        ("%(Filename)", "file"),
        ("%(Extension)", ".cs"),
        ("%(RecursiveDir)", ""),
    ] {
        known = known.replace(prop, value);
    }
    let text = known.as_str();
    let mut out = Vec::new();
    for (element, name, shell_line) in [
        ("<Exec", "Command", ""),
        ("<Delete", "Files", "rm -f --"),
        ("<RemoveDir", "Directories", "rm -rf --"),
        ("<WriteLinesToFile", "File", ":"),
        ("<Copy", "DestinationFiles", ":"),
        ("<Copy", "DestinationFolder", ":"),
        ("<Move", "DestinationFiles", ":"),
        ("<Move", "DestinationFolder", ":"),
        ("<MakeDir", "Directories", "mkdir -p --"),
    ] {
        for tag in xml_tags(text, element) {
            let Some(value) = xml_attr(tag, name) else {
                continue;
            };
            if value.contains(['$', '@', '%']) {
                out.push(Call::Computed(format!("{element} {name}=\"{value}\"")));
                continue;
            }
            match shell_line {
                "" => out.push(Call::Line(value)),
                ":" => {
                    for part in value.split(';').filter(|p| !p.trim().is_empty()) {
                        out.push(Call::Line(format!(
                            ": > {}",
                            shell::shell_quote(part.trim())
                        )));
                    }
                }
                prefix => {
                    let parts: Vec<String> = value
                        .split(';')
                        .map(str::trim)
                        .filter(|p| !p.is_empty())
                        .map(str::to_owned)
                        .collect();
                    out.push(Call::Line(format!("{prefix} {}", quoted(&parts))));
                }
            }
        }
    }
    if text.contains("TaskFactory") {
        out.push(Call::Computed("UsingTask TaskFactory".into()));
    }
    out
}

/// The value of the attribute `name` in the XML tag `tag` (`<Exec Command="…"`), its
/// entities read.
fn xml_attr(tag: &str, name: &str) -> Option<String> {
    let at = tag.find(&format!("{name}=\""))? + name.len() + 2;
    let end = tag[at..].find('"')?;
    Some(unescape_xml(&tag[at..at + end]))
}

/// Each opening tag of `element` in `text` (`<delete dir="…"`), up to its `>`.
fn xml_tags<'t>(text: &'t str, element: &'t str) -> impl Iterator<Item = &'t str> + 't {
    text.match_indices(element).map(move |(at, _)| {
        let end = text[at..].find('>').map_or(text.len(), |e| at + e);
        &text[at..end]
    })
}

fn unescape_xml(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Mix: an alias's `"cmd …"` step, `System.cmd`, `:os.cmd`, `File.rm*`, `File.write`,
/// `Mix.shell().cmd`.
fn elixir(text: &str) -> Vec<Call> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("\"cmd ") {
        let rest = &text[at + 5..];
        let Some(end) = rest.find('"') else { continue };
        let line = &rest[..end];
        if line.contains("#{") {
            out.push(Call::Computed(format!("cmd {line}")));
        } else {
            out.push(Call::Line(line.replace("\\\"", "\"")));
        }
    }
    for what in [
        "System.cmd",
        ":os.cmd",
        "File.rm",
        "File.write",
        "File.rename",
        "File.cp",
        "Mix.shell",
        "Port.open",
    ] {
        if text.contains(what) {
            out.push(Call::Computed(what.to_owned()));
        }
    }
    out
}

/// Meson: `run_command(…)`, run as the build is set up (`meson setup`).
fn meson(text: &str) -> Vec<Call> {
    let mut out = Vec::new();
    for at in places(text, "run_command") {
        let rest = &text[at + "run_command".len()..];
        if !rest.starts_with('(') {
            continue;
        }
        let args = inside(rest, 0);
        // `check: true` and other keywords after the words.
        let words: Vec<&str> = split_top(args)
            .into_iter()
            .filter(|p| !p.contains(':'))
            .collect();
        match literals(&words.join(",")) {
            Some(words) if !words.is_empty() => out.push(Call::Line(quoted(&words))),
            _ => out.push(Call::Computed(format!("run_command({})", args.trim()))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(calls: &[Call]) -> Vec<&str> {
        calls
            .iter()
            .filter_map(|c| match c {
                Call::Line(l) => Some(l.as_str()),
                Call::Computed(_) => None,
            })
            .collect()
    }

    fn computed(calls: &[Call]) -> usize {
        calls
            .iter()
            .filter(|c| matches!(c, Call::Computed(_)))
            .count()
    }

    #[test]
    fn gradle_commands_spelled_out_are_lines_and_computed_ones_asked() {
        let c = gradle("tasks.register<Exec>(\"ci\") { commandLine(\"npm\", \"ci\") }\n");
        assert_eq!(lines(&c), vec!["npm ci"]);
        let c = gradle("commandLine(\"rm\", \"-rf\", System.getenv(\"HOME\"))\n");
        assert_eq!(computed(&c), 1);
        let c = gradle("tasks.register<Delete>(\"x\") { delete(\"build/tmp\") }\n");
        assert_eq!(lines(&c), vec!["rm -rf -- build/tmp"]);
        assert!(gradle("dependencies { implementation(\"a:b:1\") }\n").is_empty());
    }

    #[test]
    fn cmake_reads_commands_and_file_changes() {
        let c = cmake("execute_process(COMMAND git describe --tags OUTPUT_VARIABLE v)\n");
        assert_eq!(lines(&c), vec!["git describe --tags"]);
        let c = cmake("file(REMOVE_RECURSE $ENV{HOME})\n");
        assert_eq!(computed(&c), 1);
        let c = cmake("file(WRITE .claude/settings.json \"{}\")\n");
        assert_eq!(lines(&c), vec![": > '.claude/settings.json'"]);
        assert!(cmake("project(x)\nadd_executable(x main.c)\n").is_empty());
    }

    #[test]
    fn ruby_and_msbuild_and_mix() {
        let c = ruby("task :test do\n  sh \"rspec\"\nend\ntask :tidy do\n  rm_rf Dir.home\nend\n");
        assert_eq!(lines(&c), vec!["rspec"]);
        assert_eq!(computed(&c), 1);
        assert!(ruby("source \"https://rubygems.org\"\ngem \"rails\"\n").is_empty());
        let c = msbuild("<Target Name=\"T\"><Exec Command=\"rm -rf $(HOME)\" /></Target>");
        assert_eq!(computed(&c), 1);
        let c = msbuild("<Exec Command=\"npm ci\" /><RemoveDir Directories=\"obj;bin\" />");
        assert_eq!(lines(&c), vec!["npm ci", "rm -rf -- obj bin"]);
        let c = elixir("defp aliases, do: [tidy: [\"cmd rm -rf ~/\"]]\n");
        assert_eq!(lines(&c), vec!["rm -rf ~/"]);
    }
}
