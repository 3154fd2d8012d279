//! The cluster's settings that need parsing of their own: a node's name and the NATS servers.

/// A node's name: 1 to 64 letters, digits, `-` or `_`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeId(String);

impl NodeId {
    /// A random name (`node-` and 12 hex digits).
    pub fn random() -> NodeId {
        let id = uuid::Uuid::new_v4().simple().to_string();
        NodeId(format!("node-{}", &id[..12]))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::str::FromStr for NodeId {
    type Err = String;

    fn from_str(text: &str) -> Result<NodeId, String> {
        let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
        if (1..=64).contains(&text.len()) && text.chars().all(allowed) {
            Ok(NodeId(text.to_owned()))
        } else {
            Err("expected 1 to 64 letters, digits, `-` or `_`".to_owned())
        }
    }
}

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The NATS servers to connect to: one or more `nats://host:port` addresses (`host:port` alone
/// means `nats://`), parsed from a comma-separated list; an empty text is an empty list (an
/// empty `AEROPLANE_NATS_URL` means unset).
#[derive(Clone, Debug)]
pub struct NatsUrls {
    text: String,
    servers: Vec<async_nats::ServerAddr>,
}

impl NatsUrls {
    /// The servers, in the order given.
    pub fn servers(&self) -> &[async_nats::ServerAddr] {
        &self.servers
    }

    /// Whether no server is given.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }
}

impl std::str::FromStr for NatsUrls {
    type Err = String;

    fn from_str(text: &str) -> Result<NatsUrls, String> {
        let servers = text
            .split(',')
            .map(str::trim)
            .filter(|url| !url.is_empty())
            .map(|url| {
                url.parse::<async_nats::ServerAddr>()
                    .map_err(|error| format!("`{url}` is no NATS server address: {error}"))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(NatsUrls {
            text: text.trim().to_owned(),
            servers,
        })
    }
}

impl std::fmt::Display for NatsUrls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}
