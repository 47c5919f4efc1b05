//! The tables tcpdiag hands to Python, declared once: name, Arrow type and meaning of every
//! column. The builders (flows_table.rs, findings_table.rs, packet_batch.rs, events.rs)
//! fill exactly these columns in this order (a test checks it), the Python package reads
//! them as Arrow record batches, and docs/tables.md is generated from the `doc` texts.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};

/// A column's Arrow type, in the few shapes the tables use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Bool,
    U8,
    U16,
    U32,
    U64,
    I64,
    F64,
    Utf8,
    /// Text stored once per distinct value (sentences repeat across flows).
    Words,
    /// Nanoseconds since the epoch, UTC.
    Time,
    /// Strings stored once per batch, a u8 code per row (pandas: a Categorical).
    Code,
    /// Addresses stored once per batch, a u32 code per row.
    AddrCode,
    FrameList,
    TextList,
    /// A finding's evidence: `{name, unit, number, text}` per value.
    Values,
}

pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    pub nullable: bool,
    pub doc: &'static str,
}

const fn col(name: &'static str, kind: Kind, doc: &'static str) -> Column {
    Column { name, kind, nullable: false, doc }
}

const fn opt(name: &'static str, kind: Kind, doc: &'static str) -> Column {
    Column { name, kind, nullable: true, doc }
}

fn value_fields() -> Fields {
    Fields::from(vec![
        Field::new("name", DataType::Utf8, false),
        Field::new("unit", DataType::Utf8, false),
        Field::new("number", DataType::Float64, true),
        Field::new("text", DataType::Utf8, true),
    ])
}

impl Kind {
    pub fn data_type(self) -> DataType {
        match self {
            Kind::Bool => DataType::Boolean,
            Kind::U8 => DataType::UInt8,
            Kind::U16 => DataType::UInt16,
            Kind::U32 => DataType::UInt32,
            Kind::U64 => DataType::UInt64,
            Kind::I64 => DataType::Int64,
            Kind::F64 => DataType::Float64,
            Kind::Utf8 => DataType::Utf8,
            Kind::Words => DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8)),
            Kind::Time => DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
            Kind::Code => DataType::Dictionary(Box::new(DataType::UInt8), Box::new(DataType::Utf8)),
            Kind::AddrCode => DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8)),
            Kind::FrameList => DataType::List(Arc::new(Field::new("item", DataType::UInt64, false))),
            Kind::TextList => DataType::List(Arc::new(Field::new("item", DataType::Utf8, false))),
            Kind::Values => DataType::List(Arc::new(Field::new("item", DataType::Struct(value_fields()), false))),
        }
    }
}

/// The Arrow schema of a table, each field carrying its `doc` as metadata.
pub fn schema(columns: &[&[Column]]) -> Arc<Schema> {
    let fields: Vec<Field> = columns
        .iter()
        .flat_map(|part| part.iter())
        .map(|c| {
            Field::new(c.name, c.kind.data_type(), c.nullable)
                .with_metadata(HashMap::from([("doc".to_string(), c.doc.to_string())]))
        })
        .collect();
    Arc::new(Schema::new(fields))
}

