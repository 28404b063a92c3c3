//! What several commands share: opening the project's database for writing or only
//! for reading, what they say about a missing database or session, and ages.

use super::error::CommandError;
use crate::base::paths::Env;
use crate::storage::store::NaggerStateDB;

/// Opens the project's database for a command that writes (creating it if needed, and
/// bringing an older schema up to date). A file that is not a database is left where it
/// is: moving it aside is `nagger doctor --fix`'s call.
pub fn open_db(env: &Env) -> anyhow::Result<NaggerStateDB> {
    let path = env.db_path(&env.project_root(None));
    match NaggerStateDB::open_read_only(&path) {
        Ok(_) | Err(crate::storage::store::StoreError::Schema { .. }) => {}
        Err(e) => {
            return Err(anyhow::Error::from(e)
                .context("`nagger doctor` checks it, `nagger doctor --fix` replaces it"));
        }
    }
    Ok(NaggerStateDB::open(&path)?)
}

/// Opens the project's database for a command that only reads: creates nothing, changes
/// nothing, moves nothing. `None` when there is no database.
pub fn open_read_only(env: &Env) -> anyhow::Result<Option<NaggerStateDB>> {
    let path = env.db_path(&env.project_root(None));
    Ok(NaggerStateDB::open_read_only(&path)?)
}

/// The error for a session the database does not know.
pub fn unknown_session(db: &NaggerStateDB, session: &str) -> CommandError {
    anyhow::anyhow!(
        "no session {session} in {}: `nagger sessions` lists the sessions nagger knows",
        db.path().display()
    )
    .into()
}

/// What a reading command says when there is no database, plainly.
pub fn no_database(env: &Env) -> String {
    let path = env.db_path(&env.project_root(None));
    format!(
        "no database yet at {}: nagger has not run a hook in this project",
        path.display()
    )
}

/// "3m ago"-style age of a unix-ms time.
pub fn age(ms: i64) -> String {
    let secs = ((crate::storage::store::now_ms() - ms) / 1000).max(0);
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}
