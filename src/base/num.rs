//! Saturating conversions between Rust's counts and sizes and SQLite's integers, and
//! hours as the milliseconds every time column is kept in.

/// A count, size or limit (`usize`, `u64`) as an SQLite integer. Real values are far
/// below `i64::MAX`; one past it would saturate rather than wrap negative.
pub fn to_i64(n: impl TryInto<i64>) -> i64 {
    n.try_into().unwrap_or(i64::MAX)
}

/// An SQLite integer that counts something as a `u64`; a negative value reads as 0.
pub fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// An SQLite integer that counts something as a `usize`; a negative value reads as 0,
/// one beyond the address space (32-bit targets only) as `usize::MAX`.
pub fn to_usize(n: i64) -> usize {
    if n < 0 {
        0
    } else {
        usize::try_from(n).unwrap_or(usize::MAX)
    }
}

const HOUR_MS: i64 = 3_600_000;

/// `hours` in milliseconds, saturating instead of overflowing on absurd configurations.
pub fn hours_ms(hours: u64) -> i64 {
    to_i64(hours).saturating_mul(HOUR_MS)
}
