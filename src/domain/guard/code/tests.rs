use super::model::quote_words;
use super::*;

fn run(code: &str, lang: Language) -> Vec<Effect> {
    effects_in(code, lang)
}

fn shells(code: &str, lang: Language) -> Vec<String> {
    run(code, lang)
        .into_iter()
        .filter_map(|e| match e {
            Effect::Shell(s) => Some(s),
            _ => None,
        })
        .collect()
}

fn deletes(code: &str, lang: Language) -> Vec<String> {
    run(code, lang)
        .into_iter()
        .filter_map(|e| match e {
            Effect::Deletes(s) => Some(s),
            _ => None,
        })
        .collect()
}

fn unknown(code: &str, lang: Language) -> bool {
    run(code, lang)
        .iter()
        .any(|e| matches!(e, Effect::Unknown(_) | Effect::Writes(None)))
}

fn silent(code: &str, lang: Language) -> bool {
    run(code, lang)
        .iter()
        .all(|e| matches!(e, Effect::Writes(Some(_))))
}

use Language::*;

#[test]
fn commands_are_found_in_every_family() {
    let cases: &[(&str, Language, &str)] = &[
        ("import os; os.system('rm -rf /')", Python, "rm -rf /"),
        (
            "import subprocess; subprocess.run(['bash','-c','rm -rf ~'])",
            Python,
            "bash -c 'rm -rf ~'",
        ),
        (
            "import os; os.spawnlp(os.P_WAIT,'rm','rm','-rf','/')",
            Python,
            "rm -rf /",
        ),
        (
            "import os; os.execv('/bin/rm', ['rm', '-rf', '/'])",
            Python,
            "/bin/rm -rf /",
        ),
        (
            "from subprocess import run as r\nr('rm -rf ~', shell=True)",
            Python,
            "rm -rf ~",
        ),
        (
            "import subprocess as sp; sp.call(['rm','-rf','/'])",
            Python,
            "rm -rf /",
        ),
        ("__import__('os').system('rm -rf /')", Python, "rm -rf /"),
        (
            "getattr(__import__('os'), 'system')('rm -rf /')",
            Python,
            "rm -rf /",
        ),
        (
            "cmd = 'rm -rf ' + '/'\nimport os\nos.system(cmd)",
            Python,
            "rm -rf /",
        ),
        (
            "exec(\"import os; os.system('rm -rf /')\")",
            Python,
            "rm -rf /",
        ),
        ("system \"rm -rf /\"", Perl, "rm -rf /"),
        ("system('rm', '-rf', '/')", Perl, "rm -rf /"),
        ("my $x = `rm -rf ~`;", Perl, "rm -rf ~"),
        ("open(my $fh, '|-', 'rm', '-rf', '/')", Perl, "rm -rf /"),
        ("open(FH, 'rm -rf / |')", Perl, "rm -rf /"),
        ("s/x/system('rm -rf ~')/e", Perl, "rm -rf ~"),
        (
            "require('child_process').execSync('rm -rf ~')",
            Js,
            "rm -rf ~",
        ),
        (
            "const cp = require('node:child_process'); cp.spawnSync('rm', ['-rf', '/'])",
            Js,
            "rm -rf /",
        ),
        (
            "const {execSync} = require('child_process'); execSync(`rm -rf /`)",
            Js,
            "rm -rf /",
        ),
        (
            "import { exec } from 'child_process'; exec('rm -rf ~')",
            Js,
            "rm -rf ~",
        ),
        (
            "const {execSync: run} = require('child_process'); run('rm -rf ~')",
            Js,
            "rm -rf ~",
        ),
        (
            "new Deno.Command('rm', {args: ['-rf', '/']}).outputSync()",
            Js,
            "rm -rf /",
        ),
        ("Bun.spawnSync(['rm', '-rf', '/'])", Js, "rm -rf /"),
        ("await $`rm -rf ~`", Js, "rm -rf ~"),
        ("system 'rm -rf /'", Ruby, "rm -rf /"),
        ("IO.popen(['rm', '-rf', '/']).read", Ruby, "rm -rf /"),
        (
            "require 'open3'; Open3.capture2('rm -rf ~')",
            Ruby,
            "rm -rf ~",
        ),
        ("Kernel.send(:system, 'rm -rf /')", Ruby, "rm -rf /"),
        ("%x(rm -rf ~)", Ruby, "rm -rf ~"),
        ("shell_exec('rm -rf /');", Php, "rm -rf /"),
        ("call_user_func('system', 'rm -rf ~');", Php, "rm -rf ~"),
        ("echo `rm -rf /`;", Php, "rm -rf /"),
        ("os.execute('rm -rf /')", Lua, "rm -rf /"),
        ("io.popen(\"rm -rf \" .. \"~\")", Lua, "rm -rf ~"),
        ("BEGIN{system(\"rm -rf /\")}", Awk, "rm -rf /"),
        ("{print | \"sh\"}", Awk, "sh"),
        ("BEGIN { \"rm -rf ~\" | getline x }", Awk, "rm -rf ~"),
        ("system('rm -rf ~')", R, "rm -rf ~"),
        ("system2('rm', c('-rf', '/'))", R, "rm -rf /"),
        ("eval(parse(text = 'system(\"rm -rf /\")'))", R, "rm -rf /"),
        ("exec rm -rf /", Tcl, "rm -rf /"),
        ("set f [open \"|rm -rf ~\"]", Tcl, "rm -rf ~"),
        ("spawn rm -rf /", Tcl, "rm -rf /"),
        ("spawn bash\nsend \"rm -rf ~\\r\"", Tcl, "rm -rf ~"),
        ("shell rm -rf /", Debugger, "rm -rf /"),
        ("!rm -rf ~", Debugger, "rm -rf ~"),
        (
            "python import os; os.system('rm -rf /')",
            Debugger,
            "rm -rf /",
        ),
        ("call system(\"rm -rf /\")", Debugger, "rm -rf /"),
        ("!rm -rf /", Vim, "rm -rf /"),
        ("silent !rm -rf ~", Vim, "rm -rf ~"),
        ("call system('rm -rf /')", Vim, "rm -rf /"),
        ("py3 import os; os.system('rm -rf /')", Vim, "rm -rf /"),
        ("%!rm -rf ~", Vim, "rm -rf ~"),
        ("1e rm -rf /", Sed, "rm -rf /"),
        ("s/.*/rm -rf ~/e", Sed, "rm -rf ~"),
        ("do shell script \"rm -rf ~\"", AppleScript, "rm -rf ~"),
    ];
    for (code, lang, want) in cases {
        let got = shells(code, *lang);
        assert!(
            got.iter().any(|s| s == want),
            "{lang:?} {code}: {got:?} {:?}",
            run(code, *lang)
        );
    }
}

