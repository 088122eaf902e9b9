//! SplitMix64: a tiny deterministic generator. Written out here rather than taken from the
//! `rand` family, whose `StdRng` may change its algorithm between versions: the benchmark's
//! file must be the same bytes for a seed on every machine and every release.

/// A SplitMix64 stream (Steele, Lea and Flood, 2014).
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` when `n` is 0). The modulo bias is below 2^-32 for the small
    /// ranges used here, which does not matter for test data.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }

    /// A whole number in `low..=high`, for any `i128` bounds with `low <= high`.
    pub fn between(&mut self, low: i128, high: i128) -> i128 {
        if high <= low {
            return low;
        }
        let span = high.wrapping_sub(low) as u128;
        let wide = (u128::from(self.next_u64()) << 64) | u128::from(self.next_u64());
        let offset = if span == u128::MAX {
            wide
        } else {
            wide % (span + 1)
        };
        low.wrapping_add(offset as i128)
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// One of `items`, or `None` when there are none.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len() as u64) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    /// The reference outputs of SplitMix64 for seed 1234567 (from the algorithm's published
    /// C code), so that a change to the stream, and so to every generated file, is caught.
    #[test]
    fn matches_the_reference_stream() {
        let mut rng = Rng::new(1_234_567);
        let first: Vec<u64> = (0..3).map(|_| rng.next_u64()).collect();
        assert_eq!(
            first,
            [
                6_457_827_717_110_365_317,
                3_203_168_211_198_807_973,
                9_817_491_932_198_370_423
            ]
        );
    }

    #[test]
    fn between_stays_in_bounds() {
        let mut rng = Rng::new(7);
        for _ in 0..1000 {
            let n = rng.between(-3, 4);
            assert!((-3..=4).contains(&n), "{n}");
        }
        assert_eq!(rng.between(i128::MIN, i128::MIN), i128::MIN);
        let _ = rng.between(i128::MIN, i128::MAX);
    }
}