/// The flows table: one row per TCP flow (Wireshark `tcp.stream`).
pub const FLOW: &[Column] = &[
    col("stream", Kind::U32, "Flow number, equal to Wireshark's tcp.stream"),
    col("a_addr", Kind::Utf8, "Endpoint A address: source of the flow's first packet (the client if the SYN was captured)"),
    col("a_port", Kind::U16, "Endpoint A port"),
    col("b_addr", Kind::Utf8, "Endpoint B address"),
    col("b_port", Kind::U16, "Endpoint B port"),
    col("first_frame", Kind::U64, "First frame of the flow (Wireshark frame.number)"),
    col("last_frame", Kind::U64, "Last frame of the flow"),
    opt("start", Kind::Time, "Time of the first packet (UTC; empty when the capture's time is beyond 2262, where nanosecond times end)"),
    col("duration_s", Kind::F64, "Seconds from first to last packet"),
    col("packets_ab", Kind::U64, "Packets from A to B"),
    col("packets_ba", Kind::U64, "Packets from B to A"),
    col("bytes_ab", Kind::U64, "Frame bytes from A to B (as tshark -z conv,tcp counts)"),
    col("bytes_ba", Kind::U64, "Frame bytes from B to A"),
    col("payload_ab", Kind::U64, "TCP payload bytes from A to B (sum of tcp.len, retransmissions included)"),
    col("payload_ba", Kind::U64, "TCP payload bytes from B to A"),
    col("handshake", Kind::Bool, "Both SYN and SYN/ACK captured"),
    opt("syn_frame_a", Kind::U64, "Frame of A's SYN (empty if not captured)"),
    opt("syn_frame_b", Kind::U64, "Frame of B's SYN/ACK (empty if not captured)"),
    opt("mss_a", Kind::U16, "MSS option in A's SYN"),
    opt("mss_b", Kind::U16, "MSS option in B's SYN/ACK"),
    opt("wscale_a", Kind::U8, "Window-scale shift in A's SYN (empty: option absent or SYN not captured)"),
    opt("wscale_b", Kind::U8, "Window-scale shift in B's SYN/ACK"),
    opt("wscale_in_effect", Kind::Bool, "Window scaling in effect (both SYNs carry it); empty when unknown"),
    opt("sack_permitted", Kind::Bool, "SACK permitted by both sides; empty when unknown"),
    opt("timestamps", Kind::Bool, "Timestamps negotiated by both sides; empty when unknown"),
    opt("ecn", Kind::Bool, "ECN negotiated (RFC 3168); empty when unknown"),
    col("fin_a", Kind::Bool, "A sent a FIN"),
    col("fin_b", Kind::Bool, "B sent a FIN"),
    col("rst_a", Kind::Bool, "A sent a RST"),
    col("rst_b", Kind::Bool, "B sent a RST"),
];

/// Columns the diagnosis adds to the flows table (`tcpdiag analyze`).
pub const VERDICT: &[Column] = &[
    col("verdict", Kind::Code, "Primary finding: the catalogue id of what limited the flow most"),
    col("severity", Kind::Code, "Severity of the primary finding (chat, note, warn, error)"),
    col("verdict_share", Kind::F64, "Share of the busy time the primary finding explains (0..1), its rank"),
    col("message", Kind::Words, "The primary finding in words (the catalogue message, filled in)"),
    col("remedy", Kind::Words, "What to do about it"),
    col("evidence_frames", Kind::FrameList, "Frames that show the primary finding (frame.number)"),
    col("vantage", Kind::Code, "Where the capture was taken relative to the data sender: sender, receiver, middle or unknown"),
    col("data_dir", Kind::U8, "The direction judged: 0 = A→B, 1 = B→A (the one that carried more payload)"),
    col("busy_s", Kind::F64, "Seconds the data direction had data outstanding (Linux's busy time)"),
    col("share_rwnd", Kind::F64, "Share of busy time the receive window limited the sender, as Linux's rwnd_limited chrono counts it: a pacing sender's full window only once its pacing clock ran out"),
    col("share_zero_window", Kind::F64, "Share of busy time the receive window was zero"),
    col("share_recovery", Kind::F64, "Share of busy time in loss recovery"),
    col("share_cwnd", Kind::F64, "Share of busy time the congestion window (or its pacing) limited the sender"),
    col("share_sndbuf", Kind::F64, "Share of busy time the send buffer limited the sender"),
    col("share_app", Kind::F64, "Share of busy time the application limited the sender"),
    col("idle_s", Kind::F64, "Seconds with nothing outstanding (not busy time)"),
    opt("min_rtt_ms", Kind::F64, "Lowest RTT sample, ms"),
    opt("srtt_ms", Kind::F64, "Smoothed RTT at the end (RFC 6298), ms"),
    opt("mean_rtt_ms", Kind::F64, "Mean RTT sample, ms"),
    col("mss", Kind::U32, "Largest segment of the data direction (capped by the peer's MSS option)"),
    col("data_bytes", Kind::U64, "New data bytes of the data direction (retransmissions not counted)"),
    col("goodput_bps", Kind::F64, "New data bits ÷ seconds from the first data to the last ACK"),
    opt("capacity_bps", Kind::F64, "The bottleneck's rate as the densest stretches of ACKs show it (bytes newly acknowledged or SACKed over 16 ACKs, 90th percentile; or the densest cluster of packet-pair rates at 0.8× that or more, one ACK's bytes over the gap since the previous one or over a train of ACKs closer than 200 µs (timed once it spans 200 µs, or 50 µs when a longer gap ends it); at the receiver also the data segments' own arrivals timed the same way, the faster cluster winning; taken no lower than the 16-ACK median; samples of a write begun after the sender ran out of data left out), bit/s"),
    opt("rwnd_min", Kind::U64, "Smallest receive window limiting the data direction after the handshake, bytes"),
    col("rwnd_max", Kind::U64, "Largest receive window limiting the data direction, bytes"),
    opt("rwnd_basis", Kind::Code, "How rwnd is known: known, not_negotiated (unscaled) or inferred (lower bound)"),
    col("retrans", Kind::U64, "Retransmitted segments"),
    col("spurious", Kind::U64, "Retransmissions proven spurious (D-SACK or Eifel)"),
    col("dsacks", Kind::U64, "D-SACK blocks received"),
    col("reorder_events", Kind::U64, "Reordering events (late originals, holes filled without retransmission)"),
    col("max_reorder_ms", Kind::F64, "Largest reordering extent, ms"),
    col("recoveries", Kind::U32, "Loss-recovery episodes"),
    col("zero_windows", Kind::U64, "Zero-window advertisements"),
    col("lost_before_bytes", Kind::U64, "Bytes never seen at the capture point (lost before it)"),
    col("congestion_control", Kind::Code, "The sender's congestion control as its behaviour shows it: reno, cubic, bbr, or unknown (cannot tell from this capture)"),
    col("cc_line", Kind::Words, "What the congestion-control inference rests on: the window's cut after genuine losses (Reno 0.5, CUBIC 0.7, BBR none), the share of segments sent on the sender's own timer rather than on an ACK (pacing); at the sender only"),
    opt("ceiling_limit", Kind::Code, "What caps the flow in the ceiling arithmetic: rwnd, sndbuf or path (empty: a flow too small to judge)"),
    opt("ceiling_window_bytes", Kind::U64, "The window the ceiling is computed from, bytes"),
    opt("ceiling_rtt_ms", Kind::F64, "The end-to-end RTT the ceiling is computed with (mean of the path's samples), ms (empty: none measurable from this capture)"),
    opt("ceiling_min_rtt_ms", Kind::F64, "The base RTT buffer needs are computed with, ms"),
    opt("rtt_source", Kind::Words, "Where that RTT comes from"),
    opt("ceiling_bps", Kind::F64, "Window ÷ RTT, bit/s"),
    opt("bdp_bytes", Kind::U64, "Observed goodput × base RTT, bytes"),
    opt("target_bps", Kind::F64, "The rate buffer needs were computed for (--target-rate)"),
    opt("needed_bytes", Kind::U64, "Window or send buffer the target rate needs on this path, bytes"),
    col("ceiling_lines", Kind::TextList, "The ceiling arithmetic in words, a step a line"),
    col("transfer_line", Kind::Words, "Data, duration, goodput, RTT and retransmissions in one line"),
    col("time_line", Kind::Words, "The limit states by share of the busy time, in words"),
    col("findings", Kind::U8, "Number of findings (rows of the findings table for this flow)"),
    col("limited_s", Kind::F64, "Seconds the primary finding explains: busy time × its share (0 when not limited)"),
    col("rate_window_s", Kind::F64, "Trailing window of the series table's rates: one smoothed RTT, at least 1/200 of the flow and 1 ms"),
];

