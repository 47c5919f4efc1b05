//! Packets a host sent that its own capture never saw, from the IPv4 identification.
//!
//! Linux numbers a connected socket's packets with DF set one by one (`inet_id`, advanced
//! by the segments a GSO packet stands for), so on the sending host consecutive packets of
//! one direction carry consecutive IDs. A packet that skips some says that many left TCP
//! and never reached the tap: dropped on the way there (a full qdisc — a shaper's small
//! queue). Only for a sender that numbers its packets so: its steps short, and an initial
//! TTL of 64 as the tap on its host sees it (Windows counts IDs per host, across flows;
//! macOS and the BSDs draw them at random; IPv6 has none).

/// Steps that must be seen before a skip is read: this many, half of them exact, and
/// nearly all short (random IDs land within [`MAX_SKIP`] of the next one 6 % of the time;
/// a sender losing much before the tap skips often, but never far).
const MIN_STEPS: u32 = 16;
const NEAR_SHARE: f64 = 0.9;
/// A larger skip is not a count of packets (random IDs, a rewritten ID).
const MAX_SKIP: u16 = 4096;
/// How the sender numbers its packets is judged on its first this many; after that a
/// packet costs a few stores.
const JUDGED_PACKETS: u32 = 256;
/// The initial TTL of Linux (and macOS, whose IDs fail the step test).
const LINUX_TTL: u8 = 64;

/// A packet as far as its ID goes: the ID and the segments it stands for.
#[derive(Debug, Clone, Copy, Default)]
struct Numbered {
    id: u16,
    len: u32,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct IpIds {
    /// The last packet and the one before it.
    last: Numbered,
    before: Numbered,
    packets: u32,
    /// Over the first [`JUDGED_PACKETS`]: steps, exact ones, short ones; and whether one
    /// had a TTL other than 64.
    steps: u32,
    exact: u32,
    near: u32,
    other_ttl: bool,
}

/// Packets from `from` to `to`'s ID beyond the segments `from` stood for, given `mss`.
fn skip(from: Numbered, to: u16, mss: u32) -> u16 {
    // A GSO packet stands for its segments (no division for the usual one).
    let segments = if from.len <= mss { 1 } else { from.len.div_ceil(mss.max(1)) };
    to.wrapping_sub(from.id.wrapping_add(segments.min(u16::MAX as u32) as u16))
}

impl IpIds {
    /// A packet of this direction: its ID, TTL and payload length, with the sender's `mss`
    /// (read only while the numbering is judged).
    #[inline]
    pub fn on_packet(&mut self, id: u16, ttl: u8, len: u32, mss: u32) {
        if self.packets < JUDGED_PACKETS {
            self.judge(id, ttl, mss);
        }
        self.packets += (self.packets < u32::MAX) as u32;
        self.before = self.last;
        self.last = Numbered { id, len };
    }

    #[inline(never)]
    fn judge(&mut self, id: u16, ttl: u8, mss: u32) {
        self.other_ttl |= ttl != LINUX_TTL;
        if self.packets > 0 {
            let k = skip(self.last, id, mss);
            self.steps += 1;
            self.exact += (k == 0) as u32;
            self.near += (k < MAX_SKIP) as u32;
        }
    }

    /// Packets sent just before the last one and never seen here, when this sender's IDs
    /// can tell.
    pub fn unseen_before_last(&self, mss: u32) -> u16 {
        let counts = !self.other_ttl
            && self.steps >= MIN_STEPS
            && 2 * self.exact >= MIN_STEPS
            && self.near as f64 >= NEAR_SHARE * self.steps as f64;
        let k = skip(self.before, self.last.id, mss);
        if counts && self.packets >= 2 && k < MAX_SKIP { k } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(ids: &[u16], ttl: u8) -> u16 {
        let mut s = IpIds::default();
        for &id in ids {
            s.on_packet(id, ttl, 1_000, 1_448);
        }
        s.unseen_before_last(1_448)
    }

    #[test]
    fn a_skip_in_a_counted_run_is_packets_unseen() {
        let mut ids: Vec<u16> = (65_500..65_535).collect();
        ids.extend([65_535, 0, 1]);
        ids.push(18); // 2..=17 never seen
        assert_eq!(after(&ids, 64), 16);
    }

    #[test]
    fn a_gso_packet_advances_the_count_by_its_segments() {
        let mut s = IpIds::default();
        for k in 0..40u16 {
            s.on_packet(100 + k * 44, 64, 44 * 1_448, 1_448);
        }
        assert_eq!(s.unseen_before_last(1_448), 0);
        s.on_packet(100 + 40 * 44 + 3, 64, 1_448, 1_448);
        assert_eq!(s.unseen_before_last(1_448), 3);
    }

    #[test]
    fn ids_not_counted_per_socket_tell_nothing() {
        // Random IDs, a Windows TTL, or too short a run.
        let random: Vec<u16> = (0..100u32).map(|k| (k.wrapping_mul(40_503) % 65_536) as u16).collect();
        assert_eq!(after(&random, 64), 0);
        let counted: Vec<u16> = (0..40).chain([60]).collect();
        assert_eq!(after(&counted, 128), 0);
        assert_eq!(after(&[1, 2, 3, 9], 64), 0);
        // Counted, but skipping often (a sender losing much before the tap): still read.
        let lossy: Vec<u16> = (0..10u16).chain((4..14u16).map(|k| k * 3)).collect();
        assert_eq!(after(&lossy, 64), 2);
    }
}
