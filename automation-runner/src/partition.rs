//! `--partition slice:M/N` and `hash:M/N`, with cargo-nextest's meaning, so one CI matrix
//! shards both the Rust harness tests and the flow files.
//!
//! `slice:M/N` (and nextest's `count:M/N`, the same for one list): the flows in order, the
//! i-th (0-based) in shard `i % N + 1`. `hash:M/N`: shard `xxh64(name) % N + 1`, stable
//! whatever else is in the list, where the name is the flow's path relative to the suite
//! root, `/`-separated ([`super::suite::collect_keyed`]): `flows`, `./flows/` and
//! `/abs/flows` shard alike. Shards are disjoint and together are the whole suite.

use xxhash_rust::xxh64::xxh64;

/// How flows are split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partition {
    /// Round robin over the sorted list.
    Slice {
        /// 1-based shard.
        shard: u64,
        /// Number of shards.
        total: u64,
    },
    /// By a hash of the flow's name.
    Hash {
        /// 1-based shard.
        shard: u64,
        /// Number of shards.
        total: u64,
    },
}

impl std::str::FromStr for Partition {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let usage = || {
            format!(
                "--partition takes slice:M/N or hash:M/N with 1 ≤ M ≤ N (as cargo-nextest), got {s:?}"
            )
        };
        let (kind, rest) = s.split_once(':').ok_or_else(usage)?;
        let (m, n) = rest.split_once('/').ok_or_else(usage)?;
        let shard: u64 = m.trim().parse().map_err(|_| usage())?;
        let total: u64 = n.trim().parse().map_err(|_| usage())?;
        if shard == 0 || total == 0 || shard > total {
            return Err(usage());
        }
        match kind.trim() {
            "slice" | "count" => Ok(Partition::Slice { shard, total }),
            "hash" => Ok(Partition::Hash { shard, total }),
            _ => Err(usage()),
        }
    }
}

impl Partition {
    /// Whether the `index`-th flow, named `name`, is in this shard.
    pub fn contains(&self, index: usize, name: &str) -> bool {
        match *self {
            Partition::Slice { shard, total } => (index as u64) % total == shard - 1,
            Partition::Hash { shard, total } => xxh64(name.as_bytes(), 0) % total == shard - 1,
        }
    }

    /// `M/N`, for messages.
    pub fn describe(&self) -> String {
        match self {
            Partition::Slice { shard, total } => format!("slice {shard}/{total}"),
            Partition::Hash { shard, total } => format!("hash {shard}/{total}"),
        }
    }

    /// The items of `names` (in order) in this shard.
    pub fn select<'a>(&self, names: &'a [String]) -> Vec<&'a String> {
        names
            .iter()
            .enumerate()
            .filter(|(i, n)| self.contains(*i, n))
            .map(|(_, n)| n)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_disjoint_and_cover_everything() {
        let names: Vec<String> = (0..37).map(|i| format!("flows/f{i}.json")).collect();
        for kind in ["slice", "hash"] {
            for total in 1..6u64 {
                let mut seen = Vec::new();
                for shard in 1..=total {
                    let p: Partition = format!("{kind}:{shard}/{total}").parse().unwrap();
                    seen.extend(p.select(&names).into_iter().cloned());
                }
                seen.sort();
                let mut all = names.clone();
                all.sort();
                assert_eq!(seen, all, "{kind} {total}");
            }
        }
    }

    #[test]
    fn bad_partitions_are_refused() {
        for bad in [
            "slice:0/2",
            "slice:3/2",
            "hash:1",
            "mod:1/2",
            "slice:a/b",
            "hash:1/0",
        ] {
            assert!(bad.parse::<Partition>().is_err(), "{bad}");
        }
    }
}
