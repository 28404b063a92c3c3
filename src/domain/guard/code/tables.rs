//! What gives code power over processes and files, per language: the calls that start
//! programs, delete, write or move files, or run code built at run time.

use super::model::Language::{self, Awk, Generic, Js, Lua, Perl, Php, Python, R, Ruby};

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Cap {
    /// A command line (one string) or, in Perl and Ruby, several words or a list.
    Shell,
    /// Like `Shell`, after skipping that many handle arguments (`open3($w, $r, $e, cmd)`).
    ShellAfter(usize),
    /// A program and its arguments as a list, or a command string (`subprocess.run`,
    /// `child_process.spawn(cmd, [args])`).
    Argv,
    /// `os.execl(path, arg0, arg1…)`: the index of the program; its `argv[0]` follows.
    ExecL(usize),
    /// `os.execv(path, [arg0, arg1…])`: the index of the program; the list follows.
    ExecV(usize),
    /// Deletes the trees its arguments from this index on name.
    Tree(usize),
    /// Deletes the entries its arguments from this index on name.
    Entry(usize),
    /// Deletes a tree when told `recursive`, else an entry.
    MaybeTree,
    /// Writes, moves, links or changes the files at these argument positions.
    Write(&'static [usize]),
    /// `open`: writes with a write mode; Perl and Ruby run a command with a pipe.
    Open,
    /// Runs code given as a string in the same language.
    Eval,
    /// Code whose effect cannot be known from its text (native code, computed loading).
    Opaque(&'static str),
    /// Unpacks an archive: writes files whose names only the archive knows.
    Unpack,
}

/// One capability: the languages it exists in (empty: every one), the modules or
/// receivers it is called on (empty: any or none; `""`: called bare), its name.
pub(super) struct Entry {
    pub langs: &'static [Language],
    pub quals: &'static [&'static str],
    pub name: &'static str,
    pub cap: Cap,
}

const fn e(
    langs: &'static [Language],
    quals: &'static [&'static str],
    name: &'static str,
    cap: Cap,
) -> Entry {
    Entry {
        langs,
        quals,
        name,
        cap,
    }
}

const PY: &[Language] = &[Python];
const JS: &[Language] = &[Js];
const RB: &[Language] = &[Ruby];
const PL: &[Language] = &[Perl];
const PHP: &[Language] = &[Php];
/// Laravel's `File` facade, by its short and full names.
const LARAVEL_FILE: &[&str] = &["File", "Illuminate\\Support\\Facades\\File", "Filesystem"];
const LUA: &[Language] = &[Lua];
const RL: &[Language] = &[R];
const AWK: &[Language] = &[Awk];

const OS: &[&str] = &["os", "posix", "nt"];
const SUB: &[&str] = &["subprocess"];
const SHUTIL: &[&str] = &["shutil"];
const CP: &[&str] = &["child_process", "node:child_process"];
const FS: &[&str] = &[
    "fs",
    "node:fs",
    "fs/promises",
    "node:fs/promises",
    "promises",
    "fse",
    "fs-extra",
    "Deno",
    "Bun",
];
const FU: &[&str] = &["FileUtils"];
const FILE: &[&str] = &["File", "Dir", "Pathname"];
const KERNEL: &[&str] = &["", "Kernel", "Process", "IO", "Open3", "PTY", "self"];

