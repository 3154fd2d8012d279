//! What both tournament examples compute from their games: the Wilson interval of a win rate
//! and a percentile of the decision times. Shared by `#[path]` (a file under a subfolder of
//! `examples/` is not an example of its own).

/// The 95% Wilson score interval for `wins` successes in `games` trials.
pub(crate) fn wilson(wins: u32, games: u32) -> (f64, f64) {
    if games == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_964;
    let n = f64::from(games);
    let p = f64::from(wins) / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (centre - half, centre + half)
}

/// The value at quantile `q` of sorted `values` (nearest rank), in nanoseconds.
pub(crate) fn percentile(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    f64::from(sorted[rank - 1])
}
