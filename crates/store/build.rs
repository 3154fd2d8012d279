//! Rebuilds the crate when a migration is added: `sqlx::migrate!` embeds the directories at
//! compile time, and Cargo would not otherwise notice a new file.

fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
