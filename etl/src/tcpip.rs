//! Microsoft-Windows-TCPIP events (e.g. TcpDataTransferSend 1332 with Cwnd, SndWnd,
//! SRtt; TcpConnectionSummary 1477) as a table, decoded with the schemas the file embeds.
//!
//! Only events whose schema is known are kept (relogged files embed one per event type);
//! property names are the manifest's, values keep their type: integers, text or bytes.

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
}
