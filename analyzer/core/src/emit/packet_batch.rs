//! A chunk of the packets table (schema::PACKET, with schema::ANALYSIS when analysed) and
//! its SACK blocks (schema::SACK) as Arrow record batches. The vectors move into the
//! arrays without a copy.

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::ArrowError;

use super::analysis::AnalysisColumns;
use super::columns::*;
use super::packets::PacketColumns;
use super::schema::{self, ANALYSIS, PACKET, SACK};
use crate::analyse::notes::{CwndConfidence, Evidence, LimitState, RetransKind};
use crate::analyse::window::RwndBasis;

fn names<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> Vec<&'static str> {
    all.iter().map(|&x| name(x)).collect()
}

fn wire(c: PacketColumns) -> Vec<ArrayRef> {
    let addrs: Vec<String> = c.addrs.values.iter().map(|a| a.to_ip().to_string()).collect();
    vec![
        u64s(c.frame),
        u32s(c.stream),
        u8s(c.dir),
        times(c.ts_ns),
        addr_codes(c.src, addrs.clone()),
        u16s(c.sport),
        addr_codes(c.dst, addrs),
        u16s(c.dport),
        u32s(c.seq_raw),
        u32s(c.ack_raw),
        u32s(c.tcp_len),
        u16s(c.flags),
        u16s(c.win_raw),
    ]
}

/// The wire columns of a chunk.
pub fn packets_batch(c: PacketColumns) -> Result<RecordBatch, ArrowError> {
    batch(schema::schema(&[PACKET]), wire(c))
}

/// The wire and analysis columns of a chunk, and its SACK blocks.
pub fn analysis_batches(c: AnalysisColumns) -> Result<(RecordBatch, RecordBatch), ArrowError> {
    let sack_frames: Vec<u64> = c.sack_row.iter().map(|&r| c.wire.frame[r as usize]).collect();
    let sack_streams: Vec<u32> = c.sack_row.iter().map(|&r| c.wire.stream[r as usize]).collect();
    let sacks = batch(
        schema::schema(&[SACK]),
        vec![u64s(sack_frames), u32s(sack_streams), u32s(c.sack_left), u32s(c.sack_right)],
    )?;
    let optional = |v: Vec<i64>| opt_i64s(v.into_iter().map(|x| (x >= 0).then_some(x)).collect());
    let mut cols = wire(c.wire);
    cols.extend([
        u8s(c.data_dir),
        u64s(c.rwnd),
        codes(c.rwnd_basis, &names(&RwndBasis::ALL, RwndBasis::name)),
        u64s(c.in_flight),
        u64s(c.unacked),
        u64s(c.sacked),
        u64s(c.cwnd),
        codes(c.cwnd_conf, &names(&CwndConfidence::ALL, CwndConfidence::name)),
        codes(c.limit, &names(&LimitState::ALL, LimitState::name)),
        codes(c.retrans, &names(&RetransKind::ALL, RetransKind::name)),
        u64s(c.retrans_of),
        bools(c.dsack),
        u64s(c.spurious_of),
        codes(c.spurious_by, &names(&Evidence::ALL, Evidence::name)),
        u32s(c.reorder_packets),
        u32s(c.reorder_bytes),
        optional(c.reorder_ns),
        u32s(c.lost_before),
        u32s(c.dup_ack),
        bools(c.zero_window),
        bools(c.zero_window_probe),
        bools(c.window_full),
        bools(c.keepalive),
        bools(c.duplicate),
        optional(c.rtt_ns),
    ]);
    Ok((batch(schema::schema(&[PACKET, ANALYSIS]), cols)?, sacks))
}
