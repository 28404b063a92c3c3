//! Deterministic xorshift for fixtures: the same seed gives the same rows, bytes and
//! kill times on every run, so a failure can be replayed from the seed it prints. Shared
//! by the integration tests (tests/common) and the benches (`#[path]`).

#![allow(dead_code)]

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn between(&mut self, low: usize, high: usize) -> usize {
        let below = self.below((high - low) as u64);
        low + usize::try_from(below).expect("below high - low, a usize")
    }
}
