//! Which questions of a set an eval runs: all, the first N (`--limit N`), or N
//! drawn at random (`--sample N --seed S`), reproducibly — the same file, N
//! and S draw the same questions on every machine and in every version that
//! keeps this definition: a partial Fisher–Yates shuffle of the row indices
//! driven by SplitMix64 seeded with S (each draw `j = i + next() mod (n − i)`,
//! a modulo bias below 2⁻⁴⁰ for any set under a million rows), the drawn rows
//! then kept in the file's order. Pure.

use serde::{Deserialize, Serialize};

/// The subset asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Subset {
    /// Every question.
    #[default]
    All,
    /// The first `n`.
    Limit {
        /// How many.
        n: usize,
    },
    /// `n` drawn with `seed`.
    Sample {
        /// How many.
        n: usize,
        /// The seed.
        seed: u64,
    },
}

impl Subset {
    /// The indices of the rows kept of `rows`, in the file's order.
    pub fn pick(self, rows: usize) -> Vec<usize> {
        match self {
            Subset::All => (0..rows).collect(),
            Subset::Limit { n } => (0..n.min(rows)).collect(),
            Subset::Sample { n, seed } => {
                let n = n.min(rows);
                let mut order: Vec<usize> = (0..rows).collect();
                let mut rng = SplitMix64(seed);
                for i in 0..n {
                    let left = u64::try_from(rows - i).unwrap_or(u64::MAX);
                    let j = i + usize::try_from(rng.next() % left).unwrap_or(0);
                    order.swap(i, j);
                }
                let mut kept = order[..n].to_vec();
                kept.sort_unstable();
                kept
            }
        }
    }

    /// In words, for a report: `all 4,326`, `the first 50 of 4,326`, `50 of
    /// 4,326 drawn with seed 7`.
    pub fn words(self, rows: usize) -> String {
        let of = thousands(rows);
        match self {
            Subset::All => format!("all {of}"),
            Subset::Limit { n } => format!("the first {} of {of}", thousands(n.min(rows))),
            Subset::Sample { n, seed } => {
                format!("{} of {of} drawn with seed {seed}", thousands(n.min(rows)))
            }
        }
    }
}

/// `n` with thousands commas.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// SplitMix64 (Steele, Lea and Flood 2014), as `java.util.SplittableRandom`
/// and most PRNG libraries define it.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_is_the_same_draw_every_time_and_in_file_order() {
        // SplitMix64's published first outputs for seed 0.
        let mut r = SplitMix64(0);
        assert_eq!(r.next(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next(), 0x6e78_9e6a_a1b9_65f4);
        let a = Subset::Sample { n: 50, seed: 7 }.pick(4_326);
        assert_eq!(a, Subset::Sample { n: 50, seed: 7 }.pick(4_326));
        assert_eq!(a.len(), 50);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert_ne!(a, Subset::Sample { n: 50, seed: 8 }.pick(4_326));
        // Worked by hand: 3 rows, seed 0. Draw 1: j = 0 + 0xe220a8397b1dcdaf
        // mod 3 = 1 (its digit sum mod 3), so rows [1, 0, 2]; draw 2: j = 1 +
        // 0x6e789e6aa1b965f4 mod 2 = 1 + 0 → [1, 0, 2]; kept {1, 0} → [0, 1].
        assert_eq!(0xe220_a839_7b1d_cdaf_u64 % 3, 1);
        assert_eq!(Subset::Sample { n: 2, seed: 0 }.pick(3), vec![0, 1]);
        assert_eq!(Subset::Limit { n: 2 }.pick(3), vec![0, 1]);
        assert_eq!(Subset::Limit { n: 9 }.pick(3), vec![0, 1, 2]);
        assert_eq!(Subset::Sample { n: 9, seed: 1 }.pick(3), vec![0, 1, 2]);
        assert_eq!(Subset::All.words(4_326), "all 4,326");
        assert_eq!(
            Subset::Sample { n: 50, seed: 7 }.words(4_326),
            "50 of 4,326 drawn with seed 7"
        );
        assert_eq!(thousands(1_000_000), "1,000,000");
    }
}
