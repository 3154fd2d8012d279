//! Wire types of the Aeroplane Chess server. Only this crate knows the JSON shapes.
#![forbid(unsafe_code)]

pub mod record;
