//! Capture writers: pcapng (SHB, IDB, EPB with options; SPB and PB for tests) and classic
//! pcap (µs or ns, either byte order). Used by tests, by format converters and by
//! benchmarks. Wrap the output in a `BufWriter`: each record is one `write_all`.

use std::io::{self, Write};

use super::byte_order::ByteOrder;
use super::interface::{InterfaceInfo, TsResolution};
use super::pcap::{MAGIC_MICROS, MAGIC_NANOS};
use super::pcapng::interface_description::{
    IF_DESCRIPTION, IF_FCSLEN, IF_NAME, IF_TSOFFSET, IF_TSRESOL,
};
use super::pcapng::options::{
    EPB_DROPCOUNT, EPB_FLAGS, EPB_PACKETID, EPB_QUEUE, EPB_VERDICT, OPT_COMMENT, OPT_ENDOFOPT,
};
use super::pcapng::{
    enhanced_packet, interface_description, packet, section_header, simple_packet,
};
use super::FrameOptions;

const NS_PER_S: i64 = 1_000_000_000;

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what)
}

/// Writes a pcapng file: one section to start with, more with `new_section`.
pub struct PcapngWriter<W: Write> {
    w: W,
    order: ByteOrder,
    /// Interfaces of the current section, indexed as packet blocks refer to them.
    section_ifaces: Vec<InterfaceInfo>,
    /// The block being built.
    buf: Vec<u8>,
}

impl<W: Write> PcapngWriter<W> {
    /// Starts a little-endian file (writes its Section Header Block).
    pub fn new(w: W) -> io::Result<Self> {
        PcapngWriter::with_byte_order(w, ByteOrder::Little)
    }

    /// Starts a file whose first section has byte order `order`.
    pub fn with_byte_order(w: W, order: ByteOrder) -> io::Result<Self> {
        let mut pw = PcapngWriter {
            w,
            order,
            section_ifaces: Vec::new(),
            buf: Vec::new(),
        };
        pw.new_section(order)?;
        Ok(pw)
    }

    /// Starts a new section (SHB with unknown section length): interface indices restart.
    pub fn new_section(&mut self, order: ByteOrder) -> io::Result<()> {
        self.order = order;
        self.section_ifaces.clear();
        self.begin(section_header::BLOCK_TYPE);
        self.put32(section_header::BYTE_ORDER_MAGIC);
        self.put16(1);
        self.put16(0);
        self.put64(u64::MAX);
        self.finish()
    }

    /// Writes an Interface Description Block; returns its index within the section, which
    /// `write_packet` takes. `section` is ignored.
    pub fn add_interface(&mut self, iface: &InterfaceInfo) -> io::Result<u32> {
        self.add_interface_with(iface, &[])
    }

    /// `add_interface` plus raw options (code, value) written after the standard ones, in
    /// order: e.g. `if_MACaddr` (6), `if_IPv4addr` (4), `if_IPv6addr` (5).
    pub fn add_interface_with(&mut self, iface: &InterfaceInfo, extra: &[(u16, &[u8])]) -> io::Result<u32> {
        let linktype = u16::try_from(iface.linktype).map_err(|_| {
            invalid(format!(
                "link type {} does not fit pcapng's 16 bits",
                iface.linktype
            ))
        })?;
        self.begin(interface_description::BLOCK_TYPE);
        self.put16(linktype);
        self.put16(0);
        self.put32(iface.snaplen);
        let mut any = false;
        if let Some(name) = &iface.name {
            self.option(IF_NAME, name.as_bytes())?;
            any = true;
        }
        if let Some(desc) = &iface.description {
            self.option(IF_DESCRIPTION, desc.as_bytes())?;
            any = true;
        }
        if iface.ts_resolution != TsResolution::MICROS {
            self.option(IF_TSRESOL, &[iface.ts_resolution.to_tsresol()])?;
            any = true;
        }
        if let Some(fcs) = iface.fcs_len {
            self.option(IF_FCSLEN, &[fcs])?;
            any = true;
        }
        if iface.ts_offset_s != 0 {
            let v = self.order.put_u64(iface.ts_offset_s as u64);
            self.option(IF_TSOFFSET, &v)?;
            any = true;
        }
        for (code, value) in extra {
            self.option(*code, value)?;
            any = true;
        }
        if any {
            self.option(OPT_ENDOFOPT, &[])?;
        }
        self.finish()?;
        self.section_ifaces.push(iface.clone());
        Ok(self.section_ifaces.len() as u32 - 1)
    }

