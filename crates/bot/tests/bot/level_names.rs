//! Levels are named by the lower-case strings used in configuration and on the wire.

use aeroplane_bot::Level;

#[test]
fn every_level_reads_back_from_its_name() {
    for level in Level::ALL {
        assert_eq!(level.to_string().parse::<Level>(), Ok(level));
    }
    assert_eq!(Level::Hard.to_string(), "hard");
}

#[test]
fn an_unknown_or_capitalised_name_is_refused_with_the_expected_names() {
    let error = "Hard".parse::<Level>().unwrap_err();
    assert!(error.to_string().contains("`easy`"), "{error}");
    assert!("expert".parse::<Level>().is_err());
}

#[test]
fn levels_serialise_as_lower_case_strings() {
    assert_eq!(serde_json::to_string(&Level::Normal).unwrap(), "\"normal\"");
    assert_eq!(
        serde_json::from_str::<Level>("\"random\"").unwrap(),
        Level::Random
    );
    assert!(serde_json::from_str::<Level>("\"Normal\"").is_err());
}