#[test]
fn deletions_are_judged_by_their_target() {
    let cases: &[(&str, Language)] = &[
        ("import shutil; getattr(shutil,'rmtree')('/')", Python),
        (
            "import shutil, os; shutil.rmtree(os.path.expanduser('~'))",
            Python,
        ),
        (
            "import shutil, os; shutil.rmtree(os.environ['HOME'])",
            Python,
        ),
        (
            "from pathlib import Path; import shutil; shutil.rmtree(Path.home())",
            Python,
        ),
        (
            "import shutil, os; d = os.getenv('HOME'); shutil.rmtree(d)",
            Python,
        ),
        (
            "require('fs').rmSync(process.env.HOME,{recursive:true})",
            Js,
        ),
        (
            "const fs = require('fs'); fs.rmSync(require('os').homedir(), {recursive: true})",
            Js,
        ),
        ("FileUtils.rm_rf(Dir.home)", Ruby),
        ("FileUtils.rm_rf(ENV['HOME'])", Ruby),
        ("unlink glob \"~/*\"", Perl),
        ("use File::Path; rmtree($ENV{HOME})", Perl),
        ("unlink(\"~\", recursive=TRUE)", R),
        ("unlink(Sys.getenv(\"HOME\"), recursive = TRUE)", R),
        ("file delete -force ~", Tcl),
        ("file delete -force $::env(HOME)", Tcl),
        ("call delete(expand('~'), 'rf')", Vim),
        (
            "Deno.removeSync(Deno.env.get('HOME'), {recursive: true})",
            Js,
        ),
    ];
    for (code, lang) in cases {
        let got = deletes(code, *lang);
        let asks = unknown(code, *lang);
        assert!(
            !got.is_empty() || asks,
            "{lang:?} {code}: {:?}",
            run(code, *lang)
        );
    }
    for (code, lang) in cases.iter().filter(|(_, l)| *l != Tcl && *l != Vim) {
        assert!(
            !deletes(code, *lang).is_empty(),
            "{lang:?} {code}: {:?}",
            run(code, *lang)
        );
    }
}