/// The findings table: every finding of every flow, the primary first (rank 0).
pub const FINDING: &[Column] = &[
    col("stream", Kind::U32, "Flow number (tcp.stream)"),
    col("rank", Kind::U8, "0 for the primary finding, then by share explained"),
    col("id", Kind::Code, "Catalogue id (catalogue/findings.toml)"),
    col("field", Kind::Words, "Wireshark-style filter name (tcpdiag.verdict.*)"),
    col("severity", Kind::Code, "chat, note, warn or error"),
    col("share", Kind::F64, "Share of the busy time this finding explains (0..1)"),
    col("message", Kind::Words, "The finding in words"),
    col("remedy", Kind::Words, "What to do about it"),
    col("frames", Kind::FrameList, "Frames that show it"),
    col("values", Kind::Values, "The numbers behind the message: name, unit, number (or text)"),
];

/// The events table: one row per packet event of the catalogue (retransmission, D-SACK …).
pub const EVENT: &[Column] = &[
    col("frame", Kind::U64, "Frame the event is about (frame.number)"),
    col("stream", Kind::U32, "Flow number (tcp.stream)"),
    col("time", Kind::Time, "Capture time of that frame (UTC)"),
    col("kind", Kind::Code, "Catalogue id of the event"),
    opt("related_frame", Kind::U64, "The original of a retransmission, the ACK that proved it spurious, the ACK a duplicate repeats"),
    col("message", Kind::Words, "The event in words"),
];