pub(super) const TABLE: &[Entry] = &[
    // Python.
    e(PY, OS, "system", Cap::Shell),
    e(PY, OS, "popen", Cap::Shell),
    e(PY, &["commands"], "getoutput", Cap::Shell),
    e(PY, SUB, "getoutput", Cap::Shell),
    e(PY, SUB, "getstatusoutput", Cap::Shell),
    e(PY, SUB, "run", Cap::Argv),
    e(PY, SUB, "call", Cap::Argv),
    e(PY, SUB, "Popen", Cap::Argv),
    e(PY, SUB, "check_call", Cap::Argv),
    e(PY, SUB, "check_output", Cap::Argv),
    e(PY, &["pty"], "spawn", Cap::Argv),
    e(PY, &["asyncio"], "create_subprocess_shell", Cap::Shell),
    e(
        PY,
        &["asyncio"],
        "create_subprocess_exec",
        Cap::ExecL(usize::MAX),
    ),
    e(PY, OS, "startfile", Cap::Argv),
    // nox's sessions: `session.run("rm", "-rf", path)`, a program and its arguments.
    e(PY, &["session"], "run", Cap::ExecL(usize::MAX)),
    e(PY, &["session"], "run_always", Cap::ExecL(usize::MAX)),
    e(PY, &["session"], "run_install", Cap::ExecL(usize::MAX)),
    e(PY, OS, "execl", Cap::ExecL(0)),
    e(PY, OS, "execle", Cap::ExecL(0)),
    e(PY, OS, "execlp", Cap::ExecL(0)),
    e(PY, OS, "execlpe", Cap::ExecL(0)),
    e(PY, OS, "execv", Cap::ExecV(0)),
    e(PY, OS, "execve", Cap::ExecV(0)),
    e(PY, OS, "execvp", Cap::ExecV(0)),
    e(PY, OS, "execvpe", Cap::ExecV(0)),
    e(PY, OS, "posix_spawn", Cap::ExecV(0)),
    e(PY, OS, "posix_spawnp", Cap::ExecV(0)),
    e(PY, OS, "spawnl", Cap::ExecL(1)),
    e(PY, OS, "spawnle", Cap::ExecL(1)),
    e(PY, OS, "spawnlp", Cap::ExecL(1)),
    e(PY, OS, "spawnlpe", Cap::ExecL(1)),
    e(PY, OS, "spawnv", Cap::ExecV(1)),
    e(PY, OS, "spawnve", Cap::ExecV(1)),
    e(PY, OS, "spawnvp", Cap::ExecV(1)),
    e(PY, OS, "spawnvpe", Cap::ExecV(1)),
    e(PY, OS, "remove", Cap::Entry(0)),
    e(PY, OS, "unlink", Cap::Entry(0)),
    e(PY, OS, "rmdir", Cap::Entry(0)),
    e(PY, OS, "removedirs", Cap::Entry(0)),
    e(PY, OS, "rename", Cap::Write(&[0, 1])),
    e(PY, OS, "renames", Cap::Write(&[0, 1])),
    e(PY, OS, "replace", Cap::Write(&[0, 1])),
    e(PY, OS, "symlink", Cap::Write(&[1])),
    e(PY, OS, "link", Cap::Write(&[1])),
    e(PY, OS, "chmod", Cap::Write(&[0])),
    e(PY, OS, "lchmod", Cap::Write(&[0])),
    e(PY, OS, "chown", Cap::Write(&[0])),
    e(PY, OS, "truncate", Cap::Write(&[0])),
    e(PY, SHUTIL, "rmtree", Cap::Tree(0)),
    e(
        PY,
        &[
            "distutils.dir_util",
            "dir_util",
            "setuptools._distutils.dir_util",
        ],
        "remove_tree",
        Cap::Tree(0),
    ),
    e(PY, SHUTIL, "move", Cap::Write(&[0, 1])),
    e(PY, SHUTIL, "copy", Cap::Write(&[1])),
    e(PY, SHUTIL, "copy2", Cap::Write(&[1])),
    e(PY, SHUTIL, "copyfile", Cap::Write(&[1])),
    e(PY, SHUTIL, "copytree", Cap::Write(&[1])),
    e(PY, SHUTIL, "chown", Cap::Write(&[0])),
    e(PY, SHUTIL, "unpack_archive", Cap::Unpack),
    // A pickle (or marshal, dill, cloudpickle data) runs whatever code it holds as it
    // is loaded; so does YAML read with its unsafe loader.
    e(
        PY,
        &[
            "pickle",
            "cPickle",
            "_pickle",
            "dill",
            "cloudpickle",
            "marshal",
        ],
        "load",
        Cap::Opaque("loads a pickle, which runs whatever code it holds"),
    ),
    e(
        PY,
        &[
            "pickle",
            "cPickle",
            "_pickle",
            "dill",
            "cloudpickle",
            "marshal",
        ],
        "loads",
        Cap::Opaque("loads a pickle, which runs whatever code it holds"),
    ),
    e(
        PY,
        &["pickle", "_pickle"],
        "Unpickler",
        Cap::Opaque("loads a pickle, which runs whatever code it holds"),
    ),
    e(
        PY,
        &["yaml"],
        "unsafe_load",
        Cap::Opaque("reads YAML with its unsafe loader, which runs code the file names"),
    ),
    e(
        PY,
        &["yaml"],
        "unsafe_load_all",
        Cap::Opaque("reads YAML with its unsafe loader, which runs code the file names"),
    ),
    // doctest runs the examples of the files and docstrings it is given.
    e(
        PY,
        &["doctest"],
        "testfile",
        Cap::Opaque("runs the examples of a text file"),
    ),
    e(
        PY,
        &["doctest"],
        "DocFileSuite",
        Cap::Opaque("runs the examples of text files"),
    ),
    // `uu.decode(f)`: the file is named in `f`'s `begin` line.
    e(PY, &["uu"], "decode", Cap::Unpack),
    // `venv.create(dir, clear=True)`, `venv.EnvBuilder(clear=True).create(dir)`: a
    // folder emptied and filled with programs.
    e(PY, &["venv"], "create", Cap::Tree(0)),
    e(PY, &["virtualenv"], "cli_run", Cap::Write(&[0])),
    // `tarfile.open(x).extractall()`, `zipfile.ZipFile(x).extract(m)`: any receiver.
    e(PY, &[], "extractall", Cap::Unpack),
    e(PY, &[], "extract", Cap::Unpack),
    e(JS, &[], "extractAllTo", Cap::Unpack),
    e(JS, &[], "extractEntryTo", Cap::Unpack),
    e(JS, &["tar"], "x", Cap::Unpack),
    e(JS, &["tar"], "extract", Cap::Unpack),
    e(
        JS,
        &["", "decompress", "extract", "extractZip"],
        "decompress",
        Cap::Unpack,
    ),
    e(RB, &[], "extract", Cap::Unpack),
    e(PL, &[], "extract", Cap::Unpack),
    // Archive::Tar, Archive::Zip.
    e(PL, &[], "extract_archive", Cap::Unpack),
    e(PL, &[], "extract_file", Cap::Unpack),
    e(PL, &[], "extractTree", Cap::Unpack),
    e(PL, &[], "extractMember", Cap::Unpack),
    e(PL, &[], "extractMemberWithoutPaths", Cap::Unpack),
    // Gem::Package, Minitar.
    e(RB, &[], "extract_files", Cap::Unpack),
    e(
        RB,
        &["Minitar", "Archive::Tar::Minitar"],
        "unpack",
        Cap::Unpack,
    ),
    e(PHP, &[], "extractTo", Cap::Unpack),
    e(PY, &[""], "open", Cap::Open),
    e(PY, &["io", "codecs", "builtins"], "open", Cap::Open),
    // Files the standard library opens to write by its own means: a database (created,
    // and changed by the statements run on it), a shelf, a compressed or archive file
    // opened to write, a log file.
    e(PY, &["sqlite3"], "connect", Cap::Write(&[0])),
    // Perl's `sysopen(FH, PATH, FLAGS)`: the flags nagger reads as a computed mode.
    e(PL, &[""], "sysopen", Cap::Write(&[1])),
    // `os.open(p, os.O_WRONLY | os.O_CREAT)`: flags nagger reads as a computed mode.
    e(PY, OS, "open", Cap::Open),
    e(PY, &["io", "_io"], "FileIO", Cap::Open),
    e(PY, OS, "mkfifo", Cap::Write(&[0])),
    e(PY, OS, "mknod", Cap::Write(&[0])),
    e(PY, OS, "utime", Cap::Write(&[0])),
    e(
        PY,
        &["shelve", "dbm", "dbm.gnu", "dbm.ndbm", "dbm.dumb"],
        "open",
        Cap::Write(&[0]),
    ),
    e(
        PY,
        &["gzip", "bz2", "lzma", "tarfile", "wave", "aifc"],
        "open",
        Cap::Open,
    ),
    e(PY, &["zipfile"], "ZipFile", Cap::Open),
    e(
        PY,
        &["logging", "handlers", "logging.handlers"],
        "FileHandler",
        Cap::Write(&[0]),
    ),
    e(
        PY,
        &["logging", "handlers", "logging.handlers"],
        "RotatingFileHandler",
        Cap::Write(&[0]),
    ),
    e(
        PY,
        &["logging", "handlers", "logging.handlers"],
        "TimedRotatingFileHandler",
        Cap::Write(&[0]),
    ),
    e(
        PY,
        &["logging", "handlers", "logging.handlers"],
        "WatchedFileHandler",
        Cap::Write(&[0]),
    ),
    e(PY, &["", "builtins"], "eval", Cap::Eval),
    e(PY, &["", "builtins"], "exec", Cap::Eval),
    e(PY, &["", "builtins"], "compile", Cap::Eval),
    e(
        PY,
        &["", "builtins"],
        "execfile",
        Cap::Opaque("runs a file the code names"),
    ),
    e(
        PY,
        &["py_compile"],
        "compile",
        Cap::Opaque("compiles code into bytecode, which Python may run in place of a source"),
    ),
    e(
        PY,
        &["compileall"],
        "compile_file",
        Cap::Opaque("compiles code into bytecode, which Python may run in place of a source"),
    ),
    e(
        PY,
        &["ctypes", "cffi"],
        "CDLL",
        Cap::Opaque("calls native code"),
    ),
    // JavaScript (Node, Deno, Bun).
    e(JS, CP, "exec", Cap::Shell),
    e(JS, CP, "execSync", Cap::Shell),
    e(JS, CP, "execFile", Cap::Argv),
    e(JS, CP, "execFileSync", Cap::Argv),
    e(JS, CP, "spawn", Cap::Argv),
    e(JS, CP, "spawnSync", Cap::Argv),
    e(JS, CP, "fork", Cap::Argv),
    e(JS, &["Bun"], "spawn", Cap::Argv),
    e(JS, &["Bun"], "spawnSync", Cap::Argv),
    e(JS, &["Deno"], "run", Cap::Argv),
    e(JS, &["Deno"], "Command", Cap::Argv),
    e(JS, &["", "Bun"], "$", Cap::Shell),
    e(JS, &["", "execa"], "execa", Cap::Argv),
    e(JS, &["", "execa"], "execaSync", Cap::Argv),
    e(JS, &["", "execa"], "execaCommand", Cap::Shell),
    e(JS, &["shell", "shelljs"], "exec", Cap::Shell),
    e(JS, FS, "rmSync", Cap::MaybeTree),
    e(JS, FS, "rm", Cap::MaybeTree),
    e(JS, FS, "remove", Cap::MaybeTree),
    e(JS, FS, "removeSync", Cap::Tree(0)),
    e(JS, FS, "emptyDir", Cap::Tree(0)),
    e(JS, FS, "emptyDirSync", Cap::Tree(0)),
    e(JS, FS, "rmdirSync", Cap::MaybeTree),
    e(JS, FS, "rmdir", Cap::MaybeTree),
    e(JS, &[""], "rimraf", Cap::Tree(0)),
    e(JS, &["rimraf"], "sync", Cap::Tree(0)),
    e(JS, FS, "unlinkSync", Cap::Entry(0)),
    e(JS, FS, "unlink", Cap::Entry(0)),
    e(JS, FS, "writeFileSync", Cap::Write(&[0])),
    e(JS, FS, "writeFile", Cap::Write(&[0])),
    e(JS, FS, "writeTextFile", Cap::Write(&[0])),
    e(JS, FS, "writeTextFileSync", Cap::Write(&[0])),
    e(JS, FS, "write", Cap::Write(&[0])),
    e(JS, FS, "appendFileSync", Cap::Write(&[0])),
    e(JS, FS, "appendFile", Cap::Write(&[0])),
    e(JS, FS, "createWriteStream", Cap::Write(&[0])),
    e(JS, FS, "truncateSync", Cap::Write(&[0])),
    e(JS, FS, "truncate", Cap::Write(&[0])),
    e(JS, FS, "chmodSync", Cap::Write(&[0])),
    e(JS, FS, "chmod", Cap::Write(&[0])),
    e(JS, FS, "chownSync", Cap::Write(&[0])),
    e(JS, FS, "renameSync", Cap::Write(&[0, 1])),
    e(JS, FS, "rename", Cap::Write(&[0, 1])),
    e(JS, FS, "copyFileSync", Cap::Write(&[1])),
    e(JS, FS, "copyFile", Cap::Write(&[1])),
    e(JS, FS, "cpSync", Cap::Write(&[1])),
    e(JS, FS, "cp", Cap::Write(&[1])),
    e(JS, FS, "symlinkSync", Cap::Write(&[1])),
    e(JS, FS, "symlink", Cap::Write(&[1])),
    e(JS, FS, "linkSync", Cap::Write(&[1])),
    e(JS, FS, "openSync", Cap::Open),
    e(
        JS,
        &["", "window", "global", "globalThis"],
        "eval",
        Cap::Eval,
    ),
    e(JS, &["", "new"], "Function", Cap::Eval),
    e(JS, &["vm"], "runInThisContext", Cap::Eval),
    e(JS, &["vm"], "runInNewContext", Cap::Eval),
    e(JS, &["vm"], "runInContext", Cap::Eval),
    e(JS, &["vm"], "compileFunction", Cap::Eval),
    e(JS, &["vm"], "Script", Cap::Eval),
    e(
        JS,
        &["process"],
        "binding",
        Cap::Opaque("reaches Node's internals"),
    ),
    e(JS, &["process"], "dlopen", Cap::Opaque("loads native code")),
    // Ruby.
    e(RB, KERNEL, "system", Cap::Shell),
    e(RB, KERNEL, "exec", Cap::Shell),
    e(RB, KERNEL, "spawn", Cap::Shell),
    e(RB, KERNEL, "popen", Cap::Shell),
    e(RB, KERNEL, "popen2", Cap::Shell),
    e(RB, KERNEL, "popen2e", Cap::Shell),
    e(RB, KERNEL, "popen3", Cap::Shell),
    e(RB, KERNEL, "capture2", Cap::Shell),
    e(RB, KERNEL, "capture2e", Cap::Shell),
    e(RB, KERNEL, "capture3", Cap::Shell),
    e(RB, KERNEL, "pipeline", Cap::Shell),
    e(RB, KERNEL, "pipeline_r", Cap::Shell),
    e(RB, KERNEL, "pipeline_w", Cap::Shell),
    e(RB, KERNEL, "open", Cap::Open),
    e(RB, &["File", "IO"], "open", Cap::Open),
    e(RB, &["File", "IO"], "new", Cap::Open),
    e(RB, KERNEL, "syscall", Cap::Opaque("makes raw system calls")),
    e(RB, FU, "rm_rf", Cap::Tree(0)),
    e(RB, FU, "rm_r", Cap::Tree(0)),
    e(RB, FU, "rmtree", Cap::Tree(0)),
    e(RB, FU, "remove_dir", Cap::Tree(0)),
    e(RB, FU, "remove_entry", Cap::Tree(0)),
    e(RB, FU, "remove_entry_secure", Cap::Tree(0)),
    e(RB, FU, "rm", Cap::Entry(0)),
    e(RB, FU, "rm_f", Cap::Entry(0)),
    e(RB, FU, "remove", Cap::Entry(0)),
    e(RB, FU, "safe_unlink", Cap::Entry(0)),
    e(RB, FU, "rmdir", Cap::Entry(0)),
    e(RB, FU, "mv", Cap::Write(&[0, 1])),
    e(RB, FU, "move", Cap::Write(&[0, 1])),
    e(RB, FU, "cp", Cap::Write(&[1])),
    e(RB, FU, "cp_r", Cap::Write(&[1])),
    e(RB, FU, "copy", Cap::Write(&[1])),
    e(RB, FU, "install", Cap::Write(&[1])),
    e(RB, FU, "ln", Cap::Write(&[1])),
    e(RB, FU, "ln_s", Cap::Write(&[1])),
    e(RB, FU, "ln_sf", Cap::Write(&[1])),
    e(RB, FU, "touch", Cap::Write(&[0])),
    e(RB, FU, "chmod", Cap::Write(&[1])),
    e(RB, FU, "chmod_R", Cap::Write(&[1])),
    e(RB, FU, "chown", Cap::Write(&[2])),
    e(RB, FILE, "delete", Cap::Entry(0)),
    e(RB, FILE, "unlink", Cap::Entry(0)),
    e(RB, FILE, "rmdir", Cap::Entry(0)),
    e(RB, FILE, "write", Cap::Write(&[0])),
    e(RB, FILE, "binwrite", Cap::Write(&[0])),
    e(RB, FILE, "rename", Cap::Write(&[0, 1])),
    e(RB, FILE, "symlink", Cap::Write(&[1])),
    e(RB, FILE, "link", Cap::Write(&[1])),
    e(RB, FILE, "chmod", Cap::Write(&[1])),
    e(RB, FILE, "truncate", Cap::Write(&[0])),
    e(RB, &[""], "eval", Cap::Eval),
    e(RB, &[""], "instance_eval", Cap::Eval),
    e(RB, &[""], "class_eval", Cap::Eval),
    e(RB, &[""], "module_eval", Cap::Eval),
    e(
        RB,
        &["Kernel", "binding", "TOPLEVEL_BINDING"],
        "eval",
        Cap::Eval,
    ),
    e(RB, &[], "instance_eval", Cap::Eval),
    e(RB, &[], "class_eval", Cap::Eval),
    e(RB, &[], "module_eval", Cap::Eval),
    // Perl.
    e(PL, &[""], "system", Cap::Shell),
    e(PL, &[""], "exec", Cap::Shell),
    e(PL, &[""], "readpipe", Cap::Shell),
    e(PL, &["", "IPC::Open2"], "open2", Cap::ShellAfter(2)),
    e(PL, &["", "IPC::Open3"], "open3", Cap::ShellAfter(3)),
    e(PL, &[""], "open", Cap::Open),
    e(PL, &[""], "unlink", Cap::Entry(0)),
    e(PL, &[""], "rmdir", Cap::Entry(0)),
    e(PL, &["", "File::Path"], "rmtree", Cap::Tree(0)),
    e(PL, &["", "File::Path"], "remove_tree", Cap::Tree(0)),
    e(PL, &[""], "rename", Cap::Write(&[0, 1])),
    e(PL, &["", "File::Copy"], "move", Cap::Write(&[0, 1])),
    e(PL, &["", "File::Copy"], "copy", Cap::Write(&[1])),
    e(PL, &[""], "symlink", Cap::Write(&[1])),
    e(PL, &[""], "link", Cap::Write(&[1])),
    e(PL, &[""], "truncate", Cap::Write(&[0])),
    e(PL, &[""], "chmod", Cap::Write(&[1, 2, 3])),
    e(PL, &[""], "eval", Cap::Eval),
    e(PL, &[""], "syscall", Cap::Opaque("makes raw system calls")),
    // PHP.
    e(PHP, &[""], "system", Cap::Shell),
    e(PHP, &[""], "exec", Cap::Shell),
    e(PHP, &[""], "shell_exec", Cap::Shell),
    e(PHP, &[""], "passthru", Cap::Shell),
    e(PHP, &[""], "popen", Cap::Shell),
    e(PHP, &[""], "proc_open", Cap::Argv),
    e(PHP, &[""], "pcntl_exec", Cap::ExecV(0)),
    e(PHP, &[""], "unlink", Cap::Entry(0)),
    e(PHP, &[""], "rmdir", Cap::Entry(0)),
    e(PHP, &[""], "rename", Cap::Write(&[0, 1])),
    e(PHP, &[""], "copy", Cap::Write(&[1])),
    e(PHP, &[""], "file_put_contents", Cap::Write(&[0])),
    e(PHP, &[""], "symlink", Cap::Write(&[1])),
    e(PHP, &[""], "link", Cap::Write(&[1])),
    e(PHP, &[""], "chmod", Cap::Write(&[0])),
    e(PHP, &[""], "touch", Cap::Write(&[0])),
    e(PHP, &[""], "fopen", Cap::Open),
    // Laravel's `File` facade (`File::deleteDirectory($dir)`).
    e(PHP, LARAVEL_FILE, "deleteDirectory", Cap::Tree(0)),
    e(PHP, LARAVEL_FILE, "deleteDirectories", Cap::Tree(0)),
    e(PHP, LARAVEL_FILE, "cleanDirectory", Cap::Tree(0)),
    e(PHP, LARAVEL_FILE, "delete", Cap::Entry(0)),
    e(PHP, LARAVEL_FILE, "put", Cap::Write(&[0])),
    e(PHP, LARAVEL_FILE, "replace", Cap::Write(&[0])),
    e(PHP, LARAVEL_FILE, "append", Cap::Write(&[0])),
    e(PHP, LARAVEL_FILE, "prepend", Cap::Write(&[0])),
    e(PHP, LARAVEL_FILE, "move", Cap::Write(&[0, 1])),
    e(PHP, LARAVEL_FILE, "moveDirectory", Cap::Write(&[0, 1])),
    e(PHP, LARAVEL_FILE, "copy", Cap::Write(&[1])),
    e(PHP, LARAVEL_FILE, "copyDirectory", Cap::Write(&[1])),
    e(PHP, LARAVEL_FILE, "link", Cap::Write(&[1])),
    e(PHP, &[""], "eval", Cap::Eval),
    e(PHP, &[""], "assert", Cap::Eval),
    e(PHP, &[""], "create_function", Cap::Eval),
    e(PHP, &["FFI"], "cdef", Cap::Opaque("calls native code")),
    // Lua.
    e(LUA, &["os"], "execute", Cap::Shell),
    e(LUA, &["io"], "popen", Cap::Shell),
    e(LUA, &["os"], "remove", Cap::Entry(0)),
    e(LUA, &["os"], "rename", Cap::Write(&[0, 1])),
    e(LUA, &["io"], "open", Cap::Open),
    e(LUA, &["io"], "output", Cap::Write(&[0])),
    e(LUA, &["", "_G"], "load", Cap::Eval),
    e(LUA, &["", "_G"], "loadstring", Cap::Eval),
    e(
        LUA,
        &["package"],
        "loadlib",
        Cap::Opaque("loads native code"),
    ),
    // R.
    e(RL, &["", "base"], "system", Cap::Shell),
    e(RL, &["", "base"], "system2", Cap::ExecV(0)),
    e(RL, &["", "base"], "shell", Cap::Shell),
    e(RL, &["", "base"], "pipe", Cap::Shell),
    e(RL, &["processx", "sys"], "run", Cap::ExecV(0)),
    e(RL, &["", "base"], "unlink", Cap::MaybeTree),
    e(RL, &["", "base", "fs"], "file.remove", Cap::Entry(0)),
    e(RL, &["fs"], "dir_delete", Cap::Tree(0)),
    e(RL, &["fs"], "file_delete", Cap::Entry(0)),
    e(RL, &["", "base"], "file.rename", Cap::Write(&[0, 1])),
    e(RL, &["", "base"], "file.copy", Cap::Write(&[1])),
    e(RL, &["", "base"], "file.create", Cap::Write(&[0])),
    e(RL, &["", "base"], "writeLines", Cap::Write(&[1])),
    e(RL, &["", "base"], "write", Cap::Write(&[1])),
    e(RL, &["", "base"], "saveRDS", Cap::Write(&[1])),
    e(RL, &["", "base"], "eval", Cap::Eval),
    e(RL, &["", "base"], "evalq", Cap::Eval),
    e(
        RL,
        &["", "base"],
        "dyn.load",
        Cap::Opaque("loads native code"),
    ),
    e(RL, &["", "base"], ".Call", Cap::Opaque("calls native code")),
    // awk.
    e(AWK, &[""], "system", Cap::Shell),
];