#[test]
fn computed_commands_and_code_are_unknown() {
    let cases: &[(&str, Language)] = &[
        ("import os; os.system(input())", Python),
        ("import shutil; getattr(shutil, name)('/')", Python),
        ("exec(open('x.py').read())", Python),
        ("import ctypes; ctypes.CDLL(None).system(b'x')", Python),
        ("eval(process.argv[2])", Js),
        ("require(process.argv[2])", Js),
        ("obj.send(ARGV[0], 'x')", Ruby),
        ("eval $code", Perl),
        ("$f = $argv[1]; $f('x');", Php),
        ("system(paste('rm', x))", R),
        ("exec $cmd", Tcl),
        ("1,$e", Sed),
        ("{print | \"sh\"}", Awk),
        ("import os; os.popen('sh', 'w').write(x)", Python),
        ("s/x/y/e", Sed),
        ("exe 'silent !' . g:cmd", Vim),
    ];
    for (code, lang) in cases {
        assert!(
            unknown(code, *lang),
            "{lang:?} {code}: {:?}",
            run(code, *lang)
        );
    }
}

#[test]
fn printed_text_and_plain_code_do_nothing() {
    let cases: &[(&str, Language)] = &[
        ("print('shutil.rmtree(\"/\")')", Python),
        (
            "import json,sys; print(json.load(sys.stdin)[\"x\"])",
            Python,
        ),
        ("import os; print(os.getcwd())", Python),
        ("import sys; print(sys.path)", Python),
        ("import re; print(re.compile('x').match('x'))", Python),
        ("# os.system('rm -rf /')\nprint(1)", Python),
        ("\"\"\"os.system('rm -rf /')\"\"\"\nprint(1)", Python),
        ("l = [1]; l.remove(1); d = {}; d.get('x')", Python),
        ("import asyncio; asyncio.run(main())", Python),
        ("console.log(process.version)", Js),
        ("require('./package.json').version", Js),
        (
            "// require('child_process').execSync('rm -rf /')\nconsole.log(1)",
            Js,
        ),
        ("console.log(`rm -rf ${'x'}`)", Js),
        ("print if /foo/", Perl),
        ("s/a/b/g", Perl),
        ("print \"system('rm -rf /')\\n\"", Perl),
        ("my @a = split /,/, $_; print $a[0]", Perl),
        ("puts RUBY_VERSION", Ruby),
        ("puts 'system(\"rm -rf /\")'", Ruby),
        ("echo PHP_VERSION;", Php),
        ("print(1+1)", Lua),
        ("-- os.execute('rm -rf /')\nprint(1)", Lua),
        ("{print $1}", Awk),
        ("{sum+=$3} END {print sum}", Awk),
        ("BEGIN{print \"x\" > \"/dev/stderr\"}", Awk),
        ("$3 > 5 {print $1}", Awk),
        ("print(R.version.string)", R),
        ("puts [expr 1+1]", Tcl),
        ("bt", Debugger),
        ("info registers", Debugger),
        ("s/x/y/", Sed),
        ("/foo/d", Sed),
        ("%s/a/b/g", Vim),
        ("wq", Vim),
        ("display dialog \"hi\"", AppleScript),
    ];
    for (code, lang) in cases {
        assert!(
            silent(code, *lang),
            "{lang:?} {code}: {:?}",
            run(code, *lang)
        );
    }
}

