//! `nagger ui`: a local, read-only web dashboard of the project's database. It listens on
//! 127.0.0.1 only, answers data only to requests that carry the token printed at start (the
//! page takes it from its address's fragment and sends it in a header; never a cookie,
//! which every port of the host would receive) and name the loopback host (so a page of another site cannot reach it
//! through a rebound DNS name), and reads through a pool of read-only connections while
//! hooks keep writing. The page is static (embedded here) and polls a cheap change marker.
//! No local process can hold it up: connections are read side by side without a thread
//! each, bounded in time and size, and one without the token is answered and closed on
//! its request's head; what reads the database is bounded in time too (see [`api`]).

mod api;
mod conn;
mod http;
mod listen;
mod state;

use crate::base::paths::Env;
use crate::storage::store::ui_queries;
use anyhow::Context as _;
use http::{Answer, Request};
use state::Ui;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::sync::Arc;

/// Pooled read-only connections to the database; requests beyond wait for one.
const READERS: u32 = 4;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const APP_CSS: &str = include_str!("assets/app.css");

/// What `nagger ui` was asked for.
#[derive(Debug, Clone)]
pub struct Options {
    /// 0: any free port.
    pub port: u16,
    /// Open the page in the desktop's browser.
    pub open: bool,
}

/// Serves until the process is stopped.
pub fn run(env: &Env, options: &Options) -> anyhow::Result<()> {
    let project_root = env.project_root(None);
    let db_path = env.db_path(&project_root);
    // SQLite would wait for ever on a FIFO there: such a file is not opened. Without a
    // database (nagger installed, no hook run yet) the dashboard is empty, and fills once
    // the first hook run has created one: nothing is created here. A database that cannot
    // be read now (another process holds it, a FIFO in place of a file) does not keep the
    // dashboard from starting: its pages say so, and each request tries again.
    let readable = api::check_db_files(&db_path).is_ok();
    let unavailable = if !readable {
        Some("one of its files is not a regular file".to_owned())
    } else if db_path.try_exists().unwrap_or(false) {
        ui_queries::opens_at_once(&db_path)
            .err()
            .map(|e| e.to_string())
    } else {
        None
    };
    // A low limit of open files raised before the first connection can come.
    listen::open_files_limit();
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, options.port)))
        .map_err(|e| anyhow::anyhow!("cannot listen on 127.0.0.1:{}: {e}", options.port))?;
    let port = listener
        .local_addr()
        .map(|a| a.port())
        .context("the server has no TCP address")?;
    // Its long queue from the start: clients may connect before the server runs.
    listen::widen_backlog(&listener);
    let token = http::new_token()?;
    // The token in the fragment: a browser never sends that part of an address anywhere.
    let url = format!("http://127.0.0.1:{port}/#token={token}");
    // A reader that went away does not stop the server.
    let reading = if let Some(why) = &unavailable {
        format!(
            "the database at {} cannot be read now ({why}): the pages say so until it can",
            db_path.display()
        )
    } else if db_path.try_exists().unwrap_or(false) {
        format!("reading {} (read-only)", db_path.display())
    } else {
        format!(
            "no database yet at {}: the dashboard is empty until the first hook run creates it",
            db_path.display()
        )
    };
    let banner = format!("nagger ui: {url}\n{reading}; stop with Ctrl-C");
    let mut out = crate::base::output::Output::stdout();
    let _ = out.line(&banner).and_then(|()| out.flush());
    if options.open {
        open_browser(&url);
    }
    let serve = || {
        let readable = api::check_db_files(&db_path).is_ok();
        let (pool, _) = ui_queries::read_pool_lenient(&db_path, READERS, readable)
            .with_context(|| format!("reading {}", db_path.display()))?;
        let ui = Arc::new(Ui {
            pool,
            counts: std::sync::Mutex::default(),
            db_path: db_path.clone(),
            project_root: project_root.clone(),
            token: token.clone(),
            port,
            reads: std::sync::Arc::default(),
            answered: std::sync::Mutex::default(),
        });
        // Count the runs per session now, not on the first look at the sessions page (a
        // million-row log takes a second or so).
        {
            let ui = Arc::clone(&ui);
            std::thread::spawn(move || {
                if api::check_db_files(&ui.db_path).is_ok()
                    && let Ok(conn) = ui.pool.get()
                    && let Ok(mut counts) = ui.counts.lock()
                {
                    let _ = counts.refresh(&conn);
                }
            });
        }
        listen::serve(&listener, &ui)
    };
    supervise(serve)
}

/// Faults that end a server process through no fault of its own: SQLite maps the
/// database's shared-memory file, and another process that truncates it makes the next
/// read of the mapping raise `SIGBUS`.
#[cfg(target_os = "linux")]
const RESTARTED_ON: &[libc::c_int] = &[libc::SIGBUS, libc::SIGSEGV];

/// Runs `serve` in a child process and starts it again when a fault ends it
/// ([`RESTARTED_ON`]): the listening socket, the token and the address stay the
/// parent's, so the page keeps working and only the requests in flight are lost. The
/// parent runs nothing else (one thread, which `fork` needs), and the child ends with
/// it. Where this cannot be done (another system, a thread already running, `fork`
/// failing), `serve` runs in this process.
fn supervise(serve: impl Fn() -> anyhow::Result<()>) -> anyhow::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let single = std::fs::read_dir("/proc/self/task").is_ok_and(|t| t.count() == 1);
        if single {
            return supervised(&serve);
        }
    }
    serve()
}

