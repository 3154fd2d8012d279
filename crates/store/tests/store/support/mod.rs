//! What the tests share: realistic records (two-player `plyyard` games and tables of every
//! edition) and a fresh store of each kind.

pub mod game;
pub mod stores;
pub mod switch;
pub mod table;

/// A local TCP port nothing listens on.
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}