/// The packets table: one row per TCP segment, as Wireshark shows it.
pub const PACKET: &[Column] = &[
    col("frame", Kind::U64, "Frame number (frame.number)"),
    col("stream", Kind::U32, "Flow number (tcp.stream)"),
    col("dir", Kind::U8, "0 = from endpoint A to B, 1 = from B to A"),
    col("ts", Kind::Time, "Capture time, UTC (frame.time_epoch)"),
    col("src", Kind::AddrCode, "Source address (ip.src / ipv6.src)"),
    col("sport", Kind::U16, "Source port (tcp.srcport)"),
    col("dst", Kind::AddrCode, "Destination address (ip.dst / ipv6.dst)"),
    col("dport", Kind::U16, "Destination port (tcp.dstport)"),
    col("seq_raw", Kind::U32, "Sequence number as on the wire (tcp.seq_raw)"),
    col("ack_raw", Kind::U32, "Acknowledgement number as on the wire (tcp.ack_raw)"),
    col("tcp_len", Kind::U32, "TCP payload length from the IP lengths, not the captured length (tcp.len)"),
    col("flags", Kind::U16, "TCP flag bits: FIN=1 SYN=2 RST=4 PSH=8 ACK=16 URG=32 ECE=64 CWR=128 AE=256 (tcp.flags)"),
    col("win_raw", Kind::U16, "Window field before scaling (tcp.window_size_value)"),
];

/// The analysis columns of the packets table (`--analysis`): what the engine says about
/// each segment. The same names are the Wireshark plugin's `tcpdiag.*` fields.
pub const ANALYSIS: &[Column] = &[
    col("data_dir", Kind::U8, "The direction whose flight and limit the row describes: the packet's own when it carries data (or SYN/FIN), the reverse for a pure ACK"),
    col("rwnd", Kind::U64, "Receive window (bytes, scaled) limiting data_dir: the latest window its receiver advertised"),
    col("rwnd_basis", Kind::Code, "known (handshake captured), not_negotiated (a SYN lacked window scaling: the 16-bit field is the window), inferred (handshake not captured: a lower bound from data in flight above the raw window)"),
    col("in_flight", Kind::U64, "Bytes in flight of data_dir after this packet: RFC 6675 pipe with RACK loss marking (unacked − SACKed − lost + retransmitted); away from the sender, the sender's view one ACK→data delay ago"),
    col("unacked", Kind::U64, "Bytes sent and not cumulatively acknowledged (SND.MAX − SND.UNA)"),
    col("sacked", Kind::U64, "Bytes SACKed above SND.UNA"),
    col("cwnd", Kind::U64, "Congestion-window estimate or lower bound, bytes"),
    col("cwnd_conf", Kind::Code, "estimate (ACK-clocked sends stopping short of rwnd: flight = cwnd), bound (only a lower bound) or none"),
    col("limit", Kind::Code, "What limits data_dir's sender as of this packet: rwnd, zero_window, recovery, cwnd, sndbuf, app, idle, unknown. The flow's share_* count the same time with what later packets showed (a flat flight proven a send buffer's from the stretch's start; on a full link, its time the path's), so a tally of this column can differ from them"),
    col("retrans", Kind::Code, "Retransmission kind: fast, rto, tlp, other (empty: not one)"),
    col("retrans_of", Kind::U64, "Frame that first carried the retransmitted bytes (0: not captured or not one)"),
    col("dsack", Kind::Bool, "This ACK carries a D-SACK (RFC 2883; same rule as tcp.options.sack.dsack)"),
    col("spurious_of", Kind::U64, "Retransmission frame this ACK proves spurious (0: none)"),
    col("spurious_by", Kind::Code, "How: dsack (RFC 3708) or eifel (RFC 3522)"),
    col("reorder_packets", Kind::U32, "Reordering extent in packets: of a late original (receiver view) or of a SACK hole that filled without retransmission (sender view)"),
    col("reorder_bytes", Kind::U32, "Reordering extent in bytes"),
    opt("reorder_ns", Kind::I64, "Reordering extent in time, ns (empty: not a reordering)"),
    col("lost_before", Kind::U32, "Bytes missing before this segment (never seen at the capture point)"),
    col("dup_ack", Kind::U32, "Duplicate-ACK number, as tcp.analysis.duplicate_ack_num (0: not one)"),
    col("zero_window", Kind::Bool, "Advertises a zero window"),
    col("zero_window_probe", Kind::Bool, "A zero-window probe"),
    col("window_full", Kind::Bool, "This segment filled the receiver's window"),
    col("keepalive", Kind::Bool, "A keep-alive"),
    col("duplicate", Kind::Bool, "The same packet seen again (same bytes, same IPv4 ID)"),
    opt("rtt_ns", Kind::I64, "RTT sample this ACK carries (Karn-safe), ns"),
];

