//! The editions' tests (`docs/rules/`), one binary: a scenario per clause of `flights.md` and
//! `classic.md` (draw offers in `draws.rs`), the notation's round trip and rejections, property
//! tests of the invariants, and perft counts cross-checked by a naive second implementation.

mod classic;
mod draws;
mod flights;
mod helpers;
mod naive;
mod notation;
mod perft;
mod properties;
