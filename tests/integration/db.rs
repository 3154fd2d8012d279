//! Fresh stores for one test: SQLite always, PostgreSQL whenever `TEST_DATABASE_URL` is set.
//!
//! Each PostgreSQL test gets its own database with a random name, dropped when the test ends.
//! Without `TEST_DATABASE_URL` the PostgreSQL tests print a loud skip line and pass, except
//! under `CI`, where they fail: CI must never skip them silently.

use std::io::Write;
use std::sync::Once;

use sqlx::{Connection, PgConnection};

/// Which store a test runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StoreKind {
    /// The embedded SQLite file in the server's data directory (the default store).
    Sqlite,
    /// A fresh PostgreSQL database.
    Postgres,
}

/// `TEST_DATABASE_URL`, or `None` after a loud line on stderr; panics under CI without it.
pub(crate) fn postgres_url() -> Option<String> {
    if let Ok(url) = std::env::var("TEST_DATABASE_URL")
        && !url.trim().is_empty()
    {
        return Some(url);
    }
    let ci = std::env::var("CI").is_ok_and(|ci| !ci.is_empty() && ci != "false" && ci != "0");
    assert!(
        !ci,
        "CI is set but TEST_DATABASE_URL is not: the PostgreSQL integration tests must run in CI"
    );
    static SAID: Once = Once::new();
    SAID.call_once(|| {
        let _ = writeln!(
            std::io::stderr().lock(),
            "\n*** SKIPPING POSTGRES INTEGRATION TESTS: set TEST_DATABASE_URL \
             (e.g. postgres://postgres@127.0.0.1:5432/postgres) to run them ***\n"
        );
    });
    None
}

/// A database created for one test and dropped when it ends.
pub(crate) struct TestDatabase {
    admin_url: String,
    name: String,
    /// The URL of the fresh database.
    pub(crate) url: String,
}

impl TestDatabase {
    /// A fresh database on the server of `TEST_DATABASE_URL`, or `None` when it is unset.
    pub(crate) async fn create() -> Option<TestDatabase> {
        let admin_url = postgres_url()?;
        let name = format!("aeroplane_it_{}", uuid::Uuid::new_v4().simple());
        let mut admin = PgConnection::connect(&admin_url)
            .await
            .expect("TEST_DATABASE_URL connects");
        sqlx::query(&format!("create database {name}"))
            .execute(&mut admin)
            .await
            .expect("the test database is created");
        admin.close().await.ok();
        Some(TestDatabase {
            url: with_database(&admin_url, &name),
            admin_url,
            name,
        })
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let (admin_url, name) = (self.admin_url.clone(), self.name.clone());
        // The test's runtime may be gone or busy: drop the database from a runtime of its own.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async {
                let mut admin = PgConnection::connect(&admin_url).await?;
                sqlx::query(&format!("drop database if exists {name} with (force)"))
                    .execute(&mut admin)
                    .await?;
                admin.close().await
            })
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!("could not drop the test database {}", self.name);
        }
    }
}

/// `url` with its database name replaced by `name` (query parameters kept).
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority_end = base
        .find("://")
        .map(|scheme| scheme + 3)
        .and_then(|start| base[start..].find('/').map(|slash| start + slash))
        .unwrap_or(base.len());
    let mut out = format!("{}/{name}", &base[..authority_end]);
    if let Some(query) = query {
        out.push('?');
        out.push_str(query);
    }
    out
}