#[test]
fn plain_project_writes_report_their_paths() {
    assert_eq!(
        run("open('out.txt','w').write('x')", Python),
        [Effect::Writes(Some("out.txt".into()))]
    );
    assert_eq!(
        run("import os; os.remove(os.path.join('build', 'x.o'))", Python),
        [Effect::Writes(Some("build/x.o".into()))]
    );
    assert!(deletes("import shutil; shutil.rmtree('build')", Python).is_empty());
    assert!(deletes("shutil.rmtree('/' + name)", Generic).is_empty());
}

#[test]
fn argv_words_are_quoted() {
    assert_eq!(
        quote_words(&["bash".into(), "-c".into(), "rm -rf ~".into()]),
        "bash -c 'rm -rf ~'"
    );
    assert_eq!(quote_words(&["~".into(), "~/x y".into()]), "~ ~/'x y'");
    assert_eq!(quote_words(&["it's".into()]), r"'it'\''s'");
}

#[test]
fn huge_or_broken_code_is_bounded() {
    for lang in [
        Python,
        Js,
        Ruby,
        Perl,
        Php,
        Lua,
        Awk,
        R,
        Tcl,
        Debugger,
        Vim,
        Sed,
        AppleScript,
        Generic,
    ] {
        let _ = run(&"system(".repeat(50_000), lang);
        let _ = run(&"f(".repeat(50_000), lang);
        let _ = run("rmtree('", lang);
        let _ = run("s{", lang);
        let _ = run(&"é".repeat(MAX_CODE), lang);
        let _ = run("exec(\"exec(\\\"exec('x')\\\")\")", lang);
        let _ = run("[[", lang);
        let _ = run("q", lang);
        let _ = run("`", lang);
        let _ = run("%x", lang);
    }
}

#[test]
fn code_that_only_reads() {
    let reading = [
        (
            Python,
            "import json;print(json.load(open('.claude/settings.local.json')))",
        ),
        (
            Python,
            "print(open('.claude-nagger/config.toml', 'rb').read())",
        ),
        (
            Python,
            "print(open('.claude-nagger/config.toml', encoding='utf-8').read())",
        ),
        (
            Python,
            "from pathlib import Path\nprint(Path('.claude/settings.json').read_text())",
        ),
        (Js, "console.log(require('./.claude/settings.local.json'))"),
        (
            Js,
            "console.log(require('fs').readFileSync('.claude-nagger/config.toml','utf8'))",
        ),
        (Ruby, "puts File.read('.claude/settings.json')"),
        (
            Perl,
            "open(my $f, '<', '.claude/settings.json'); print <$f>",
        ),
    ];
    for (lang, code) in reading {
        assert!(reads_only(code, lang), "{code}");
    }
    let writing = [
        (
            Python,
            "open('.claude/settings.local.json','w').write('{}')",
        ),
        (Python, "open('.claude/settings.local.json', mode='a')"),
        (Python, "open('.claude/settings.local.json', m)"),
        (Python, "import os;print(open('x').read());os.remove('x')"),
        (
            Python,
            "import sqlite3;sqlite3.connect('.claude-nagger/state.db')",
        ),
        (Python, "import shutil;shutil.move('a','b')"),
        (Python, "exec(open('x').read())"),
        (Python, "print(f'{x}')"),
        (
            Js,
            "require('fs').writeFileSync('.claude/settings.local.json','{}')",
        ),
        (Js, "require('child_process')"),
        (Js, "require('fs').rmSync('x')"),
        (Ruby, "File.new('.claude/settings.json', 'w')"),
        (Perl, "open(my $f, '>', '.claude/settings.json')"),
        (Perl, "open(F, '>.claude/settings.json')"),
        (Perl, "print `cat x`"),
        // A function named in a string is called through it.
        (Php, "array_map(\"unlink\", glob(\".claude-nagger/*\"));"),
        (Ruby, "File.public_send(:delete, '.claude/settings.json')"),
        (
            Js,
            "const f = require('fs'); f['unlinkSync']('.claude/settings.json')",
        ),
    ];
    for (lang, code) in writing {
        assert!(!reads_only(code, lang), "{code}");
    }
}

