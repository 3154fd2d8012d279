//! Opening a store from the configuration.

use aeroplane_store::{GameQuery, GameStore, StoreError};

use crate::support::game::{Ending, play};

#[tokio::test]
async fn without_a_url_the_store_is_a_sqlite_file_in_the_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("not-yet-there");
    let store = aeroplane_store::open(None, &data_dir).await.unwrap();
    let record = play(1, Ending::Finished);
    store.save(&record).await.unwrap();
    assert!(data_dir.join("games.sqlite3").is_file());
    drop(store);

    // A restart finds the game again; applying the migrations twice changes nothing.
    let store = aeroplane_store::open(Some(""), &data_dir).await.unwrap();
    assert_eq!(store.get(record.id).await.unwrap(), Some(record));
}

#[tokio::test]
async fn a_sqlite_url_opens_that_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("elsewhere.db");
    let url = format!("sqlite://{}", path.display());
    let store = aeroplane_store::open(Some(&url), dir.path()).await.unwrap();
    store.ping().await.unwrap();
    assert!(path.is_file());
}

#[tokio::test]
async fn an_unsupported_url_is_refused_naming_database_url() {
    let dir = tempfile::tempdir().unwrap();
    let error = aeroplane_store::open(Some("mysql://localhost/games"), dir.path())
        .await
        .err();
    let Some(StoreError::Config(message)) = error else {
        panic!("a configuration error")
    };
    assert!(
        message.contains("DATABASE_URL") && message.contains("mysql"),
        "{message}"
    );
}

#[tokio::test]
async fn a_postgres_url_opens_the_postgres_store_with_its_migrations() {
    let Some(admin_url) = crate::support::stores::postgres_url() else {
        return;
    };
    let database = crate::support::stores::TestDatabase::create(&admin_url).await;
    let dir = tempfile::tempdir().unwrap();
    let store = aeroplane_store::open(Some(&database.url), dir.path())
        .await
        .unwrap();
    assert!(store.list(&GameQuery::default()).await.unwrap().is_empty());
    assert!(!dir.path().join("games.sqlite3").exists());
}

#[tokio::test]
async fn an_unreachable_postgres_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!(
        "postgres://postgres@127.0.0.1:{}/postgres",
        crate::support::closed_port()
    );
    let error = aeroplane_store::open(Some(&url), dir.path()).await.err();
    assert!(
        matches!(error, Some(StoreError::Unavailable(_))),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_lazy_postgres_store_starts_while_the_database_is_down_and_fails_fast() {
    let url = format!(
        "postgres://postgres@127.0.0.1:{}/postgres",
        crate::support::closed_port()
    );
    let store = aeroplane_store::PostgresStore::connect_lazy(&url).unwrap();
    let started = std::time::Instant::now();
    let saved = store.save(&play(1, Ending::Finished)).await;
    assert!(
        matches!(saved, Err(StoreError::Unavailable(_))),
        "{saved:?}"
    );
    assert!(matches!(
        store.ping().await,
        Err(StoreError::Unavailable(_))
    ));
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
}

#[tokio::test]
async fn a_lazy_postgres_store_applies_the_migrations_on_first_use() {
    let Some(admin_url) = crate::support::stores::postgres_url() else {
        return;
    };
    let database = crate::support::stores::TestDatabase::create(&admin_url).await;
    let store = aeroplane_store::PostgresStore::connect_lazy(&database.url).unwrap();
    let record = play(2, Ending::Agreed(40));
    assert_eq!(
        store.save(&record).await.unwrap(),
        aeroplane_store::Saved::Inserted
    );
    assert_eq!(store.get(record.id).await.unwrap(), Some(record));
}
