//! What the text a database client runs does to the data: read statement by statement,
//! past comments, quoting and spacing, the way the server reads it. A statement that
//! drops or empties what holds data (`DROP`, `TRUNCATE`, `DELETE` or `UPDATE` of every
//! row, `ALTER TABLE … DROP`), that builds its SQL at run time (`EXECUTE 'DR' || 'OP …'`
//! in a `DO` block, `PREPARE … FROM @s`), or a key store emptied (`FLUSHALL`), is named;
//! reading, inserting and creating are not. MongoDB's shell takes JavaScript: the calls
//! that drop or empty collections, and members reached by a computed name
//! (`db["drop" + "Database"]()`), are named.

/// The dialect a client reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    /// SQL (psql, mysql, sqlite3, clickhouse, cqlsh, duckdb).
    Sql,
    /// Redis commands, one per line.
    Redis,
    /// MongoDB's JavaScript shell, and the script shells of other stores (ArangoDB's
    /// JavaScript, Tarantool's Lua).
    Mongo,
}

/// The dialect of a database client, if `name` is one.
pub(super) fn dialect(name: &str) -> Option<Dialect> {
    match name {
        "psql" | "mysql" | "mariadb" | "sqlite3" | "sqlite" | "clickhouse-client"
        | "clickhouse" | "cqlsh" | "duckdb" | "sqlcmd" | "usql" | "pgcli" | "mycli" | "litecli"
        // Clients of other engines and warehouses, whose words and input are SQL too.
        | "mysqlsh" | "trino" | "presto" | "beeline" | "spark-sql" | "impala-shell" | "vsql"
        | "isql" | "sqlplus" | "db2" | "cockroach" | "snowsql" | "bq" | "athena" | "hive"
        | "psqlodbc" | "tsql" | "osql" | "gsql" | "ysqlsh" | "edgedb" | "surreal" | "cbq"
        | "cypher-shell" | "influx" | "questdb" | "crate" | "crash" | "neo4j-shell" => {
            Some(Dialect::Sql)
        }
        "redis-cli" | "valkey-cli" | "keydb-cli" | "dragonfly-cli" => Some(Dialect::Redis),
        // Shells that run the store's own script language: JavaScript (MongoDB,
        // ArangoDB), Lua (Tarantool).
        "mongo" | "mongosh" | "arangosh" | "tarantoolctl" | "tt" => Some(Dialect::Mongo),
        _ => None,
    }
}

/// Longest text read.
const MAX_TEXT: usize = 256 * 1024;
/// Most statements read; past them, the rest is not looked at and the text asks.
const MAX_STATEMENTS: usize = 4096;
/// Most levels of code inside code (`DO $$ … $$` holding `EXECUTE '…'`).
const MAX_NESTING: usize = 4;

/// What the text does to the data, in words, when it drops, empties or hides what it runs.
pub(super) fn destroys(dialect: Dialect, text: &str) -> Option<String> {
    let text = &text[..floor(text, MAX_TEXT)];
    match dialect {
        Dialect::Sql => sql(text, 0),
        Dialect::Redis => redis(text),
        Dialect::Mongo => mongo(text),
    }
}

/// The files SQL text writes and the shell lines it runs, outside the database: what a
/// server or client is told to write (`COPY … TO 'f'`, `… INTO OUTFILE 'f'`, `VACUUM INTO
/// 'f'`, `ATTACH 'f'`, `EXPORT DATABASE 'd'`) or run (`COPY … TO PROGRAM 'cmd'`), and the
/// client commands that send output to a file or a pipe (psql's `\o`, `\w`, `\g`,
/// `\copy … to`; sqlite's `.output`, `.once`, `.save`, `.backup`).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Outputs {
    pub files: Vec<String>,
    pub commands: Vec<String>,
}