/// Names that mean native code or code loaded under a computed name wherever they appear.
pub(super) const OPAQUE_NAMES: &[(&[Language], &str)] = &[
    (PY, "ctypes"),
    (PY, "cffi"),
    (RB, "Fiddle"),
    (RB, "FFI"),
    (PHP, "FFI"),
];

/// Calls that hand back the module they load (`require('fs')`, `__import__('os')`).
pub(super) const LOADERS: &[&str] = &["require", "__import__", "import_module", "import", "dofile"];

/// Calls that pick a function by a name given as a value: (name, position of the name).
pub(super) const DISPATCH: &[(&str, usize)] = &[
    ("getattr", 1),
    ("send", 0),
    ("public_send", 0),
    ("__send__", 0),
    ("method", 0),
    ("call_user_func", 0),
    ("call_user_func_array", 0),
    ("do.call", 0),
    ("match.fun", 0),
    ("get", 0),
    ("const_get", 0),
    ("rawget", 1),
];

/// Calls that build a path from their string arguments without touching the disk.
pub(super) const PATH_BUILDERS: &[&str] = &[
    "join",
    "joinpath",
    "expanduser",
    "expand_path",
    "abspath",
    "realpath",
    "normpath",
    "resolve",
    "absolute",
    "Path",
    "PurePath",
    "PosixPath",
    "fspath",
    "str",
    "String",
    "catfile",
    "catdir",
    "file.path",
    "path.expand",
    "normalizePath",
    "path",
    "glob",
    "as_posix",
    "to_s",
    "toString",
    "new",
    "Pathname",
    "fileURLToPath",
];

