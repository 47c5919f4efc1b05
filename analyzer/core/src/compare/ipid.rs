//! Packets a sender sent that the upstream capture never saw, from the gaps in their IPv4
//! identification.
//!
//! Linux numbers the IPv4 packets of a connected TCP socket from one counter, one step per
//! packet (RFC 6864 allows any scheme for atomic datagrams; Linux keeps this one). When the
//! identifications of a direction at the upstream capture step by exactly one nearly
//! everywhere, a missing number is a packet that left the sender and was lost before that
//! capture — even when nothing else shows it: the last segment of a burst lost and sent again
//! before anything later passed, or the same bytes lost twice. Where the numbers come from a
//! host-wide counter (Windows), are random, or step by several per packet (TSO seen at the
//! sender), the steps are not one and this says nothing; the caller then falls back on holes
//! in the sequence space.

/// A gap: the positions (in the upstream list) of the packets on either side of it and how
/// many identifications are missing between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    pub before: u32,
    pub after: u32,
    pub missing: u32,
}

/// Share of consecutive packets whose identification steps by exactly one, at least.
const MIN_SEQUENTIAL: f64 = 0.9;
/// Packets needed to judge the numbering.
const MIN_PACKETS: usize = 8;
/// Larger steps are not read as losses (another counter, a restart, a long outage).
const MAX_GAP: i64 = 16;

/// The gaps in the identifications `ids` (capture order, one per packet of the direction),
/// or None when they are not one sender's sequential counter.
pub fn gaps(ids: &[u16]) -> Option<Vec<Gap>> {
    if ids.len() < MIN_PACKETS {
        return None;
    }
    // Unwrap the 16-bit counter relative to the highest number seen so far.
    let mut pos: Vec<(i64, u32)> = Vec::with_capacity(ids.len());
    let (mut top_raw, mut top) = (ids[0], 0i64);
    for (p, &id) in ids.iter().enumerate() {
        let d = id.wrapping_sub(top_raw) as i16 as i64;
        let v = top + d;
        if d > 0 {
            top_raw = id;
            top = v;
        }
        pos.push((v, p as u32));
    }
    let ones = pos.windows(2).filter(|w| w[1].0 - w[0].0 == 1).count();
    if (ones as f64) < MIN_SEQUENTIAL * (pos.len() - 1) as f64 {
        return None;
    }
    // Sorted by number: packets reordered before the capture fill their own gaps.
    pos.sort_unstable();
    pos.dedup_by_key(|x| x.0);
    Some(
        pos.windows(2)
            .filter(|w| w[1].0 - w[0].0 > 1 && w[1].0 - w[0].0 <= MAX_GAP)
            .map(|w| Gap { before: w[0].1, after: w[1].1, missing: (w[1].0 - w[0].0 - 1) as u32 })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_numbers_with_two_missing_give_one_gap() {
        // 100 101 102 [103 104 lost] 105 106 107 108 109
        let ids = [100, 101, 102, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114];
        assert_eq!(gaps(&ids), Some(vec![Gap { before: 2, after: 3, missing: 2 }]));
    }

    #[test]
    fn the_counter_wraps_and_a_reordered_packet_fills_its_own_gap() {
        let mut ids = vec![65_533, 65_534, 0, 65_535];
        ids.extend(1..40);
        assert_eq!(gaps(&ids), Some(vec![]));
    }

    #[test]
    fn a_host_wide_or_random_counter_says_nothing() {
        let ids = [10, 14, 19, 20, 31, 40, 41, 57, 58, 70];
        assert_eq!(gaps(&ids), None);
    }
}
