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
    let (pool, unavailable) = ui_queries::read_pool_lenient(&db_path, READERS, readable)
        .with_context(|| format!("reading {}", db_path.display()))?;
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, options.port)))
        .map_err(|e| anyhow::anyhow!("cannot listen on 127.0.0.1:{}: {e}", options.port))?;
    let port = listener
        .local_addr()
        .map(|a| a.port())
        .context("the server has no TCP address")?;
    let ui = Arc::new(Ui {
        pool,
        counts: std::sync::Mutex::default(),
        db_path,
        project_root,
        token: http::new_token()?,
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
    // The token in the fragment: a browser never sends that part of an address anywhere.
    let url = format!("http://127.0.0.1:{port}/#token={}", ui.token);
    // A reader that went away does not stop the server.
    let reading = if let Some(why) = &unavailable {
        format!(
            "the database at {} cannot be read now ({why}): the pages say so until it can",
            ui.db_path.display()
        )
    } else if ui.pool.has_file() {
        format!("reading {} (read-only)", ui.db_path.display())
    } else {
        format!(
            "no database yet at {}: the dashboard is empty until the first hook run creates it",
            ui.db_path.display()
        )
    };
    let banner = format!("nagger ui: {url}\n{reading}; stop with Ctrl-C");
    let mut out = crate::base::output::Output::stdout();
    let _ = out.line(&banner).and_then(|()| out.flush());
    if options.open {
        open_browser(&url);
    }
    listen::serve(&listener, &ui)
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