/// Calls and names that stand for the home directory.
pub(super) const HOME_NAMES: &[&str] = &["home", "homedir", "gethome", "get_home_dir", "home_dir"];

/// Calls and names that stand for the working directory.
pub(super) const CWD_NAMES: &[&str] = &["getcwd", "cwd", "pwd", "getwd", "__dirname", "curdir"];

/// Names through which code reads the environment.
pub(super) const ENV_NAMES: &[&str] = &[
    "environ",
    "env",
    "ENV",
    "$ENV",
    "%ENV",
    "getenv",
    "Getenv",
    "Sys.getenv",
    "$_ENV",
    "$_SERVER",
    "getenvb",
];

/// Methods that delete or write the path object they are called on, and whether they
/// delete a whole tree.
pub(super) const RECEIVER_METHODS: &[(&str, Option<bool>)] = &[
    ("unlink", Some(false)),
    ("rmdir", Some(false)),
    ("rmtree", Some(true)),
    ("write_text", None),
    ("write_bytes", None),
    ("touch", None),
    ("symlink_to", None),
    ("hardlink_to", None),
    // Unpacking an archive writes what only the archive names.
    ("extractall", None),
    ("extract", None),
    ("extractAllTo", None),
    ("extractEntryTo", None),
    ("extractTo", None),
    ("extract_archive", None),
    ("extract_file", None),
    ("extract_files", None),
    ("extractTree", None),
    ("extractMember", None),
    ("extractMemberWithoutPaths", None),
];

/// Methods that unpack an archive, whatever they are called on: they write names only the
/// archive knows (`$tar->extract_file(…)`, `zip.extractall()`).
pub(super) const UNPACK_METHODS: &[&str] = &[
    "extractall",
    "extractAllTo",
    "extractEntryTo",
    "extractTo",
    "extract_archive",
    "extract_file",
    "extract_files",
    "extractTree",
    "extractMember",
    "extractMemberWithoutPaths",
];

/// Whether `lang` lets a call take its arguments without brackets (`system "ls"`).
pub(super) fn bare_calls(lang: Language) -> bool {
    matches!(lang, Perl | Ruby | Lua | Generic)
}

pub(super) fn applies(entry: &Entry, lang: Language) -> bool {
    entry.langs.is_empty() || lang == Generic || entry.langs.contains(&lang)
}