#[cfg(target_os = "linux")]
fn supervised(serve: &dyn Fn() -> anyhow::Result<()>) -> anyhow::Result<()> {
    // SAFETY: plain system calls; the parent has one thread (checked by the caller).
    let parent = unsafe { libc::getpid() };
    let mut starts: std::collections::VecDeque<std::time::Instant> =
        std::collections::VecDeque::new();
    loop {
        // Faults in quick succession: a pause before the next start.
        starts.push_back(std::time::Instant::now());
        while starts.len() > 5 {
            starts.pop_front();
        }
        if starts.len() == 5 && starts[0].elapsed() < std::time::Duration::from_secs(10) {
            std::thread::sleep(std::time::Duration::from_secs(1));
        }
        // SAFETY: the process has one thread; the child only runs `serve` and exits.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return serve();
        }
        if pid == 0 {
            // SAFETY: ends this child with its parent; `getppid` tells whether the
            // parent ended before that was set.
            unsafe {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                if libc::getppid() != parent {
                    libc::_exit(0);
                }
            }
            let code = match serve() {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("nagger: {e:#}");
                    1
                }
            };
            std::process::exit(code);
        }
        let mut status: libc::c_int = 0;
        loop {
            // SAFETY: waits for the child just started.
            let got = unsafe { libc::waitpid(pid, &raw mut status, 0) };
            if got == pid {
                break;
            }
            if got < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
            {
                anyhow::bail!("lost the dashboard's server process");
            }
        }
        if libc::WIFSIGNALED(status) {
            let signal = libc::WTERMSIG(status);
            if RESTARTED_ON.contains(&signal) {
                eprintln!(
                    "nagger ui: the server stopped on a fault (signal {signal}, a file it \
                     maps changed under it); serving again"
                );
                continue;
            }
            // Stopped from outside: this process ends the same way.
            // SAFETY: the default action of the signal the child ended on.
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
            }
        }
        std::process::exit(if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else {
            1
        });
    }
}

/// Opens the dashboard in a browser. The URL holds the token, and a program's arguments
/// are visible to every local user (`ps`), so the browser is handed a page only this user
/// can read, which leads on to the URL.
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let page = match private_page(url) {
        Ok(page) => page,
        Err(e) => {
            eprintln!(
                "nagger: could not write the page that opens the dashboard ({e}); open the URL above"
            );
            return;
        }
    };
    let spawned = std::process::Command::new(opener)
        .arg(&page)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        eprintln!("nagger: could not open a browser with {opener} ({e}); open the URL above");
    }
}

/// A page readable by this user only that sends the browser on to `url`.
fn private_page(url: &str) -> std::io::Result<std::path::PathBuf> {
    use std::io::Write as _;
    let path = std::env::temp_dir().join(format!("nagger-ui-{}.html", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&path)?;
    let quoted = url.replace('&', "&amp;").replace('"', "&quot;");
    writeln!(
        file,
        "<!doctype html><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" \
         content=\"0; url={quoted}\"><a href=\"{quoted}\">nagger dashboard</a>"
    )?;
    Ok(path)
}

impl conn::Handler for Ui {
    type Pass = ();

    fn admit(&self, request: &Request) -> Result<(), Answer> {
        if !http::host_is_loopback(request, self.port) {
            return Err(http::text(
                403,
                "Forbidden: this server answers only to 127.0.0.1 or localhost.",
            ));
        }
        if !http::from_own_pages(request, self.port) {
            return Err(http::text(
                403,
                "Forbidden: this server answers only its own pages.",
            ));
        }
        let target = http::Target::parse(&request.url);
        let presented = target
            .param("token")
            .or_else(|| request.headers_named(TOKEN_HEADER).next());
        if presented.is_some_and(|t| http::same_secret(t.trim(), &self.token)) {
            return Ok(());
        }
        // The page and its assets hold no data: they are answered without the token, and
        // the connection closed, like every other request without it. The page reads the
        // token from its address and sends it with each request for data.
        if matches!(request.method.as_str(), "GET" | "HEAD")
            && let Some(page) = static_page(&target.path)
        {
            return Err(page);
        }
        Err(http::text(
            403,
            "Forbidden: open the address `nagger ui` printed, with its token.",
        ))
    }

    fn answer(self: &Arc<Self>, request: &Request, (): ()) -> Answer {
        if request.method != "GET" && request.method != "HEAD" {
            return http::text(405, "Only GET: this dashboard never changes anything.");
        }
        let target = http::Target::parse(&request.url);
        let path = target.path.clone();
        if let Some(page) = static_page(&path) {
            return page;
        }
        if let Some(endpoint) = path.strip_prefix("/api/") {
            return api::answer_in_time(self, endpoint.to_string(), target);
        }
        http::text(404, "Not found.")
    }
}

/// The header the page sends the token in. The token never travels in a cookie: a
/// browser sends a cookie of 127.0.0.1 to every port of it, so any server another local
/// user runs there would receive it.
const TOKEN_HEADER: &str = "X-Nagger-Token";

/// The page (one for every view) and its script and style: the same for everyone.
fn static_page(path: &str) -> Option<Answer> {
    Some(match path {
        "/" | "/timeline" | "/context" | "/rules" | "/tasks" | "/stats" => {
            http::body(200, "text/html; charset=utf-8", INDEX_HTML)
        }
        "/assets/app.js" => http::body(200, "text/javascript; charset=utf-8", APP_JS),
        "/assets/app.css" => http::body(200, "text/css; charset=utf-8", APP_CSS),
        _ => return None,
    })
}
