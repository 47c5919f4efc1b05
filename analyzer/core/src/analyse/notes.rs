//! What the analysis says about one packet. Causal: every value depends only on this
//! packet and earlier ones, so a one-pass reader (tshark without -2) can show the same.

use super::vantage::Vantage;
use super::window::RwndBasis;

/// How a retransmission was triggered (RFC 5681, RFC 6298, RFC 6675, RFC 8985).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum RetransKind {
    #[default]
    None = 0,
    /// Loss detected from ACK feedback: duplicate ACKs or SACK (RFC 5681 §3.2, RFC 6675).
    Fast = 1,
    /// After a retransmission timeout (RFC 6298), possibly backed off.
    Rto = 2,
    /// Tail-loss probe (RFC 8985 §7): the last segment resent after ~2 RTT without feedback.
    Tlp = 3,
    /// Data resent without a recognisable trigger (e.g. seen mid-path).
    Other = 4,
}

impl RetransKind {
    pub const ALL: [RetransKind; 5] =
        [RetransKind::None, RetransKind::Fast, RetransKind::Rto, RetransKind::Tlp, RetransKind::Other];
    pub fn name(self) -> &'static str {
        match self {
            RetransKind::None => "",
            RetransKind::Fast => "fast",
            RetransKind::Rto => "rto",
            RetransKind::Tlp => "tlp",
            RetransKind::Other => "other",
        }
    }
}

/// What proved a retransmission spurious.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Evidence {
    #[default]
    None = 0,
    /// A D-SACK covering the retransmitted bytes (RFC 3708).
    Dsack = 1,
    /// An ACK echoing the original transmission's timestamp (Eifel, RFC 3522).
    Eifel = 2,
}

impl Evidence {
    pub const ALL: [Evidence; 3] = [Evidence::None, Evidence::Dsack, Evidence::Eifel];
    pub fn name(self) -> &'static str {
        match self {
            Evidence::None => "",
            Evidence::Dsack => "dsack",
            Evidence::Eifel => "eifel",
        }
    }
    /// The evidence in a sentence.
    pub fn words(self) -> &'static str {
        match self {
            Evidence::None => "",
            Evidence::Dsack => "D-SACK",
            Evidence::Eifel => "timestamp echo (Eifel)",
        }
    }
}

/// What limits the sender of a direction at a moment (the idea of Linux's tcp_info
/// chrono counters busy / rwnd_limited / sndbuf_limited, extended).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum LimitState {
    /// Nothing known yet (no data in this direction).
    #[default]
    Unknown = 0,
    /// The receiver's window is full.
    Rwnd = 1,
    /// The receiver's window is zero.
    ZeroWindow = 2,
    /// Loss recovery in progress.
    Recovery = 3,
    /// Flight at the congestion-window estimate, ACK-clocked.
    Cwnd = 4,
    /// Flight flat below both windows while ACK-clocked: the send buffer holds no more.
    Sndbuf = 5,
    /// The sender is not keeping up: data in flight below both windows, sends not
    /// ACK-clocked.
    App = 6,
    /// Nothing outstanding and nothing sent: the application has nothing to send (not
    /// busy time, as in Linux's chrono accounting).
    Idle = 7,
}

