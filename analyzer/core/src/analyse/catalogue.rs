//! The findings catalogue (generated from catalogue/findings.toml by tools/gen_catalogue.py — do not edit).

/// Every finding tcpdiag reports, in catalogue order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum FindingId {
    Retransmission,
    SpuriousRetransmission,
    Dsack,
    Reordering,
    LostSegment,
    DuplicateAck,
    ZeroWindow,
    ZeroWindowProbe,
    WindowFull,
    WindowScaleInferred,
    RwndLimited,
    RwndStatic,
    WscaleMissing,
    ZeroWindowStall,
    SndbufLimited,
    AppLimited,
    ReorderLimited,
    LossLimited,
    SlowStartOvershoot,
    BandwidthLimited,
    NotLimited,
}

/// Expert severity, lowest first (policy, not detection: set in the catalogue).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Chat,
    Note,
    Warn,
    Error,
}

/// One catalogue entry.
#[derive(Debug)]
pub struct Entry {
    pub id: &'static str,
    /// Wireshark-style filter name (tcpdiag.analysis.*, tcpdiag.verdict.*).
    pub field: &'static str,
    pub group: &'static str,
    pub severity: Severity,
    /// True for a per-flow finding (a verdict), false for a packet event.
    pub flow: bool,
    /// Message template: `{name}` is filled from the finding's values.
    pub message: &'static str,
    /// Remedy template (empty for packet events).
    pub remedy: &'static str,
}

