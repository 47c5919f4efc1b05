//! A captured frame as every capture format presents it after reading.

/// Options an Enhanced Packet Block (or an ETL packet event) may carry; kept so that
/// comments, direction and drop verdicts survive into reports and conversions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameOptions {
    /// `opt_comment` values, in file order.
    pub comments: Vec<String>,
    /// `epb_flags` (direction in bits 0-1, reception type, FCS length, link-layer errors).
    pub flags: Option<u32>,
    /// `epb_dropcount`.
    pub drop_count: Option<u64>,
    /// `epb_packetid`.
    pub packet_id: Option<u64>,
    /// `epb_queue`.
    pub queue: Option<u32>,
    /// `epb_verdict` values, raw (type byte first).
    pub verdicts: Vec<Vec<u8>>,
}

/// One packet record. `data` borrows the reader's buffer until the next call.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// 1-based, counting every packet record in file order: Wireshark's `frame.number`.
    pub number: u64,
    /// Nanoseconds since the Unix epoch (interface resolution and offset applied).
    pub ts_ns: i64,
    /// Bytes captured (`data.len()`).
    pub caplen: u32,
    /// Bytes on the wire before snaplen truncation.
    pub origlen: u32,
    /// Index of the interface across the whole file (pcapng sections concatenated), 0 for pcap.
    pub interface: u32,
    /// The LINKTYPE_ value (tcpdump.org link-layer header types) of that interface.
    pub linktype: u32,
    pub data: &'a [u8],
    /// Present only when the record carried options.
    pub options: Option<&'a FrameOptions>,
}
