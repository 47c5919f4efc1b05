//! Microsoft-Windows-TCPIP events (e.g. TcpDataTransferSend 1332 with Cwnd, SndWnd,
//! SRtt; TcpConnectionSummary 1477) as a table, decoded with the schemas the file embeds.
//!
//! Only events whose schema is known are kept (relogged files embed one per event type);
//! property names are the manifest's, values keep their type: integers, text or bytes.
//!
//! Most events name their connection only by `Tcb`, the kernel address of its control
//! block; lifecycle events (1002 TcpRequestConnect, 1017 TcpAcceptListenerComplete,
//! 1033 TcpConnectTcbComplete, 1300 TcpConnectionRundown, 1038 TcpCloseTcbRequest …)
//! also carry `LocalAddress` and `RemoteAddress` (SOCKADDR images). [`TcpipTable::connections`]
//! turns those into Tcb → 4-tuple intervals, since a freed Tcb address is reused.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use crate::container::EventRecord;
use crate::schema::{in_type, Fields};

/// Rows kept at most; later events are counted in `dropped_rows`.
pub const MAX_ROWS: usize = 1 << 20;

/// One property value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    UInt(u64),
    Text(String),
    Bytes(Vec<u8>),
}

/// One TCPIP event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpipEvent {
    pub ts_ns: i64,
    pub event_id: u16,
    /// The schema's task name (e.g. `TcpDataTransferSend`), when the file names it.
    pub name: String,
    pub version: u8,
    pub opcode: u8,
    pub process_id: u32,
    pub thread_id: u32,
    pub fields: Vec<(String, Value)>,
}

impl TcpipEvent {
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    pub fn uint(&self, name: &str) -> Option<u64> {
        match self.get(name)? {
            Value::UInt(v) => Some(*v),
            _ => None,
        }
    }

    /// A SOCKADDR property (`LocalAddress`, `RemoteAddress`) as an address and port.
    pub fn socket_addr(&self, name: &str) -> Option<SocketAddr> {
        match self.get(name)? {
            Value::Bytes(b) => sockaddr(b),
            _ => None,
        }
    }
}