    /// Writes an Enhanced Packet Block. `ts_ns` is nanoseconds since the epoch; it is
    /// stored in the interface's resolution after removing its `if_tsoffset` (times before
    /// the offset are written as 0).
    pub fn write_packet(
        &mut self,
        iface: u32,
        ts_ns: i64,
        data: &[u8],
        origlen: u32,
        opts: Option<&FrameOptions>,
    ) -> io::Result<()> {
        self.write_packet_with(iface, ts_ns, data, origlen, opts, &[])
    }

    /// `write_packet` plus raw options (code, value) written after `opts`, in order (e.g.
    /// option 8, process and thread id, which etl2pcapng writes).
    pub fn write_packet_with(
        &mut self,
        iface: u32,
        ts_ns: i64,
        data: &[u8],
        origlen: u32,
        opts: Option<&FrameOptions>,
        extra: &[(u16, &[u8])],
    ) -> io::Result<()> {
        let ticks = self.ticks(iface, ts_ns)?;
        let caplen = u32::try_from(data.len()).map_err(|_| invalid("packet over 4 GiB".into()))?;
        self.begin(enhanced_packet::BLOCK_TYPE);
        self.put32(iface);
        self.put32((ticks >> 32) as u32);
        self.put32(ticks as u32);
        self.put32(caplen);
        self.put32(origlen);
        self.buf.extend_from_slice(data);
        self.pad();
        let start = self.buf.len();
        if let Some(o) = opts {
            self.frame_options(o)?;
        }
        if !extra.is_empty() {
            if self.buf.len() > start {
                self.buf.truncate(self.buf.len() - 4); // reopen the list: drop opt_endofopt
            }
            for (code, value) in extra {
                self.option(*code, value)?;
            }
            self.option(OPT_ENDOFOPT, &[])?;
        }
        self.finish()
    }

    /// Writes a Simple Packet Block (interface 0 of the section, no timestamp).
    pub fn write_simple_packet(&mut self, data: &[u8], origlen: u32) -> io::Result<()> {
        self.begin(simple_packet::BLOCK_TYPE);
        self.put32(origlen);
        self.buf.extend_from_slice(data);
        self.finish()
    }

    /// Writes an obsolete Packet Block, for readers' tests.
    pub fn write_obsolete_packet(
        &mut self,
        iface: u16,
        ts_ns: i64,
        data: &[u8],
        origlen: u32,
        drops: Option<u16>,
    ) -> io::Result<()> {
        let ticks = self.ticks(iface as u32, ts_ns)?;
        self.begin(packet::BLOCK_TYPE);
        self.put16(iface);
        self.put16(drops.unwrap_or(0xffff));
        self.put32((ticks >> 32) as u32);
        self.put32(ticks as u32);
        self.put32(data.len() as u32);
        self.put32(origlen);
        self.buf.extend_from_slice(data);
        self.finish()
    }

    /// Writes any block with the given body (padded to 32 bits), e.g. a custom block.
    pub fn write_block(&mut self, block_type: u32, body: &[u8]) -> io::Result<()> {
        self.begin(block_type);
        self.buf.extend_from_slice(body);
        self.finish()
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.w
    }

    pub fn into_inner(self) -> W {
        self.w
    }

    fn ticks(&self, iface: u32, ts_ns: i64) -> io::Result<u64> {
        let Some(info) = self.section_ifaces.get(iface as usize) else {
            return Err(invalid(format!(
                "interface {iface} was not added to this section"
            )));
        };
        let since_offset = ts_ns.saturating_sub(info.ts_offset_s.saturating_mul(NS_PER_S));
        Ok(info.ts_resolution.ns_to_ticks(since_offset.max(0) as u64))
    }

