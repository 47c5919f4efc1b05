//! Counters a reader keeps while it walks a trace, for reports and tests.

/// What was read so far, and what the file says was lost.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EtlStats {
    /// Buffers in the file (found by the index walk at open).
    pub buffers: u64,
    /// Of which XPRESS (Plain LZ77) compressed.
    pub compressed_buffers: u64,
    /// Buffers decoded so far.
    pub buffers_read: u64,
    /// Bytes of the file those buffers take (headers included), for progress.
    pub file_bytes_read: u64,
    /// Bytes of event data after decompression, so far.
    pub decompressed_bytes: u64,
    /// Event records of every kind decoded so far.
    pub events: u64,
    /// Packet events (fragments, PktMon packet logs and drops) so far.
    pub packet_events: u64,
    /// Frames returned so far.
    pub frames: u64,
    /// Packet events hidden by the observation-point filter.
    pub frames_filtered: u64,
    /// PktMon drop events (170) returned as frames.
    pub drops: u64,
    /// `EventsLost` from the log file header: events the session could not record.
    pub events_lost: u64,
    /// `BuffersLost` from the log file header.
    pub buffers_lost: u64,
    /// Buffers flagged `ETW_BUFFER_FLAG_EVENTS_LOST` or `_BUFFER_LOST`.
    pub buffers_flagged_lost: u64,
    /// Records whose header could not be parsed (rest of that buffer skipped).
    pub corrupt_records: u64,
    /// Buffers that could not be decompressed or read (skipped).
    pub corrupt_buffers: u64,
    /// Events whose raw timestamp went backwards after the per-CPU merge.
    pub out_of_order: u64,
    /// Embedded event schemas (`TRACE_EVENT_INFO`) learned from the file.
    pub schemas: u64,
    /// PktMon packets typed Wi-Fi whose bytes are Ethernet frames (given LINKTYPE 1).
    pub wifi_typed_ethernet: u64,
    /// Packet events whose payload did not match their schema.
    pub malformed_packet_events: u64,
}