impl LimitState {
    pub const ALL: [LimitState; 8] = [
        LimitState::Unknown,
        LimitState::Rwnd,
        LimitState::ZeroWindow,
        LimitState::Recovery,
        LimitState::Cwnd,
        LimitState::Sndbuf,
        LimitState::App,
        LimitState::Idle,
    ];
    pub fn name(self) -> &'static str {
        match self {
            LimitState::Unknown => "unknown",
            LimitState::Rwnd => "rwnd",
            LimitState::ZeroWindow => "zero_window",
            LimitState::Recovery => "recovery",
            LimitState::Cwnd => "cwnd",
            LimitState::Sndbuf => "sndbuf",
            LimitState::App => "app",
            LimitState::Idle => "idle",
        }
    }

    /// The state's name in a sentence.
    pub fn words(self) -> &'static str {
        match self {
            LimitState::Unknown => "unknown",
            LimitState::Rwnd => "receive window",
            LimitState::ZeroWindow => "zero window",
            LimitState::Recovery => "loss recovery",
            LimitState::Cwnd => "congestion window",
            LimitState::Sndbuf => "send buffer",
            LimitState::App => "application",
            LimitState::Idle => "idle (nothing to send)",
        }
    }

    /// Counted in busy time (Linux's chrono "busy": data outstanding or waiting).
    pub fn busy(self) -> bool {
        !matches!(self, LimitState::Unknown | LimitState::Idle)
    }
}

/// Confidence of a cwnd figure: the wire never shows cwnd.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum CwndConfidence {
    #[default]
    None = 0,
    /// Only a lower bound (flight was capped by rwnd or the application).
    Bound = 1,
    /// ACK-clocked sends stopping short of rwnd: flight equals cwnd.
    Estimate = 2,
}

impl CwndConfidence {
    pub const ALL: [CwndConfidence; 3] = [CwndConfidence::None, CwndConfidence::Bound, CwndConfidence::Estimate];
    pub fn name(self) -> &'static str {
        match self {
            CwndConfidence::None => "none",
            CwndConfidence::Bound => "bound",
            CwndConfidence::Estimate => "estimate",
        }
    }
}

/// Reordering extent of one late segment or filled hole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reorder {
    pub packets: u32,
    pub bytes: u32,
    pub late_ns: i64,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct PacketNotes {
    /// The direction whose flight and limit are described: the packet's own for data,
    /// the reverse for a pure ACK.
    pub data_dir: u8,
    /// Receive window (scaled, bytes) limiting `data_dir`: the latest window its receiver
    /// advertised (this packet's own window when it is a pure ACK). 0 before any.
    pub rwnd: u64,
    pub rwnd_basis: Option<RwndBasis>,
    /// RFC 6675 pipe of `data_dir` after this packet.
    pub in_flight: u64,
    /// SND.MAX − SND.UNA of `data_dir`.
    pub unacked: u64,
    pub sacked: u64,
    pub cwnd: u64,
    pub cwnd_conf: CwndConfidence,
    pub limit: LimitState,
    pub retrans: RetransKind,
    /// Frame that first carried the retransmitted bytes.
    pub retrans_of: u64,
    pub dsack: bool,
    /// The D-SACK's range relative to the sender's first sequence number (Wireshark's
    /// relative numbers; raw when that direction's data was never seen).
    pub dsack_edges: (u32, u32),
    /// Retransmission frame this ACK proves spurious, and how; the frame that first
    /// carried those bytes and when the retransmission was sent.
    pub spurious_of: u64,
    pub spurious_by: Evidence,
    pub spurious_orig: u64,
    pub spurious_ts: i64,
    pub reorder: Option<Reorder>,
    /// Sequence gap before this segment: bytes never seen at the capture point.
    pub lost_before: u32,
    /// Duplicate-ACK number (1 for the first duplicate), 0 if not one.
    pub dup_ack: u32,
    /// Frame of the ACK this one duplicates.
    pub dup_ack_of: u64,
    pub zero_window: bool,
    pub zero_window_probe: bool,
    pub window_full: bool,
    pub keepalive: bool,
    /// The same packet seen again (same bytes, same IPv4 ID).
    pub duplicate: bool,
    pub rtt_ns: Option<i64>,
    /// For the Wireshark plugin's tree only (not in the packets table): the vantage from
    /// the handshake relative to `data_dir`'s sender (unknown until the handshake's ACK),
    /// RACK's reordering window (min RTT / 4), and a window scale this packet proved
    /// (the flight that proved it).
    pub vantage: Vantage,
    pub rack_ns: i64,
    pub inferred_shift: Option<(u8, u64)>,
}