    fn frame_options(&mut self, o: &FrameOptions) -> io::Result<()> {
        let start = self.buf.len();
        for c in &o.comments {
            self.option(OPT_COMMENT, c.as_bytes())?;
        }
        if let Some(f) = o.flags {
            self.option(EPB_FLAGS, &self.order.put_u32(f))?;
        }
        if let Some(d) = o.drop_count {
            self.option(EPB_DROPCOUNT, &self.order.put_u64(d))?;
        }
        if let Some(id) = o.packet_id {
            self.option(EPB_PACKETID, &self.order.put_u64(id))?;
        }
        if let Some(q) = o.queue {
            self.option(EPB_QUEUE, &self.order.put_u32(q))?;
        }
        for v in &o.verdicts {
            self.option(EPB_VERDICT, v)?;
        }
        if self.buf.len() > start {
            self.option(OPT_ENDOFOPT, &[])?;
        }
        Ok(())
    }

    fn begin(&mut self, block_type: u32) {
        self.buf.clear();
        self.put32(block_type);
        self.put32(0); // total length, patched by `finish`
    }

    fn finish(&mut self) -> io::Result<()> {
        self.pad();
        let len = self.buf.len() as u32 + 4;
        let len_bytes = self.order.put_u32(len);
        self.buf[4..8].copy_from_slice(&len_bytes);
        self.buf.extend_from_slice(&len_bytes);
        self.w.write_all(&self.buf)
    }

    fn option(&mut self, code: u16, value: &[u8]) -> io::Result<()> {
        let len = u16::try_from(value.len())
            .map_err(|_| invalid(format!("option {code} value of {} bytes", value.len())))?;
        self.put16(code);
        self.put16(len);
        self.buf.extend_from_slice(value);
        self.pad();
        Ok(())
    }

    fn pad(&mut self) {
        let padded = self.buf.len().next_multiple_of(4);
        self.buf.resize(padded, 0);
    }

    fn put16(&mut self, v: u16) {
        self.buf.extend_from_slice(&self.order.put_u16(v));
    }

    fn put32(&mut self, v: u32) {
        self.buf.extend_from_slice(&self.order.put_u32(v));
    }

    fn put64(&mut self, v: u64) {
        self.buf.extend_from_slice(&self.order.put_u64(v));
    }
}

/// Writes a classic pcap file (format 2.4, one link type).
pub struct PcapWriter<W: Write> {
    w: W,
    order: ByteOrder,
    nanos: bool,
}

impl<W: Write> PcapWriter<W> {
    /// Little-endian file; `nanos` selects the nanosecond magic.
    pub fn new(w: W, linktype: u32, snaplen: u32, nanos: bool) -> io::Result<Self> {
        PcapWriter::with_byte_order(w, linktype, snaplen, nanos, ByteOrder::Little)
    }

    pub fn with_byte_order(
        mut w: W,
        linktype: u32,
        snaplen: u32,
        nanos: bool,
        order: ByteOrder,
    ) -> io::Result<Self> {
        let magic = if nanos { MAGIC_NANOS } else { MAGIC_MICROS };
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&order.put_u32(magic));
        h.extend_from_slice(&order.put_u16(2));
        h.extend_from_slice(&order.put_u16(4));
        h.extend_from_slice(&[0; 8]); // thiszone, sigfigs
        h.extend_from_slice(&order.put_u32(snaplen));
        h.extend_from_slice(&order.put_u32(linktype));
        w.write_all(&h)?;
        Ok(PcapWriter { w, order, nanos })
    }

    /// Writes one record. Times before the epoch or after 2106 are clamped (u32 seconds).
    pub fn write_packet(&mut self, ts_ns: i64, data: &[u8], origlen: u32) -> io::Result<()> {
        let ts = ts_ns.max(0);
        let secs = u32::try_from(ts / NS_PER_S).unwrap_or(u32::MAX);
        let frac = (ts % NS_PER_S) as u32;
        let frac = if self.nanos { frac } else { frac / 1_000 };
        let caplen = u32::try_from(data.len()).map_err(|_| invalid("packet over 4 GiB".into()))?;
        let mut h = [0u8; 16];
        for (i, v) in [secs, frac, caplen, origlen].into_iter().enumerate() {
            h[i * 4..i * 4 + 4].copy_from_slice(&self.order.put_u32(v));
        }
        self.w.write_all(&h)?;
        self.w.write_all(data)
    }

    pub fn get_mut(&mut self) -> &mut W {
        &mut self.w
    }

    pub fn into_inner(self) -> W {
        self.w
    }
}
