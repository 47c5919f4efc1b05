//! A placed segment as it travels to an analysis thread: only what the analysis reads of
//! it, in one 64-byte cache line instead of the 144-byte decoded segment (the hand-off
//! between cores, not the analysis, was what two threads spent on top of one).
//!
//! The analysis (`analyse/`) reads of a [`TcpSegment`]: seq, ack, flags, window,
//! payload_len, ip_id, ip_version and the options mss, wscale, timestamps and SACK blocks.
//! Addresses and ports were used by placing and stay behind. SACK blocks, on few segments,
//! ride in a side vector of the batch. A field the analysis starts to read must be added
//! here: `unpack_keeps_what_the_analysis_reads` and the 1-vs-N-workers tests catch it.

use crate::decode::{TcpOptions, TcpSegment};

const HAS_TS: u8 = 1;
const HAS_MSS: u8 = 2;
const HAS_WSCALE: u8 = 4;
const SACK_SHIFT: u8 = 4;

#[derive(Debug, Clone, Copy)]
pub(super) struct Shipped {
    pub frame: u64,
    pub ts_ns: i64,
    pub flow: u32,
    seq: u32,
    ack: u32,
    payload_len: u32,
    tsval: u32,
    tsecr: u32,
    /// Index of the first SACK block in the batch's side vector.
    sack_at: u32,
    flags: u16,
    window: u16,
    ip_id: u16,
    mss: u16,
    pub dir: u8,
    ip_version: u8,
    wscale: u8,
    /// HAS_* bits, and the SACK block count from SACK_SHIFT.
    bits: u8,
}

impl Shipped {
    /// Packs `seg`, appending its SACK blocks to `sacks`.
    #[inline]
    pub fn pack(frame: u64, ts_ns: i64, flow: u32, dir: u8, seg: &TcpSegment, sacks: &mut Vec<(u32, u32)>) -> Shipped {
        let o = &seg.options;
        let blocks = o.sack_blocks();
        let sack_at = sacks.len() as u32;
        sacks.extend_from_slice(blocks);
        let (tsval, tsecr) = o.timestamps.unwrap_or_default();
        let bits = (o.timestamps.is_some() as u8 * HAS_TS)
            | (o.mss.is_some() as u8 * HAS_MSS)
            | (o.wscale.is_some() as u8 * HAS_WSCALE)
            | ((blocks.len() as u8) << SACK_SHIFT);
        Shipped {
            frame,
            ts_ns,
            flow,
            seq: seg.seq,
            ack: seg.ack,
            payload_len: seg.payload_len,
            tsval,
            tsecr,
            sack_at,
            flags: seg.flags,
            window: seg.window,
            ip_id: seg.ip_id,
            mss: o.mss.unwrap_or(0),
            dir,
            ip_version: seg.ip_version,
            wscale: o.wscale.unwrap_or(0),
            bits,
        }
    }

    /// The segment as the analysis sees it (fields it does not read are left default).
    #[inline]
    pub fn unpack(&self, sacks: &[(u32, u32)]) -> TcpSegment {
        let n = (self.bits >> SACK_SHIFT) as usize;
        let mut options = TcpOptions {
            mss: (self.bits & HAS_MSS != 0).then_some(self.mss),
            wscale: (self.bits & HAS_WSCALE != 0).then_some(self.wscale),
            timestamps: (self.bits & HAS_TS != 0).then_some((self.tsval, self.tsecr)),
            sack_count: n as u8,
            ..TcpOptions::default()
        };
        let at = self.sack_at as usize;
        options.sack[..n].copy_from_slice(&sacks[at..at + n]);
        TcpSegment {
            seq: self.seq,
            ack: self.ack,
            payload_len: self.payload_len,
            flags: self.flags,
            window: self.window,
            ip_id: self.ip_id,
            ip_version: self.ip_version,
            options,
            ..TcpSegment::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Addr;

    /// What the analysis reads of a segment (see the module docs), everything else cleared.
    fn analysed_part(seg: &TcpSegment) -> TcpSegment {
        let o = &seg.options;
        let mut options = TcpOptions { mss: o.mss, wscale: o.wscale, timestamps: o.timestamps, sack_count: o.sack_count, ..TcpOptions::default() };
        options.sack = o.sack;
        TcpSegment {
            seq: seg.seq,
            ack: seg.ack,
            payload_len: seg.payload_len,
            flags: seg.flags,
            window: seg.window,
            ip_id: seg.ip_id,
            ip_version: seg.ip_version,
            options,
            ..TcpSegment::default()
        }
    }

    #[test]
    fn fits_a_cache_line() {
        assert!(std::mem::size_of::<Shipped>() <= 56, "{}", std::mem::size_of::<Shipped>());
    }

    #[test]
    fn unpack_keeps_what_the_analysis_reads() {
        let mut sacks = vec![(7, 8)];
        let mut seg = TcpSegment {
            src: Addr::v4([10, 0, 0, 1]),
            sport: 443,
            seq: 0xdead_beef,
            ack: 42,
            payload_len: 1448,
            flags: 0x18,
            window: 501,
            ip_id: 9,
            ip_version: 4,
            ttl: 64,
            ..TcpSegment::default()
        };
        seg.options.timestamps = Some((1, 2));
        seg.options.sack[..3].copy_from_slice(&[(10, 20), (30, 40), (50, 60)]);
        seg.options.sack_count = 3;
        let with = Shipped::pack(1, 2, 3, 1, &seg, &mut sacks);
        seg.options = TcpOptions { mss: Some(1460), wscale: Some(7), sack_permitted: true, ..TcpOptions::default() };
        let syn = Shipped::pack(4, 5, 3, 0, &seg, &mut sacks);
        assert_eq!(sacks.len(), 4);
        let first = TcpSegment { options: TcpOptions { timestamps: Some((1, 2)), sack_count: 3, ..Default::default() }, ..seg.clone() };
        let mut first = first;
        first.options.sack[..3].copy_from_slice(&[(10, 20), (30, 40), (50, 60)]);
        assert_eq!(with.unpack(&sacks), analysed_part(&first));
        assert_eq!(syn.unpack(&sacks), analysed_part(&seg));
        assert_eq!((with.frame, with.ts_ns, with.flow, with.dir), (1, 2, 3, 1));
    }
}
