//! Fresh PostgreSQL databases for tests (feature `testing`), shared by this crate's tests and the
//! server's integration suite so both follow one rule.
//!
//! The PostgreSQL tests run when `TEST_DATABASE_URL` names a server whose user may create
//! databases (e.g. `postgres://postgres@127.0.0.1:5432/postgres`): each test gets its own
//! database with a random name, dropped when the test ends. Without the variable they print a
//! loud skip line and pass, except under `CI`, where they fail: CI must never skip them silently.

use std::sync::Once;

use sqlx::{Connection, PgConnection};

/// `TEST_DATABASE_URL`, or `None` after a loud line on stderr; panics under CI without it.
pub fn postgres_url() -> Option<String> {
    if let Ok(url) = std::env::var("TEST_DATABASE_URL")
        && !url.trim().is_empty()
    {
        return Some(url);
    }
    let ci = std::env::var("CI").is_ok_and(|ci| !ci.is_empty() && ci != "false" && ci != "0");
    assert!(
        !ci,
        "CI is set but TEST_DATABASE_URL is not: the PostgreSQL tests must run in CI"
    );
    static SAID: Once = Once::new();
    SAID.call_once(|| {
        // Straight to the process's stderr, past the test harness's output capture.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr().lock(),
            "\n*** SKIPPING POSTGRES TESTS: set TEST_DATABASE_URL \
             (e.g. postgres://postgres@127.0.0.1:5432/postgres) to run them ***\n"
        );
    });
    None
}

/// A database created for one test and dropped when it ends.
pub struct TestDatabase {
    admin_url: String,
    name: String,
    /// The URL of the fresh database.
    pub url: String,
}

impl TestDatabase {
    /// A fresh database on the server of `TEST_DATABASE_URL`, or `None` when it is unset.
    pub async fn from_env() -> Option<TestDatabase> {
        Some(TestDatabase::create(&postgres_url()?).await)
    }

    /// A fresh database on the server `admin_url` points at.
    pub async fn create(admin_url: &str) -> TestDatabase {
        let name = format!("aeroplane_test_{}", uuid::Uuid::new_v4().simple());
        let mut admin = PgConnection::connect(admin_url)
            .await
            .expect("TEST_DATABASE_URL connects");
        sqlx::query(&format!("create database {name}"))
            .execute(&mut admin)
            .await
            .expect("the test database is created");
        admin.close().await.ok();
        TestDatabase {
            admin_url: admin_url.to_owned(),
            url: with_database(admin_url, &name),
            name,
        }
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
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(base, query)| (base, Some(query)));
    let authority_start = base.find("://").map_or(0, |at| at + 3);
    let base = match base[authority_start..].find('/') {
        Some(slash) => &base[..authority_start + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{base}/{name}?{query}"),
        None => format!("{base}/{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn the_database_name_is_replaced_and_parameters_kept() {
        assert_eq!(
            with_database("postgres://u@h:5432/postgres?sslmode=disable", "t1"),
            "postgres://u@h:5432/t1?sslmode=disable"
        );
        assert_eq!(with_database("postgres://u@h", "t2"), "postgres://u@h/t2");
    }
}