#[test]
fn string_joins_are_not_path_joins() {
    // Perl's and PHP's `join(SEP, LIST)` glue strings: the name is `.claude/settings.json`.
    for (code, lang) in [
        ("unlink join('', '.cla','ude/set','tings.json');", Perl),
        ("unlink(join(q(), q(.cla), q(ude/settings.json)));", Perl),
        ("unlink(implode('', ['.cla', 'ude/settings.json']));", Php),
    ] {
        let named = run(code, lang).into_iter().any(|e| match e {
            Effect::Writes(Some(p)) | Effect::Deletes(p) => p == ".claude/settings.json",
            _ => false,
        });
        assert!(named, "{lang:?} {code}: {:?}", run(code, lang));
    }
    // A separator the code computes leaves the name unknown.
    assert!(unknown("unlink join($s, 'a', 'b');", Perl));
    assert!(unknown(
        "my $f = join '', ('.cla', 'ude/x'); unlink $f;",
        Perl
    ));
    // Path joins stay path joins.
    let code = "import os; os.remove(os.path.join('.claude', 'settings.json'))";
    assert!(
        run(code, Python).into_iter().any(|e| matches!(
            e,
            Effect::Writes(Some(p)) | Effect::Deletes(p) if p == ".claude/settings.json"
        )),
        "{:?}",
        run(code, Python)
    );
}

#[test]
fn a_declaration_list_binds_each_name_to_its_own_value() {
    for code in [
        "const fs=require('fs'), path=require('path');\nfs.writeFileSync(process.argv[2],'{}');",
        "let fs = require('fs'), os = 1;\nfs.unlinkSync(process.argv[2]);",
        "var a = 1, fs = require('fs');\nfs.rmSync(process.argv[2]);",
    ] {
        assert!(unknown(code, Language::Js), "{code}");
    }
    assert!(
        !deletes(
            "const fs = require('fs'), h = process.env.HOME;\nfs.rmSync(h, {recursive: true});",
            Language::Js
        )
        .is_empty()
    );
}

#[test]
fn a_shebang_line_is_no_code() {
    for code in [
        "#!/usr/bin/env node\nrequire('fs').writeFileSync(atob('LmNs'),'{}')\n",
        "#!/usr/bin/node\nconst fs = require('fs');\nfs.unlinkSync(process.argv[2]);\n",
    ] {
        assert!(unknown(code, Language::Js), "{code}");
    }
}

#[test]
fn paths_a_function_or_loop_is_handed_are_computed_unless_known() {
    let py = Language::Python;
    // A parameter's path method that changes a file, however reached.
    for code in [
        "def f(p):\n    (p / 'settings.local.json').write_text('{}')\n",
        "def f(p):\n    p.joinpath('settings.local.json').write_text('{}')\n",
        "def f(p):\n    p.unlink()\n",
        "from pathlib import Path\nfor p in Path('.').rglob('*.json'):\n    p.write_text('{}')\n",
    ] {
        assert!(!silent(code, py), "{code}: {:?}", run(code, py));
    }
    // pytest's temporary folders, and files a loop finds below a literal folder.
    for code in [
        "def t(tmp_path):\n    (tmp_path / 'x').write_text('1')\n",
        "def t(tmp_path):\n    out = tmp_path / 'o.json'\n    out.write_text('{}')\n",
        "from pathlib import Path\nfor p in Path('packages').rglob('*.py'):\n    p.write_text(p.read_text())\n",
    ] {
        let effects = run(code, py);
        assert!(
            effects
                .iter()
                .all(|e| !matches!(e, Effect::Unknown(_) | Effect::Writes(None))),
            "{code}: {effects:?}"
        );
    }
}

