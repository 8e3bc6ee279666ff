//! Small string helpers for "did you mean" suggestions.

/// Levenshtein distance over chars, capped to keep it cheap on long strings.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().take(64).collect();
    let b: Vec<char> = b.chars().take(64).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// Similarity score of `candidate` to `wanted` (lower is closer); substring matches rank first.
pub fn score(wanted: &str, candidate: &str) -> usize {
    let w = wanted.to_lowercase();
    let c = candidate.to_lowercase();
    if c == w {
        0
    } else if c.contains(&w) || w.contains(&c) {
        1
    } else {
        2 + edit_distance(&w, &c)
    }
}

/// Up to `n` candidates closest to `wanted`, best first, dropping ones that share little.
pub fn closest<'a>(
    wanted: &str,
    candidates: impl Iterator<Item = &'a str>,
    n: usize,
) -> Vec<&'a str> {
    let limit = 2 + wanted.chars().count().max(3) / 2 + 1;
    let mut scored: Vec<(usize, &str)> = candidates
        .map(|c| (score(wanted, c), c))
        .filter(|(s, _)| *s <= limit)
        .collect();
    scored.sort_by_key(|(s, c)| (*s, *c));
    scored.dedup_by_key(|(_, c)| *c);
    scored.into_iter().take(n).map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_basics() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn closest_prefers_near_names() {
        let names = ["snapshot_tree", "find_node", "read_node"];
        assert_eq!(
            closest("find_nod", names.iter().copied(), 2)[0],
            "find_node"
        );
        assert!(closest("zzzzzzzzzz", names.iter().copied(), 2).is_empty());
    }
}