/// The SACK blocks of the packets in a batch (most rows carry none).
pub const SACK: &[Column] = &[
    col("frame", Kind::U64, "Frame of the ACK"),
    col("stream", Kind::U32, "Flow number"),
    col("left_raw", Kind::U32, "Left edge as on the wire"),
    col("right_raw", Kind::U32, "Right edge as on the wire"),
];

/// The series table: each flow's state over time, one row per packet that describes its
/// data direction (data segments and the receiver's ACKs).
pub const SERIES: &[Column] = &[
    col("stream", Kind::U32, "Flow number (tcp.stream)"),
    col("frame", Kind::U64, "Frame number"),
    col("time", Kind::Time, "Capture time (UTC)"),
    col("t", Kind::F64, "Seconds since the flow's first packet"),
    col("in_flight", Kind::U64, "Bytes in flight after this packet (RFC 6675 pipe)"),
    col("rwnd", Kind::U64, "Receive window limiting the data direction, bytes"),
    opt("cwnd", Kind::U64, "cwnd estimate or lower bound, bytes (empty: unknown)"),
    col("cwnd_conf", Kind::Code, "none, bound or estimate"),
    col("limit", Kind::Code, "Limit state (unknown, rwnd, zero_window, recovery, cwnd, sndbuf, app, idle)"),
    col("throughput_bps", Kind::F64, "Bits sent (retransmissions included) in the trailing window ÷ window"),
    col("goodput_bps", Kind::F64, "Bits newly acknowledged in the trailing window ÷ window"),
    opt("rtt_ms", Kind::F64, "RTT sample carried by this ACK, ms"),
];

/// `tcpdiag compare`: one row per flow of either capture, matched ones paired.
pub const PAIR: &[Column] = &[
    col("pair", Kind::U32, "Pair number in this comparison"),
    opt("stream_a", Kind::U32, "The flow's tcp.stream in capture A (empty: not seen there)"),
    opt("stream_b", Kind::U32, "The flow's tcp.stream in capture B (empty: not seen there)"),
    opt("matched_by", Kind::Code, "same (equal endpoints and sequence numbers) or translated (NAT or shifted sequence numbers: matched by its segments); empty for a flow seen in one capture"),
    opt("match_score", Kind::F64, "Share of the sampled segments of one capture found in the other (0..1)"),
    opt("client_a", Kind::Utf8, "The client (the side that sent the SYN; else the first sender) as capture A saw it, address:port"),
    opt("server_a", Kind::Utf8, "The server as capture A saw it"),
    opt("client_b", Kind::Utf8, "The client as capture B saw it"),
    opt("server_b", Kind::Utf8, "The server as capture B saw it"),
    col("a_position", Kind::Code, "Where capture A is on the flow's path: client_side (it sees client → server segments first), server_side, or unknown"),
    col("finding", Kind::Code, "The primary localisation finding (catalogue id)"),
    col("severity", Kind::Code, "Its severity (chat, note, warn, error)"),
    col("message", Kind::Words, "The primary finding in words"),
    col("findings", Kind::U8, "Number of localisation findings (rows of the pair findings table)"),
];