#[test]
fn a_loop_over_listed_names_writes_below_its_folder() {
    let written = |code: &str, lang: Language| -> Vec<Option<String>> {
        run(code, lang)
            .into_iter()
            .filter_map(|e| match e {
                Effect::Writes(p) => Some(p),
                Effect::Unknown(u) => Some(Some(format!("unknown {u}"))),
                _ => None,
            })
            .collect()
    };
    let code = "from pathlib import Path\nout = Path('build')\nout.mkdir(exist_ok=True)\nfor n in ('a', 'b'):\n    (out / f'{n}.txt').write_text(n)\n";
    let effects = run(code, Python);
    assert!(
        effects
            .iter()
            .all(|e| !matches!(e, Effect::Unknown(_) | Effect::Writes(None))),
        "{effects:?}"
    );
    let code = "const fs = require('fs');\nfor (const n of ['a', 'b']) {\n  fs.writeFileSync('build/' + n + '.json', '{}');\n}\n";
    assert!(
        written(code, Js)
            .iter()
            .all(|p| p.as_deref().is_some_and(|p| p.starts_with("build/"))),
        "{:?}",
        written(code, Js)
    );
    // Each name is judged where it lands: a hidden one, a parent.
    for (code, lands) in [
        (
            "import os\nfor n in ('.claude', 'x'):\n    open(os.path.join(n, 'settings.json'), 'w').write('{}')\n",
            ".claude/settings.json",
        ),
        (
            "import os\nfor n in ('a', '../b'):\n    open(os.path.join('build', n), 'w').write('{}')\n",
            "build/../b",
        ),
    ] {
        assert!(
            written(code, Python)
                .iter()
                .any(|p| p.as_deref() == Some(lands)),
            "{code}: {:?}",
            written(code, Python)
        );
    }
    // Tuples unpacked, numbers, comprehensions.
    for code in [
        "import csv\nfrom pathlib import Path\nout = Path('data/processed')\nfor name, part in (('train', 1), ('val', 2)):\n    open(out / f'{name}.csv', 'w').write('x')\n",
        "import shutil\nfor seed in (0, 1, 2):\n    shutil.rmtree(f'runs/seed{seed}')\n",
        "import glob, os\n[os.remove(f) for f in glob.glob('checkpoints/epoch_*.json')]\n",
    ] {
        let effects = run(code, Python);
        assert!(
            effects
                .iter()
                .all(|e| !matches!(e, Effect::Unknown(_) | Effect::Writes(None))),
            "{code}: {effects:?}"
        );
    }
    for (code, lands) in [
        (
            "for name, part in (('.claude', 1), ('val', 2)):\n    open(name + '/settings.json', 'w').write('x')\n",
            Some(".claude/settings.json"),
        ),
        // A pattern from a hidden folder is no folder below the project's own.
        (
            "import glob, os\n[os.remove(f) for f in glob.glob('.c*/*')]\n",
            None,
        ),
    ] {
        assert!(
            written(code, Python).iter().any(|p| p.as_deref() == lands),
            "{code}: {:?}",
            written(code, Python)
        );
    }
    let one = "for n in ('.claude',):\n    open(n + '/settings.json', 'w').write('{}')\n";
    assert!(
        written(one, Python)
            .iter()
            .any(|p| p.as_deref() == Some(".claude/settings.json")),
        "{:?}",
        written(one, Python)
    );
}

#[test]
fn names_bound_together_take_their_own_values() {
    for code in [
        "import shutil\nfrom pathlib import Path\nsrc, dst = Path('a'), Path('~/data')\nshutil.rmtree(dst)\n",
        "import shutil\nsrc, dst = ('a', '~/data')\nshutil.rmtree(dst)\n",
    ] {
        assert!(
            shells(code, Python).iter().any(|s| s == "rm -rf -- ~/data"),
            "{code}: {:?}",
            run(code, Python)
        );
    }
}