/// The dot-commands of the SQLite shell that write, read, run or move, with the fewest
/// letters it takes for each (it takes any unique prefix: `.sh` is `.shell`, `.o` is
/// `.output`), in the order it tries them.
const DOT_COMMANDS: &[(&str, usize)] = &[
    ("archive", 2),
    ("backup", 3),
    ("save", 3),
    ("cd", 2),
    ("excel", 1),
    ("import", 2),
    ("load", 2),
    ("once", 2),
    ("output", 1),
    ("open", 2),
    ("read", 3),
    ("restore", 3),
    ("shell", 2),
    ("system", 2),
];

/// SQLite shell text with every dot-command spelled in full (`.sh x` → `.shell x`,
/// `.o f` → `.output f`), as the shell reads a prefix of one.
pub(super) fn full_dots(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('.') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut changed = false;
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let start = line.len() - line.trim_start().len();
            let Some(rest) = line[start..].strip_prefix('.') else {
                return line.to_owned();
            };
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let word = &rest[..end];
            let full = DOT_COMMANDS
                .iter()
                .find(|(name, least)| word.len() >= *least && name.starts_with(word));
            match full {
                Some((name, _)) if *name != word => {
                    changed = true;
                    format!("{}.{name}{}", &line[..start], &rest[end..])
                }
                _ => line.to_owned(),
            }
        })
        .collect();
    if changed {
        std::borrow::Cow::Owned(lines.join("\n"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

pub(super) fn outputs(text: &str) -> Outputs {
    let text = &text[..floor(text, MAX_TEXT)];
    let full = full_dots(text);
    let text = full.as_ref();
    let mut out = Outputs::default();
    for line in text.lines().take(MAX_STATEMENTS) {
        let line = line.trim_start();
        let meta = |names: &[&str]| {
            names.iter().find_map(|n| {
                let rest = line.strip_prefix(n)?;
                (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
            })
        };
        let target = meta(&[
            "\\o", "\\out", "\\w", "\\write", "\\g", "\\gx", ".output", ".once", ".save",
        ])
        .or_else(|| {
            // `.backup ?DB? FILE`: the last word.
            meta(&[".backup"]).and_then(|rest| rest.split_whitespace().last())
        });
        if let Some(target) = target.filter(|t| !t.is_empty()) {
            let target = target
                .trim_start_matches("-x ")
                .trim_start_matches("-e ")
                .trim();
            match target.strip_prefix('|') {
                Some(command) => out.commands.push(command.trim().to_owned()),
                None => out.files.push(target.trim_matches(['\'', '"']).to_owned()),
            }
        }
        if let Some(rest) = meta(&["\\copy"]) {
            out_of_statement(&statements(&format!("copy {rest}")).0.concat(), &mut out);
        }
    }
    for tokens in statements(text).0 {
        out_of_statement(&tokens, &mut out);
    }
    out
}

/// What one statement writes outside the database or runs.
fn out_of_statement(tokens: &[Token], out: &mut Outputs) {
    for (k, token) in tokens.iter().enumerate() {
        let Token::Word(w) = token else {
            continue;
        };
        let next = tokens.get(k + 1);
        let quoted_after = |at: usize| match tokens.get(at) {
            Some(Token::Quoted(q)) => Some(q.clone()),
            _ => None,
        };
        match w.as_str() {
            // `COPY … TO 'f'`, `COPY … TO PROGRAM 'cmd'` (not `TO STDOUT`).
            "to" if tokens
                .first()
                .is_some_and(|t| matches!(t, Token::Word(f) if f == "copy")) =>
            {
                if word(next) == "program" {
                    out.commands.extend(quoted_after(k + 2));
                } else {
                    out.files.extend(quoted_after(k + 1));
                }
            }
            "outfile" | "dumpfile" if k > 0 && word(tokens.get(k - 1)) == "into" => {
                out.files.extend(quoted_after(k + 1));
            }
            "into" if k > 0 && word(tokens.get(k - 1)) == "vacuum" => {
                out.files.extend(quoted_after(k + 1));
            }
            "attach" => {
                let at = if word(next) == "database" {
                    k + 2
                } else {
                    k + 1
                };
                out.files.extend(quoted_after(at));
            }
            "export" if word(next) == "database" => out.files.extend(quoted_after(k + 2)),
            _ => {}
        }
    }
}

fn floor(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// One piece of a statement: a word (lower-cased), a quoted string's content, a
/// dollar-quoted body, or a punctuation character.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Quoted(String),
    Body(String),
    Punct(char),
}

/// The statements of `text`, each as its tokens, and whether the text was cut short.
fn statements(text: &str) -> (Vec<Vec<Token>>, bool) {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut current = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        let c = chars[k];
        if out.len() >= MAX_STATEMENTS {
            return (out, true);
        }
        match c {
            ';' => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                k += 1;
            }
            '-' if chars.get(k + 1) == Some(&'-') => {
                while k < chars.len() && chars[k] != '\n' {
                    k += 1;
                }
            }
            '/' if chars.get(k + 1) == Some(&'*') => {
                k += 2;
                while k < chars.len() && !(chars[k] == '*' && chars.get(k + 1) == Some(&'/')) {
                    k += 1;
                }
                k += 2;
            }
            '\'' | '"' | '`' => {
                let (content, next) = quoted(&chars, k, c);
                current.push(if c == '\'' {
                    Token::Quoted(content)
                } else {
                    // `"table"` and `` `table` `` are names.
                    Token::Word(content.to_lowercase())
                });
                k = next;
            }
            '$' => {
                // `$$ … $$` or `$tag$ … $tag$`: a body of code.
                let tag_end = chars[k + 1..]
                    .iter()
                    .position(|c| !(c.is_alphanumeric() || *c == '_'))
                    .map(|p| k + 1 + p);
                match tag_end {
                    Some(end) if chars[end] == '$' => {
                        let tag: String = chars[k..=end].iter().collect();
                        let rest: String = chars[end + 1..].iter().collect();
                        let (body, used) = match rest.find(&tag) {
                            Some(p) => (&rest[..p], p + tag.len()),
                            None => (rest.as_str(), rest.len()),
                        };
                        current.push(Token::Body(body.to_owned()));
                        k = end + 1 + rest[..used].chars().count();
                    }
                    _ => {
                        current.push(Token::Punct('$'));
                        k += 1;
                    }
                }
            }
            c if c.is_alphanumeric() || c == '_' => {
                let start = k;
                while k < chars.len() && (chars[k].is_alphanumeric() || chars[k] == '_') {
                    k += 1;
                }
                current.push(Token::Word(
                    chars[start..k].iter().collect::<String>().to_lowercase(),
                ));
            }
            c if c.is_whitespace() => k += 1,
            c => {
                current.push(Token::Punct(c));
                k += 1;
            }
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    (out, false)
}

/// The content of a quoted string starting at `start`, and where it ends; a doubled
/// quote or a backslash keeps the quote character.
fn quoted(chars: &[char], start: usize, quote: char) -> (String, usize) {
    let mut content = String::new();
    let mut k = start + 1;
    while k < chars.len() {
        let c = chars[k];
        if c == '\\' && quote != '`' {
            if let Some(next) = chars.get(k + 1) {
                content.push(*next);
            }
            k += 2;
            continue;
        }
        if c == quote {
            if chars.get(k + 1) == Some(&quote) {
                content.push(quote);
                k += 2;
                continue;
            }
            return (content, k + 1);
        }
        content.push(c);
        k += 1;
    }
    (content, k)
}

fn word(token: Option<&Token>) -> &str {
    match token {
        Some(Token::Word(w)) => w,
        _ => "",
    }
}

fn sql(text: &str, depth: usize) -> Option<String> {
    let (statements, cut) = statements(text);
    for tokens in &statements {
        if let Some(found) = statement(tokens, depth) {
            return Some(found);
        }
    }
    cut.then(|| "runs more SQL than nagger reads".to_owned())
}

/// What one statement does to the data, if it drops, empties or hides it.
fn statement(tokens: &[Token], depth: usize) -> Option<String> {
    let has = |w: &str| tokens.iter().any(|t| matches!(t, Token::Word(x) if x == w));
    // Code run at run time: what its bodies hold, and SQL built from pieces.
    for token in tokens {
        if let Token::Body(body) = token {
            if depth >= MAX_NESTING {
                return Some("runs SQL nested deeper than nagger reads".into());
            }
            if let Some(found) = sql(body, depth + 1) {
                return Some(found);
            }
        }
    }
    let builds = (has("execute") || has("exec") || has("prepare"))
        && tokens.iter().any(|t| match t {
            Token::Word(w) => matches!(w.as_str(), "concat" | "format" | "replace" | "chr"),
            Token::Punct('|' | '+' | '@') => true,
            _ => false,
        });
    if builds {
        return Some("builds the SQL it runs from pieces at run time".into());
    }
    for token in tokens {
        if let Token::Quoted(text) = token
            && (has("execute") || has("exec") || has("prepare"))
            && let Some(found) = sql(text, depth + 1)
        {
            return Some(found);
        }
    }
    // Where a statement begins: at the start, or inside a block of procedural code
    // (`BEGIN DROP …`, `IF x THEN DELETE …`).
    (0..tokens.len())
        .filter(|&k| {
            k == 0
                || matches!(&tokens[k - 1], Token::Word(w)
                    if matches!(w.as_str(), "begin" | "then" | "else" | "loop" | "atomic"))
        })
        .find_map(|k| simple(&tokens[k..]))
}

/// What a statement starting at `tokens` does, by its verb.
fn simple(tokens: &[Token]) -> Option<String> {
    let has = |w: &str| tokens.iter().any(|t| matches!(t, Token::Word(x) if x == w));
    let first = word(tokens.first());
    let second = word(tokens.get(1));
    match first {
        "drop" => Some(format!(
            "drops a {}",
            if second.is_empty() {
                "database object"
            } else {
                second
            }
        )),
        "truncate" => Some("empties a table (`TRUNCATE`)".into()),
        "delete" if !limited(tokens) => {
            Some("deletes every row of a table (`DELETE` without `WHERE`)".into())
        }
        "update" if !limited(tokens) => {
            Some("changes every row of a table (`UPDATE` without `WHERE`)".into())
        }
        "alter" if has("drop") => Some("drops part of a table (`ALTER … DROP`)".into()),
        // Cypher: every node or relation a pattern matches, deleted.
        "match" | "optional"
            if has("delete")
                && !has("where")
                && !has("limit")
                && !tokens.iter().any(|t| matches!(t, Token::Punct('{'))) =>
        {
            Some("deletes every node a pattern matches (`MATCH … DELETE`)".into())
        }
        "flushall" | "flushdb" => Some(format!(
            "empties the key store (`{}`)",
            first.to_uppercase()
        )),
        _ => None,
    }
}

/// Whether a `DELETE`/`UPDATE` is limited by a `WHERE` that is not always true (`WHERE
/// 1=1`, `WHERE true`), or reaches rows through another statement (`WHERE CURRENT OF`).
fn limited(tokens: &[Token]) -> bool {
    let Some(at) = tokens
        .iter()
        .position(|t| matches!(t, Token::Word(w) if w == "where"))
    else {
        return false;
    };
    let condition: Vec<&Token> = tokens[at + 1..]
        .iter()
        .take_while(|t| {
            !matches!(t, Token::Word(w) if matches!(w.as_str(), "returning" | "order" | "limit"))
        })
        .collect();
    // Up to the first `AND` (which narrows) or `OR` (which widens): always true?
    let head: Vec<&Token> = condition
        .iter()
        .copied()
        .take_while(|t| !matches!(t, Token::Word(w) if w == "and"))
        .collect();
    let always = |part: &[&Token]| match part {
        [] => true,
        [Token::Word(w)] => matches!(w.as_str(), "true" | "1"),
        [a, Token::Punct('='), b] => a == b,
        [Token::Word(n), Token::Word(f)] => n == "not" && matches!(f.as_str(), "false" | "0"),
        _ => false,
    };
    let alternatives: Vec<&[&Token]> = head
        .split(|t| matches!(t, Token::Word(w) if w == "or"))
        .collect();
    !alternatives.iter().any(|part| always(part))
}

fn redis(text: &str) -> Option<String> {
    text.lines().take(MAX_STATEMENTS).find_map(|line| {
        let mut words = line.split_whitespace().map(str::to_ascii_lowercase);
        let command = words.next()?;
        let sub = words.next().unwrap_or_default();
        match (command.as_str(), sub.as_str()) {
            ("flushall" | "flushdb", _) => Some(format!(
                "empties the key store (`{}`)",
                command.to_uppercase()
            )),
            // Where it saves and what it loads: `CONFIG SET dir /root/.ssh` then `SAVE`
            // writes a file anywhere the server can.
            ("config", "set" | "rewrite" | "resetstat") => Some(format!(
                "changes the server's settings (`CONFIG {}`), where it saves its data among them",
                sub.to_uppercase()
            )),
            ("shutdown", _) => Some("shuts the server down (`SHUTDOWN`)".into()),
            ("slaveof" | "replicaof", to) if to != "no" => Some(format!(
                "makes the server a copy of another, dropping its own data (`{}`)",
                command.to_uppercase()
            )),
            ("module", "load" | "loadex") | ("debug", _) => Some(format!(
                "runs code inside the server (`{} {}`)",
                command.to_uppercase(),
                sub.to_uppercase()
            )),
            ("script" | "function", "flush") => Some(format!(
                "drops the server's stored scripts (`{} FLUSH`)",
                command.to_uppercase()
            )),
            _ => None,
        }
    })
}

fn mongo(text: &str) -> Option<String> {
    let squeezed: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    let calls = [
        ("dropdatabase(", "drops a database"),
        (".drop(", "drops a collection"),
        ("._drop(", "drops a collection"),
        (":drop(", "drops a space"),
        ("deletemany({})", "deletes every document of a collection"),
        ("remove({})", "deletes every document of a collection"),
        ("deletemany()", "deletes every document of a collection"),
        (".truncate(", "empties a collection"),
        (":truncate(", "empties a space"),
        ("shutdownserver(", "shuts the database server down"),
        ("dropuser(", "drops a database user"),
        ("dropallusers(", "drops every user of a database"),
        ("dropallroles(", "drops every role of a database"),
    ];
    if let Some((_, what)) = calls.iter().find(|(call, _)| squeezed.contains(call)) {
        return Some((*what).to_owned());
    }
    // `db["drop" + "Database"]()`, `db[x]()`: a member called by a name built at run time.
    let computed = squeezed.match_indices('[').any(|(at, _)| {
        let inside = &squeezed[at + 1..];
        let close = inside.find(']').unwrap_or(inside.len());
        let name = &inside[..close];
        let literal = (name.starts_with('"') || name.starts_with('\''))
            && name.len() >= 2
            && !name[1..name.len() - 1].contains(['"', '\'', '+']);
        !literal && !name.chars().all(|c| c.is_ascii_digit()) && inside[close..].starts_with("](")
    });
    computed.then(|| "calls a database method by a name built at run time".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_written_and_commands_run_outside_the_database_are_found() {
        let o = outputs(
            "COPY (SELECT 1) TO '/p/.claude/settings.json' (FORMAT csv);\n\
             copy t to program 'rm -rf x';\n\
             SELECT * FROM t INTO OUTFILE '/tmp/o.csv';\n\
             VACUUM INTO 'copy.db'; ATTACH DATABASE 'other.db' AS o; attach 'b.db' as b;\n\
             EXPORT DATABASE 'dump';\n\
             \\o out.txt\n.output |rm -rf y\n.once 'x.csv'\n.backup main b.bak\n\
             \\copy t to 'c.csv' csv\nCOPY t TO STDOUT;",
        );
        assert_eq!(
            o.files,
            vec![
                "out.txt",
                "x.csv",
                "b.bak",
                "c.csv",
                "/p/.claude/settings.json",
                "/tmp/o.csv",
                "copy.db",
                "other.db",
                "b.db",
                "dump"
            ]
        );
        assert_eq!(o.commands, vec!["rm -rf y", "rm -rf x"]);
        assert_eq!(
            outputs("SELECT 1; INSERT INTO t VALUES ('to'); COPY t FROM 'in.csv';"),
            Outputs::default()
        );
    }

    #[test]
    fn statements_that_drop_or_empty_data_are_named() {
        for text in [
            "DROP DATABASE prod",
            "drop/**/database prod",
            "DROP\n  TABLE users;",
            "select 1; drop table x",
            "-- cleanup\nDROP SCHEMA public CASCADE;",
            "TRUNCATE users",
            "truncate table users restart identity",
            "DELETE FROM users",
            "delete from users where 1=1",
            "DELETE FROM users WHERE true",
            "delete from users where 'a' = 'a'",
            "delete from users where id = 3 or 1 = 1",
            "UPDATE users SET password_hash = NULL",
            "update users set x = 1 where 1=1",
            "ALTER TABLE users DROP COLUMN email",
            "alter table t drop constraint c",
            "DO $$ BEGIN EXECUTE 'DR' || 'OP TABLE users'; END $$",
            "DO $x$ BEGIN DROP TABLE users; END $x$",
            "SET @s = CONCAT('DROP ', 'TABLE t'); PREPARE st FROM @s; EXECUTE st;",
            "EXECUTE 'drop table users'",
            "exec('drop table users')",
            "\"drop\" table x",
        ] {
            assert!(destroys(Dialect::Sql, text).is_some(), "{text}");
        }
    }

    #[test]
    fn reading_inserting_and_limited_changes_pass() {
        for text in [
            "select 1",
            "SELECT * FROM users WHERE name = 'drop table'",
            "insert into notes values ('truncate everything; drop table x')",
            "CREATE DATABASE widgets_test;",
            "CREATE TABLE t (id int); INSERT INTO t VALUES (1);",
            "DELETE FROM sessions WHERE expires_at < now()",
            "delete from users where id = 3 and 1 = 1",
            "UPDATE users SET name = 'x' WHERE id = 4",
            "ALTER TABLE users ADD COLUMN email text",
            "-- drop table x\nselect 1",
            "/* truncate x */ select 2",
            "\\dt",
            ".tables",
            "explain analyze select * from t",
            "",
        ] {
            assert_eq!(destroys(Dialect::Sql, text), None, "{text}");
        }
    }

    #[test]
    fn key_stores_and_mongo() {
        assert!(destroys(Dialect::Redis, "SET a 1\nFLUSHALL\n").is_some());
        assert!(destroys(Dialect::Redis, "flushdb async").is_some());
        assert_eq!(destroys(Dialect::Redis, "GET a\nPING"), None);
        for text in [
            "db.dropDatabase()",
            "db.users.drop()",
            "db.users.deleteMany({})",
            "db.users.deleteMany( { } )",
            "db.getCollection('x').remove({})",
            "db[\"drop\"+\"Database\"]()",
            "const m = 'dropDatabase'; db[m]()",
        ] {
            assert!(destroys(Dialect::Mongo, text).is_some(), "{text}");
        }
        for text in [
            "db.users.find({})",
            "db.users.deleteMany({ expired: true })",
            "db['users'].find()",
            "db.users.insertOne({a: [1, 2]})",
            "arr[0]()",
        ] {
            assert_eq!(destroys(Dialect::Mongo, text), None, "{text}");
        }
    }

    #[test]
    fn any_text_ends_without_panicking() {
        for text in [
            "$",
            "$a",
            "$$",
            "'",
            "/*",
            "--",
            "\"",
            "`",
            "$x$ unclosed",
            "é$é$",
            "[",
            "db[",
            "db['",
        ] {
            let _ = destroys(Dialect::Sql, text);
            let _ = destroys(Dialect::Mongo, text);
            let _ = destroys(Dialect::Redis, text);
        }
    }
}
