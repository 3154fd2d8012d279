//! The top-level integration suite: every test here talks to real processes over real sockets.

#[test]
fn the_suite_builds() {}
