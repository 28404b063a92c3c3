//! `nagger ui`: a local, read-only web dashboard of the project's database. It listens on
//! 127.0.0.1 only, answers only requests that carry the token printed at start (in the URL,
//! then in a cookie) and name the loopback host (so a page of another site cannot reach it
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
    // SQLite would wait for ever on a FIFO there.
    api::check_db_files(&db_path)?;
    // Without a database (nagger installed, no hook run yet) the dashboard is empty, and
    // fills once the first hook run has created one: nothing is created here.
    let pool = ui_queries::read_pool(&db_path, READERS)
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
    });
    // Count the runs per session now, not on the first look at the sessions page (a
    // million-row log takes a second or so).
    {
        let ui = Arc::clone(&ui);
        std::thread::spawn(move || {
            if let Ok(conn) = ui.pool.get()
                && let Ok(mut counts) = ui.counts.lock()
            {
                let _ = counts.refresh(&conn);
            }
        });
    }
    let url = format!("http://127.0.0.1:{port}/?token={}", ui.token);
    // A reader that went away does not stop the server.
    let reading = if ui.pool.has_file() {
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

fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        eprintln!("nagger: could not open a browser with {opener} ({e}); open the URL above");
    }
}

impl conn::Handler for Ui {
    /// Whether the token came in the query (the answer then sets it as a cookie).
    type Pass = bool;

    fn admit(&self, request: &Request) -> Result<bool, Answer> {
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
        let from_query = target
            .param("token")
            .is_some_and(|t| http::same_secret(t, &self.token));
        let from_cookie = http::cookie(request, &self.cookie_name())
            .is_some_and(|t| http::same_secret(t, &self.token));
        if !(from_query || from_cookie) {
            return Err(http::text(
                403,
                "Forbidden: open the address `nagger ui` printed, with its token.",
            ));
        }
        Ok(from_query)
    }

    fn answer(self: &Arc<Self>, request: &Request, from_query: bool) -> Answer {
        if request.method != "GET" && request.method != "HEAD" {
            return http::text(405, "Only GET: this dashboard never changes anything.");
        }
        let target = http::Target::parse(&request.url);
        let path = target.path.clone();
        let mut response = match path.as_str() {
            "/" | "/timeline" | "/context" | "/rules" | "/tasks" | "/stats" => {
                http::body(200, "text/html; charset=utf-8", INDEX_HTML)
            }
            "/assets/app.js" => http::body(200, "text/javascript; charset=utf-8", APP_JS),
            "/assets/app.css" => http::body(200, "text/css; charset=utf-8", APP_CSS),
            path if path.starts_with("/api/") => {
                api::answer_in_time(self, path[5..].to_string(), target)
            }
            _ => http::text(404, "Not found."),
        };
        if from_query {
            response.add_header(
                "Set-Cookie",
                &format!(
                    "{}={}; Path=/; HttpOnly; SameSite=Strict",
                    self.cookie_name(),
                    self.token
                ),
            );
        }
        response
    }
}

impl Ui {
    /// One cookie per port: cookies do not tell ports apart, two dashboards might run.
    fn cookie_name(&self) -> String {
        format!("nagger_ui_{}", self.port)
    }
}
