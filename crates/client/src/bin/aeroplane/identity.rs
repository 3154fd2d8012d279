//! The player identity the `aeroplane` command plays as, kept in a file.
//!
//! The file (`--identity FILE` or `AEROPLANE_IDENTITY`; by default
//! `$XDG_CONFIG_HOME/aeroplane/identity.json`, else `~/.config/aeroplane/identity.json`) holds
//! one identity per server URL, each made on first use with `POST /api/players`. It holds
//! secrets, so it is written readable by its owner only. An identity the server no longer knows
//! (its database was reset) is replaced by a new one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use aeroplane_client::{Api, ApiError};
use anyhow::Context as _;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// One server's identity.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Identity {
    /// The player id.
    pub(crate) id: Uuid,
    /// The player's secret.
    pub(crate) secret: String,
    /// The name the server gave when the identity was made.
    pub(crate) name: String,
}

impl Identity {
    /// `<player id>.<secret>`, as the server takes it.
    pub(crate) fn credentials(&self) -> String {
        format!("{}.{}", self.id, self.secret)
    }
}

/// The identity file: identities by server URL.
#[derive(Debug, Default, Serialize, Deserialize)]
struct IdentityFile {
    servers: BTreeMap<String, Identity>,
}

/// The default identity file, under the user's configuration directory.
pub(crate) fn default_path() -> Option<PathBuf> {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".config")))?;
    Some(config.join("aeroplane").join("identity.json"))
}

/// The identity for `api`'s server from the file at `path`, made (with `name`, if given) and
/// saved there when the file has none or the server no longer knows it.
pub(crate) async fn load_or_create(
    path: &Path,
    api: &Api,
    name: Option<&str>,
) -> anyhow::Result<Identity> {
    let mut file = read(path)?;
    let server = api.base().to_owned();
    if let Some(identity) = file.servers.get(&server) {
        match api.clone().with_identity(identity.credentials()).me().await {
            Ok(_) => return Ok(identity.clone()),
            Err(ApiError::Status { status: 401, .. }) => {
                eprintln!("the server no longer knows your identity; making a new one");
            }
            Err(error) => return Err(error).context("failed to check your identity"),
        }
    }
    let created = api
        .create_player(name)
        .await
        .context("failed to make a player identity")?;
    let identity = Identity {
        id: created.id,
        secret: created.secret,
        name: created.name,
    };
    file.servers.insert(server, identity.clone());
    write(path, &file)?;
    Ok(identity)
}

fn read(path: &Path) -> anyhow::Result<IdentityFile> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is not an identity file", path.display())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(IdentityFile::default()),
        Err(error) => Err(error).with_context(|| format!("failed to read {}", path.display())),
    }
}

/// Writes the file readable by its owner only, through a temporary file renamed into place.
fn write(path: &Path, file: &IdentityFile) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("failed to create {}", dir.display()))?;
    let temporary = path.with_extension("json.tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut out = options
        .open(&temporary)
        .with_context(|| format!("failed to write {}", temporary.display()))?;
    std::io::Write::write_all(&mut out, &serde_json::to_vec_pretty(file)?)?;
    out.sync_all()?;
    std::fs::rename(&temporary, path)
        .with_context(|| format!("failed to write {}", path.display()))?;
    Ok(())
}