/// `tcpdiag compare`: per matched flow and direction, what happened on the path between the
/// capture points.
pub const DIRECTION: &[Column] = &[
    col("pair", Kind::U32, "Pair number"),
    col("dir", Kind::U8, "0 = client → server, 1 = server → client"),
    col("upstream", Kind::Code, "The capture this direction meets first: a or b"),
    col("seen_a", Kind::U64, "Segments of this direction in capture A"),
    col("seen_b", Kind::U64, "Segments in capture B"),
    col("data_sent", Kind::U64, "Segments carrying data (or SYN/FIN) seen upstream while both captures ran"),
    col("delivered", Kind::U64, "Segments seen at both points"),
    col("lost_between", Kind::U64, "Data segments lost between the capture points"),
    col("lost_before", Kind::U64, "Data segments lost before the upstream capture (their bytes first seen there in a retransmission)"),
    col("lost_after", Kind::U64, "Data segments lost after the downstream capture (seen there, not received)"),
    col("acks_lost", Kind::U64, "Pure ACKs seen upstream and not downstream"),
    col("not_captured_a", Kind::U64, "Segments that crossed capture A's point without being recorded there"),
    col("not_captured_b", Kind::U64, "Segments that crossed capture B's point without being recorded there"),
    col("outside", Kind::U64, "Segments seen while the other capture was not running"),
    col("split", Kind::U64, "Upstream segments that arrive split into several (TSO, resegmentation)"),
    col("merged", Kind::U64, "Upstream segments that arrive merged with others (GRO)"),
    col("reordered", Kind::U64, "Segments overtaken between the points by a segment sent after them"),
    col("late_3ms", Kind::U64, "Reordered segments at least 3 ms late"),
    col("max_late_ms", Kind::F64, "Largest lateness of a reordered segment, ms"),
    opt("owd_min_ms", Kind::F64, "Smallest one-way delay between the points, ms (clock offset removed)"),
    opt("owd_p50_ms", Kind::F64, "Median one-way delay, ms"),
    opt("owd_p95_ms", Kind::F64, "95th percentile one-way delay, ms"),
    opt("owd_max_ms", Kind::F64, "Largest one-way delay, ms"),
    opt("hops", Kind::U8, "TTL / hop-limit decrease between the points when the same for every segment (routers between them)"),
    col("seq_shift", Kind::U32, "Sequence number downstream minus upstream (mod 2^32): 0 unless a middlebox shifts them"),
    col("window_rewritten", Kind::U64, "Segments whose window field differs between the captures"),
    col("dscp_rewritten", Kind::U64, "Segments whose DSCP differs"),
    col("ecn_bleached", Kind::U64, "Segments ECN-capable upstream, Not-ECT downstream"),
    col("ce_marked", Kind::U64, "Segments ECN-capable upstream, marked CE downstream"),
];

/// `tcpdiag compare`: one row per segment of the matched flows (and one per transmission
/// lost before the upstream capture, seen in neither).
pub const FATE: &[Column] = &[
    col("pair", Kind::U32, "Pair number"),
    col("dir", Kind::U8, "0 = client → server, 1 = server → client"),
    opt("frame_a", Kind::U64, "Frame in capture A (empty: not seen there)"),
    opt("frame_b", Kind::U64, "Frame in capture B"),
    opt("time_a", Kind::Time, "Capture time in A (A's clock)"),
    opt("time_b", Kind::Time, "Capture time in B (B's clock)"),
    col("rel_seq", Kind::I64, "Sequence number relative to the direction's ISN, as Wireshark's relative numbers at capture A"),
    col("len", Kind::U32, "Sequence space it occupies: payload bytes, plus 1 for SYN and FIN"),
    col("fate", Kind::Code, "delivered (seen at both), lost_between, lost_before (the upstream capture), lost_after (the downstream capture), not_captured_a, not_captured_b (crossed that point unrecorded), outside (the other capture was not running)"),
    opt("owd_ms", Kind::F64, "One-way delay between the points, ms (clock offset removed)"),
    opt("late_ms", Kind::F64, "Reordered between the points: how late it arrived, ms"),
    col("pieces", Kind::U16, "Counterparts in the other capture: above 1 when split or merged between them"),
    col("retrans", Kind::Bool, "Bytes the upstream capture had already seen sent (a retransmission)"),
    opt("evidence_a", Kind::U64, "Frame of capture A that decided the fate: the retransmission repairing a loss, or the ACK proving the receiver got it"),
    opt("evidence_b", Kind::U64, "Frame of capture B that decided the fate"),
];

/// `tcpdiag compare`: every localisation finding of every pair, the primary first.
pub const PAIR_FINDING: &[Column] = &[
    col("pair", Kind::U32, "Pair number"),
    opt("stream_a", Kind::U32, "tcp.stream in capture A"),
    opt("stream_b", Kind::U32, "tcp.stream in capture B"),
    col("rank", Kind::U8, "0 for the primary finding, then by severity and share"),
    col("id", Kind::Code, "Catalogue id (catalogue/findings.toml)"),
    col("field", Kind::Words, "Wireshark-style filter name (tcpdiag.compare.*)"),
    col("severity", Kind::Code, "chat, note, warn or error"),
    col("share", Kind::F64, "How much of the pair's trouble it explains (0..1), for ranking"),
    col("message", Kind::Words, "The finding in words"),
    col("remedy", Kind::Words, "What to do about it"),
    col("frames_a", Kind::FrameList, "Frames of capture A that show it"),
    col("frames_b", Kind::FrameList, "Frames of capture B that show it"),
    col("values", Kind::Values, "The numbers behind the message: name, unit, number (or text)"),
];