pub static ENTRIES: [Entry; 21] = [
    Entry {
        id: "retransmission",
        field: "tcpdiag.analysis.retransmission",
        group: "sequence",
        severity: Severity::Note,
        flow: false,
        message: "Retransmission of frame {orig_frame} ({kind})",
        remedy: "",
    },
    Entry {
        id: "spurious_retransmission",
        field: "tcpdiag.analysis.spurious_retransmission",
        group: "sequence",
        severity: Severity::Warn,
        flow: false,
        message: "Spurious retransmission: the original of frame {orig_frame} had arrived ({evidence} in frame {evidence_frame})",
        remedy: "",
    },
    Entry {
        id: "dsack",
        field: "tcpdiag.analysis.dsack",
        group: "sequence",
        severity: Severity::Note,
        flow: false,
        message: "DSACK {left}-{right}: the receiver got these bytes twice",
        remedy: "",
    },
    Entry {
        id: "reordering",
        field: "tcpdiag.analysis.reordering",
        group: "sequence",
        severity: Severity::Note,
        flow: false,
        message: "Reordering: arrived {extent_packets} packets / {extent_bytes} / {extent} late (RACK window {rack})",
        remedy: "",
    },
    Entry {
        id: "lost_segment",
        field: "tcpdiag.analysis.lost_segment",
        group: "sequence",
        severity: Severity::Warn,
        flow: false,
        message: "Previous segment not captured: {gap} missing before this one",
        remedy: "",
    },
    Entry {
        id: "duplicate_ack",
        field: "tcpdiag.analysis.duplicate_ack",
        group: "sequence",
        severity: Severity::Note,
        flow: false,
        message: "Duplicate ACK #{count} of frame {orig_frame}",
        remedy: "",
    },
    Entry {
        id: "zero_window",
        field: "tcpdiag.analysis.zero_window",
        group: "sequence",
        severity: Severity::Warn,
        flow: false,
        message: "Zero window: the receiver's buffer is full (its application is not reading)",
        remedy: "",
    },
    Entry {
        id: "zero_window_probe",
        field: "tcpdiag.analysis.zero_window_probe",
        group: "sequence",
        severity: Severity::Note,
        flow: false,
        message: "Zero-window probe",
        remedy: "",
    },
    Entry {
        id: "window_full",
        field: "tcpdiag.analysis.window_full",
        group: "sequence",
        severity: Severity::Note,
        flow: false,
        message: "Window full: {in_flight} in flight = rwnd {rwnd}",
        remedy: "",
    },
    Entry {
        id: "window_scale_inferred",
        field: "tcpdiag.analysis.window_scale_inferred",
        group: "protocol",
        severity: Severity::Note,
        flow: false,
        message: "Window scale not captured; inferred shift ≥ {shift} from {in_flight} in flight above the raw window",
        remedy: "",
    },
    Entry {
        id: "rwnd_limited",
        field: "tcpdiag.verdict.rwnd_limited",
        group: "sequence",
        severity: Severity::Warn,
        flow: true,
        message: "Receive-window limited {share} of the time: rwnd {rwnd} ÷ RTT {rtt} = {ceiling} ceiling",
        remedy: "Let the receiver's autotuning size its buffer (do not set SO_RCVBUF), or raise its maximum (net.ipv4.tcp_rmem)",
    },
    Entry {
        id: "rwnd_static",
        field: "tcpdiag.verdict.rwnd_static",
        group: "sequence",
        severity: Severity::Warn,
        flow: true,
        message: "Receive window fixed at {rwnd} for the whole transfer → ceiling {ceiling} at {rtt} RTT",
        remedy: "Remove the static SO_RCVBUF so autotuning can grow the window to the path's BDP",
    },
    Entry {
        id: "wscale_missing",
        field: "tcpdiag.verdict.wscale_missing",
        group: "protocol",
        severity: Severity::Warn,
        flow: true,
        message: "Window scaling not in effect ({who}): window capped at 65,535 B → ceiling {ceiling} at {rtt} RTT",
        remedy: "Enable window scaling on both hosts (net.ipv4.tcp_window_scaling=1) and check middleboxes that strip the option",
    },
    Entry {
        id: "zero_window_stall",
        field: "tcpdiag.verdict.zero_window_stall",
        group: "sequence",
        severity: Severity::Warn,
        flow: true,
        message: "Receiver advertised a zero window {count} times, stalled {stall} ({share} of the transfer)",
        remedy: "The receiving application is not reading fast enough: profile it or read on a separate thread",
    },
    Entry {
        id: "sndbuf_limited",
        field: "tcpdiag.verdict.sndbuf_limited",
        group: "sequence",
        severity: Severity::Warn,
        flow: true,
        message: "Sender-buffer limited {share} of the time: flight flat at {flight} below rwnd {rwnd}, no loss → ceiling {ceiling}",
        remedy: "Let the sender's autotuning size its buffer (do not set SO_SNDBUF), or raise net.ipv4.tcp_wmem",
    },
    Entry {
        id: "app_limited",
        field: "tcpdiag.verdict.app_limited",
        group: "sequence",
        severity: Severity::Note,
        flow: true,
        message: "Application limited {share} of the time: the sender had nothing more to send while both windows had room for more than the {flight} it kept in flight",
        remedy: "The sending application does not keep the socket full: write larger chunks, pipeline requests, or check what it waits on",
    },
    Entry {
        id: "reorder_limited",
        field: "tcpdiag.verdict.reorder_limited",
        group: "sequence",
        severity: Severity::Warn,
        flow: true,
        message: "Reordering mistaken for loss: {spurious} of {retrans} retransmissions spurious (DSACK/Eifel), cwnd cut {cuts} times; reordering up to {extent} vs RACK window {rack}",
        remedy: "Find what reorders (multipath, NIC queues, LAG hashing); on the sender use RACK-TLP and DSACK-based undo",
    },
    Entry {
        id: "loss_limited",
        field: "tcpdiag.verdict.loss_limited",
        group: "sequence",
        severity: Severity::Warn,
        flow: true,
        message: "Loss limited: {loss} of segments retransmitted in {recoveries} recoveries; Mathis bound {mathis} at {rtt} RTT",
        remedy: "Find where packets are dropped (interface errors, policers, congested links); loss of {loss} caps TCP well below the link rate",
    },
    Entry {
        id: "slow_start_overshoot",
        field: "tcpdiag.verdict.slow_start_overshoot",
        group: "sequence",
        severity: Severity::Warn,
        flow: true,
        message: "Slow-start overshoot: {lost} segments lost in one round at the end of slow start (frame {frame})",
        remedy: "Use HyStart++ or pacing (e.g. fq qdisc), or give the bottleneck a queue of at least one BDP",
    },
    Entry {
        id: "bandwidth_limited",
        field: "tcpdiag.verdict.bandwidth_limited",
        group: "sequence",
        severity: Severity::Note,
        flow: true,
        message: "Bandwidth limited: {throughput} once past slow start, {busy} of the bottleneck's {capacity}; {flight} in flight, RTT {min_rtt} at best, {rtt} on average",
        remedy: "The path is full: more throughput needs more bandwidth; where the RTT grew well above its minimum, the standing queue adds latency (consider BBR or AQM)",
    },
    Entry {
        id: "not_limited",
        field: "tcpdiag.verdict.not_limited",
        group: "comment",
        severity: Severity::Chat,
        flow: true,
        message: "No limit found: {reason} ({data} of new data)",
        remedy: "Nothing to fix in TCP for this flow",
    },
];

impl FindingId {
    pub const ALL: [FindingId; 21] = [
        FindingId::Retransmission,
        FindingId::SpuriousRetransmission,
        FindingId::Dsack,
        FindingId::Reordering,
        FindingId::LostSegment,
        FindingId::DuplicateAck,
        FindingId::ZeroWindow,
        FindingId::ZeroWindowProbe,
        FindingId::WindowFull,
        FindingId::WindowScaleInferred,
        FindingId::RwndLimited,
        FindingId::RwndStatic,
        FindingId::WscaleMissing,
        FindingId::ZeroWindowStall,
        FindingId::SndbufLimited,
        FindingId::AppLimited,
        FindingId::ReorderLimited,
        FindingId::LossLimited,
        FindingId::SlowStartOvershoot,
        FindingId::BandwidthLimited,
        FindingId::NotLimited,
    ];

    pub fn entry(self) -> &'static Entry {
        &ENTRIES[self as usize]
    }

    /// The stable snake_case id (JSON, CSV, Python).
    pub fn name(self) -> &'static str {
        self.entry().id
    }

    pub fn parse(id: &str) -> Option<FindingId> {
        FindingId::ALL.iter().copied().find(|f| f.name() == id)
    }
}
