//! Header fields a middlebox changed between the capture points, read off the segments seen
//! in both captures: handshake options (stripped, rewritten, MSS clamped), the window field,
//! TTL / hop limit, DSCP and ECN, timestamps and SACK blocks (stripped, or left untranslated
//! by a box that shifts sequence numbers).

use super::record::SynOpts;
use super::segments::NONE;
use super::side::Side;

/// Frames of one example in A and in B.
pub type Example = (u64, u64);

/// A change to a handshake option.
#[derive(Debug, Clone, PartialEq)]
pub enum SynChange {
    Stripped { option: &'static str },
    Rewritten { option: &'static str, up: u32, down: u32 },
    MssClamped { up: u16, down: u16 },
}

/// What changed in one direction, upstream → downstream.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rewrites {
    pub compared: u64,
    /// Handshake option changes, with the SYN's frames.
    pub syn: Vec<(SynChange, Example)>,
    pub window_changed: u64,
    pub window_example: Option<(u16, u16, Example)>,
    /// TTL decrease between the points when it is the same for every segment.
    pub hops: Option<u8>,
    /// TTL upstream and downstream of a segment whose decrease is not the common one.
    pub ttl_example: Option<(u8, u8, Example)>,
    pub dscp_changed: u64,
    pub dscp_example: Option<(u8, u8, Example)>,
    pub ecn_bleached: u64,
    pub ecn_example: Option<(u8, Example)>,
    pub ce_marked: u64,
    pub ce_example: Option<Example>,
    pub ts_stripped: u64,
    pub ts_example: Option<Example>,
    pub sack_stripped: u64,
    pub sack_untranslated: u64,
    pub sack_example: Option<Example>,
}

/// One direction's matched segments: upstream / downstream sides, lists and links.
pub struct Seen<'a> {
    pub up: &'a Side,
    pub down: &'a Side,
    pub lu: &'a [u32],
    pub ld: &'a [u32],
    /// Per upstream position: the downstream one, or NONE.
    pub u_to_d: &'a [u32],
    /// Acknowledgement / SACK edge at downstream = at upstream + `peer_shift`.
    pub peer_shift: u32,
    pub a_upstream: bool,
}

const ECT1: u8 = 1;
const ECT0: u8 = 2;
const CE: u8 = 3;

pub fn find(s: &Seen<'_>) -> Rewrites {
    let mut r = Rewrites::default();
    let ex = |fu: u64, fd: u64| if s.a_upstream { (fu, fd) } else { (fd, fu) };
    let mut ttl_diffs: Vec<(i16, u8, u8, Example)> = Vec::new();
    let mut syn_done = false;
    for (p, &q) in s.u_to_d.iter().enumerate() {
        if q == NONE {
            continue;
        }
        let (iu, id) = (s.lu[p], s.ld[q as usize]);
        let (u, d) = (s.up.seg(iu), s.down.seg(id));
        let e = ex(u.frame, d.frame);
        r.compared += 1;
        if u.syn() && !syn_done {
            syn_done = true;
            if let (Some(ou), Some(od)) = (s.up.cap.syn_opts(iu), s.down.cap.syn_opts(id)) {
                r.syn = syn_changes(&ou, &od).into_iter().map(|c| (c, e)).collect();
            }
        }
        if u.window != d.window {
            r.window_changed += 1;
            r.window_example.get_or_insert((u.window, d.window, e));
        }
        let diff = u.ttl as i16 - d.ttl as i16;
        if ttl_diffs.len() < 8 && !ttl_diffs.iter().any(|x| x.0 == diff) {
            ttl_diffs.push((diff, u.ttl, d.ttl, e));
        }
        if u.tos >> 2 != d.tos >> 2 {
            r.dscp_changed += 1;
            r.dscp_example.get_or_insert((u.tos >> 2, d.tos >> 2, e));
        }
        let (eu, ed) = (u.tos & 3, d.tos & 3);
        if (eu == ECT0 || eu == ECT1) && ed == 0 {
            r.ecn_bleached += 1;
            r.ecn_example.get_or_insert((eu, e));
        }
        if (eu == ECT0 || eu == ECT1) && ed == CE {
            r.ce_marked += 1;
            r.ce_example.get_or_insert(e);
        }
        if u.has_ts() && !d.has_ts() {
            r.ts_stripped += 1;
            r.ts_example.get_or_insert(e);
        }
        let (bu, bd) = (s.up.cap.sack_blocks(u), s.down.cap.sack_blocks(d));
        if !bu.is_empty() {
            if bd.is_empty() {
                r.sack_stripped += 1;
                r.sack_example.get_or_insert(e);
            } else if s.peer_shift != 0 && bu == bd {
                r.sack_untranslated += 1;
                r.sack_example.get_or_insert(e);
            }
        }
    }
    // TTL: one constant decrease is the hop count; anything else is a rewrite.
    match ttl_diffs.as_slice() {
        [(d, ..)] if *d >= 0 => r.hops = Some(*d as u8),
        [] => {}
        diffs => {
            let odd = diffs.iter().find(|x| x.0 < 0).unwrap_or(&diffs[1]);
            r.ttl_example = Some((odd.1, odd.2, odd.3));
        }
    }
    r
}

/// Options of one SYN upstream (`u`) and downstream (`d`).
pub fn syn_changes(u: &SynOpts, d: &SynOpts) -> Vec<SynChange> {
    let mut out = Vec::new();
    match (u.wscale, d.wscale) {
        (Some(_), None) => out.push(SynChange::Stripped { option: "window scale" }),
        (Some(x), Some(y)) if x != y => out.push(SynChange::Rewritten { option: "window scale", up: x as u32, down: y as u32 }),
        _ => {}
    }
    match (u.mss, d.mss) {
        (Some(_), None) => out.push(SynChange::Stripped { option: "MSS" }),
        (Some(x), Some(y)) if y < x => out.push(SynChange::MssClamped { up: x, down: y }),
        (Some(x), Some(y)) if y > x => out.push(SynChange::Rewritten { option: "MSS", up: x as u32, down: y as u32 }),
        _ => {}
    }
    if u.sack_permitted && !d.sack_permitted {
        out.push(SynChange::Stripped { option: "SACK-permitted" });
    }
    if u.timestamps && !d.timestamps {
        out.push(SynChange::Stripped { option: "timestamps" });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syn_stripped_of_window_scale_and_clamped() {
        let up = SynOpts { mss: Some(1460), wscale: Some(8), sack_permitted: true, timestamps: true };
        let down = SynOpts { mss: Some(1400), wscale: None, ..up };
        assert_eq!(syn_changes(&up, &down), vec![
            SynChange::Stripped { option: "window scale" },
            SynChange::MssClamped { up: 1460, down: 1400 },
        ]);
        assert!(syn_changes(&up, &up).is_empty());
    }
}