/// Parses a `SOCKADDR_IN` (family 2) or `SOCKADDR_IN6` (family 23) image: family in
/// host order, port in network order, then the address (IPv6 after 4 bytes of flow info).
pub fn sockaddr(b: &[u8]) -> Option<SocketAddr> {
    const AF_INET: u16 = 2;
    const AF_INET6: u16 = 23;
    let family = u16::from_le_bytes([*b.first()?, *b.get(1)?]);
    let port = u16::from_be_bytes([*b.get(2)?, *b.get(3)?]);
    let ip = match family {
        AF_INET => IpAddr::V4(Ipv4Addr::from(<[u8; 4]>::try_from(b.get(4..8)?).ok()?)),
        AF_INET6 => IpAddr::V6(Ipv6Addr::from(<[u8; 16]>::try_from(b.get(8..24)?).ok()?)),
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

/// Events after which a Tcb no longer names its connection (closed, aborted, failed,
/// summarised): later events with that Tcb belong to a new connection.
pub const CLOSING_EVENTS: [u16; 7] = [1034, 1038, 1039, 1044, 1046, 1183, 1477];

/// One connection as the TCPIP events name it: a Tcb and its 4-tuple, valid from
/// `from_ns` to `until_ns` (inclusive; `i64::MIN` / `i64::MAX` when open-ended).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connection {
    pub tcb: u64,
    pub local: SocketAddr,
    pub remote: SocketAddr,
    pub from_ns: i64,
    pub until_ns: i64,
}

/// Every TCPIP event read so far, in timestamp order.
#[derive(Debug, Clone, Default)]
pub struct TcpipTable {
    pub rows: Vec<TcpipEvent>,
    pub dropped_rows: u64,
}

impl TcpipTable {
    pub(crate) fn add(&mut self, ev: &EventRecord<'_>, f: &Fields<'_, '_>, ts_ns: i64) {
        if self.rows.len() >= MAX_ROWS {
            self.dropped_rows += 1;
            return;
        }
        let fields = f
            .iter()
            .zip(&f.schema.properties)
            .map(|((name, raw), prop)| {
                let v = match prop.in_type {
                    in_type::UNICODESTRING => Value::Text(f.string(name).unwrap_or_default()),
                    in_type::ANSISTRING => Value::Text(String::from_utf8_lossy(raw).trim_end_matches('\0').to_string()),
                    in_type::BINARY | in_type::GUID | in_type::SID => Value::Bytes(raw.to_vec()),
                    _ => match f.uint(name) {
                        Some(v) => Value::UInt(v),
                        None => Value::Bytes(raw.to_vec()),
                    },
                };
                (name.to_string(), v)
            })
            .collect();
        let d = ev.header.descriptor;
        self.rows.push(TcpipEvent {
            ts_ns,
            event_id: d.id,
            name: f.schema.task_name.clone(),
            version: d.version,
            opcode: d.opcode,
            process_id: ev.header.process_id,
            thread_id: ev.header.thread_id,
            fields,
        });
    }

    /// Rows of one event id (e.g. 1332 TcpDataTransferSend).
    pub fn of_event(&self, id: u16) -> impl Iterator<Item = &TcpipEvent> {
        self.rows.iter().filter(move |r| r.event_id == id)
    }

    /// Tcb → 4-tuple intervals. An interval opens at an event carrying both addresses
    /// (the first one of a Tcb also covers earlier events: connections older than the
    /// trace are named by the rundown at its end) and closes at a closing event or when
    /// the Tcb shows another 4-tuple.
    pub fn connections(&self) -> Vec<Connection> {
        let mut out: Vec<Connection> = Vec::new();
        // Per Tcb: index of its open interval in `out`, and whether it was ever seen closing.
        let mut open: HashMap<u64, Option<usize>> = HashMap::new();
        let mut closed_at: HashMap<u64, i64> = HashMap::new();
        for r in &self.rows {
            let Some(tcb) = r.uint("Tcb") else { continue };
            let tuple = r.socket_addr("LocalAddress").zip(r.socket_addr("RemoteAddress"));
            let cur = open.get(&tcb).copied().flatten();
            if let Some((local, remote)) = tuple {
                let same = cur.is_some_and(|i| out[i].local == local && out[i].remote == remote);
                if !same {
                    if let Some(i) = cur {
                        out[i].until_ns = r.ts_ns.saturating_sub(1);
                    }
                    let first = !open.contains_key(&tcb) && !closed_at.contains_key(&tcb);
                    let from_ns = if first { i64::MIN } else { r.ts_ns };
                    out.push(Connection { tcb, local, remote, from_ns, until_ns: i64::MAX });
                    open.insert(tcb, Some(out.len() - 1));
                }
            }
            if CLOSING_EVENTS.contains(&r.event_id) {
                if let Some(i) = open.get(&tcb).copied().flatten() {
                    out[i].until_ns = r.ts_ns;
                }
                open.insert(tcb, None);
                closed_at.insert(tcb, r.ts_ns);
            }
        }
        out
    }

    /// For each row, the index in `conns` of the connection it belongs to.
    pub fn resolve(&self, conns: &[Connection]) -> Vec<Option<usize>> {
        let mut by_tcb: HashMap<u64, Vec<usize>> = HashMap::new();
        for (i, c) in conns.iter().enumerate() {
            by_tcb.entry(c.tcb).or_default().push(i);
        }
        self.rows
            .iter()
            .map(|r| {
                let cands = by_tcb.get(&r.uint("Tcb")?)?;
                cands.iter().copied().find(|&i| conns[i].from_ns <= r.ts_ns && r.ts_ns <= conns[i].until_ns)
            })
            .collect()
    }
}
