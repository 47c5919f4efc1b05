//! Event schemas: `TRACE_EVENT_INFO` (what TDH returns) embedded in relogged files, and
//! the subset of TDH that finds each property's bytes in an event payload.
//!
//! A relogged ETL file carries, as classic events of the EventMetadata class
//! (`{bbccf6c1-6cd1-48c4-80ff-839482e37671}`), one `TRACE_EVENT_INFO` per event type
//! (class type 32) and one `EVENT_MAP_INFO` per value map (class type 33). Files written
//! directly by a session have none; for those, built-in schemas ([`crate::builtin`]) give
//! the layouts of the packet events.

use std::collections::HashMap;

use crate::bytes::{guid_at, u16_at, u32_at, u64_at, u8_at, utf16z_at, Guid};

/// Class GUID of the relogger's schema events.
pub const EVENT_METADATA: Guid =
    Guid::from_fields(0xbbccf6c1, 0x6cd1, 0x48c4, [0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71]);
pub const METADATA_TYPE_EVENT_INFO: u8 = 32;
pub const METADATA_TYPE_MAP_INFO: u8 = 33;

/// `TDH_INTYPE_*` values this decoder sizes.
pub mod in_type {
    pub const UNICODESTRING: u16 = 1;
    pub const ANSISTRING: u16 = 2;
    pub const INT8: u16 = 3;
    pub const UINT8: u16 = 4;
    pub const INT16: u16 = 5;
    pub const UINT16: u16 = 6;
    pub const INT32: u16 = 7;
    pub const UINT32: u16 = 8;
    pub const INT64: u16 = 9;
    pub const UINT64: u16 = 10;
    pub const FLOAT: u16 = 11;
    pub const DOUBLE: u16 = 12;
    pub const BOOLEAN: u16 = 13;
    pub const BINARY: u16 = 14;
    pub const GUID: u16 = 15;
    pub const POINTER: u16 = 16;
    pub const FILETIME: u16 = 17;
    pub const SYSTEMTIME: u16 = 18;
    pub const SID: u16 = 19;
    pub const HEXINT32: u16 = 20;
    pub const HEXINT64: u16 = 21;
    pub const COUNTEDSTRING: u16 = 22;
    pub const COUNTEDANSISTRING: u16 = 23;
    pub const REVERSEDCOUNTEDSTRING: u16 = 24;
    pub const REVERSEDCOUNTEDANSISTRING: u16 = 25;
    pub const NONNULLTERMINATEDSTRING: u16 = 26;
    pub const NONNULLTERMINATEDANSISTRING: u16 = 27;
    pub const UNICODECHAR: u16 = 28;
    pub const ANSICHAR: u16 = 29;
    pub const SIZET: u16 = 30;
    pub const HEXDUMP: u16 = 31;
    pub const WBEMSID: u16 = 32;
}

/// `PROPERTY_FLAGS` bits.
mod prop_flag {
    pub const STRUCT: u32 = 0x1;
    pub const PARAM_LENGTH: u32 = 0x2;
    pub const PARAM_COUNT: u32 = 0x4;
}

/// How many bytes or elements: a constant, or the value of an earlier property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Amount {
    Fixed(u16),
    FromProperty(u16),
}

/// One `EVENT_PROPERTY_INFO`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    pub name: String,
    pub in_type: u16,
    pub out_type: u16,
    pub count: Amount,
    /// Bytes for binary, characters for strings; `Fixed(0)` = terminated/implicit.
    pub length: Amount,
    /// `Some((first member index, member count))` for a struct property.
    pub members: Option<(u16, u16)>,
    pub map_name: Option<String>,
}

/// One event type's layout, keyed by (provider, event id, version).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema {
    pub provider: Guid,
    pub id: u16,
    pub version: u8,
    pub provider_name: String,
    pub task_name: String,
    pub properties: Vec<Property>,
    pub top_level: usize,
}

mod tei {
    pub const PROVIDER_GUID: usize = 0;
    pub const DESCRIPTOR_ID: usize = 32;
    pub const DESCRIPTOR_VERSION: usize = 34;
    pub const PROVIDER_NAME_OFFSET: usize = 52;
    pub const TASK_NAME_OFFSET: usize = 68;
    pub const PROPERTY_COUNT: usize = 100;
    pub const TOP_LEVEL_COUNT: usize = 104;
    pub const PROPERTIES: usize = 112;
    pub const PROPERTY_LEN: usize = 24;
}

fn name_at(b: &[u8], off: u32) -> String {
    if off == 0 {
        return String::new();
    }
    utf16z_at(b, off as usize).map(|(s, _)| s.trim_end().to_string()).unwrap_or_default()
}

impl Schema {
    /// Parses a `TRACE_EVENT_INFO` image (offsets inside are relative to its start).
    pub fn from_trace_event_info(t: &[u8]) -> Option<Schema> {
        let count = u32_at(t, tei::PROPERTY_COUNT)? as usize;
        let top = u32_at(t, tei::TOP_LEVEL_COUNT)? as usize;
        if top > count || count > 4096 {
            return None;
        }
        let mut properties = Vec::with_capacity(count);
        for i in 0..count {
            let at = tei::PROPERTIES + i * tei::PROPERTY_LEN;
            let flags = u32_at(t, at)?;
            let (a, b) = (u16_at(t, at + 8)?, u16_at(t, at + 10)?);
            let map_off = u32_at(t, at + 12)?;
            let (count_v, length_v) = (u16_at(t, at + 16)?, u16_at(t, at + 18)?);
            let is_struct = flags & prop_flag::STRUCT != 0;
            properties.push(Property {
                name: name_at(t, u32_at(t, at + 4)?),
                in_type: if is_struct { 0 } else { a },
                out_type: if is_struct { 0 } else { b },
                count: if flags & prop_flag::PARAM_COUNT != 0 { Amount::FromProperty(count_v) } else { Amount::Fixed(count_v) },
                length: if flags & prop_flag::PARAM_LENGTH != 0 { Amount::FromProperty(length_v) } else { Amount::Fixed(length_v) },
                members: is_struct.then_some((a, b)),
                map_name: (!is_struct && map_off != 0).then(|| name_at(t, map_off)),
            });
        }
        Some(Schema {
            provider: guid_at(t, tei::PROVIDER_GUID)?,
            id: u16_at(t, tei::DESCRIPTOR_ID)?,
            version: u8_at(t, tei::DESCRIPTOR_VERSION)?,
            provider_name: name_at(t, u32_at(t, tei::PROVIDER_NAME_OFFSET)?),
            task_name: name_at(t, u32_at(t, tei::TASK_NAME_OFFSET)?),
            properties,
            top_level: top,
        })
    }

    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.properties[..self.top_level].iter().position(|p| p.name == name)
    }

    /// Finds every top-level property's bytes in `payload`. Fails when the payload is
    /// shorter than the schema demands; bytes left over at the end are allowed.
    pub fn layout<'a>(&self, payload: &'a [u8], ptr_size: usize) -> Result<Fields<'a, '_>, &'static str> {
        let mut values: Vec<Option<u64>> = vec![None; self.properties.len()];
        let mut spans = Vec::with_capacity(self.top_level);
        let mut at = 0usize;
        for i in 0..self.top_level {
            let start = at;
            at = self.skip(i, payload, at, ptr_size, &mut values, 0)?;
            spans.push((start, at));
        }
        Ok(Fields { schema: self, payload, spans })
    }

    fn amount(&self, a: Amount, values: &[Option<u64>]) -> Result<u64, &'static str> {
        match a {
            Amount::Fixed(n) => Ok(n as u64),
            Amount::FromProperty(i) => values.get(i as usize).copied().flatten().ok_or("count or length refers to no integer property"),
        }
    }

    /// Returns the offset after property `i` (all its array elements) starting at `at`.
    fn skip(&self, i: usize, p: &[u8], mut at: usize, ptr: usize, values: &mut [Option<u64>], depth: u8) -> Result<usize, &'static str> {
        let prop = self.properties.get(i).ok_or("property index out of range")?;
        if depth > 4 {
            return Err("structs nested too deeply");
        }
        let count = self.amount(prop.count, values)?.max(1);
        let count = if matches!(prop.count, Amount::Fixed(0)) { 1 } else { count };
        if count > p.len() as u64 + 1 {
            return Err("array count larger than the payload");
        }
        for _ in 0..count {
            if let Some((first, n)) = prop.members {
                for m in first as usize..first as usize + n as usize {
                    at = self.skip(m, p, at, ptr, values, depth + 1)?;
                }
                continue;
            }
            let len = self.amount(prop.length, values)? as usize;
            let size = element_size(prop.in_type, len, &p[at.min(p.len())..], ptr).ok_or("property runs past the payload")?;
            let end = at.checked_add(size).filter(|&e| e <= p.len()).ok_or("property runs past the payload")?;
            values[i] = int_value(&p[at..end]);
            at = end;
        }
        Ok(at)
    }
}

/// Little-endian integer of 1, 2, 4 or 8 bytes.
fn int_value(b: &[u8]) -> Option<u64> {
    match b.len() {
        1 => Some(b[0] as u64),
        2 => u16_at(b, 0).map(u64::from),
        4 => u32_at(b, 0).map(u64::from),
        8 => u64_at(b, 0),
        _ => None,
    }
}

/// Bytes one element of `in_type` occupies at the start of `rest`.
fn element_size(in_type: u16, len: usize, rest: &[u8], ptr: usize) -> Option<usize> {
    use in_type::*;
    let nul_terminated = |unit: usize| {
        (0..rest.len() / unit).find(|&k| rest[k * unit..(k + 1) * unit].iter().all(|&b| b == 0)).map(|k| (k + 1) * unit)
    };
    Some(match in_type {
        UNICODESTRING if len > 0 => len * 2,
        UNICODESTRING => nul_terminated(2).unwrap_or(rest.len() & !1),
        ANSISTRING if len > 0 => len,
        ANSISTRING => nul_terminated(1).unwrap_or(rest.len()),
        INT8 | UINT8 | ANSICHAR => 1,
        INT16 | UINT16 | UNICODECHAR => 2,
        INT32 | UINT32 | FLOAT | BOOLEAN | HEXINT32 => 4,
        INT64 | UINT64 | DOUBLE | FILETIME | HEXINT64 => 8,
        BINARY => len,
        GUID | SYSTEMTIME => 16,
        POINTER | SIZET => ptr,
        SID => 8 + 4 * *rest.get(1)? as usize,
        WBEMSID => 2 * ptr + 8 + 4 * *rest.get(2 * ptr + 1)? as usize,
        COUNTEDSTRING | COUNTEDANSISTRING => 2 + u16_at(rest, 0)? as usize,
        REVERSEDCOUNTEDSTRING | REVERSEDCOUNTEDANSISTRING => 2 + u16::from_be_bytes([*rest.first()?, *rest.get(1)?]) as usize,
        NONNULLTERMINATEDSTRING | NONNULLTERMINATEDANSISTRING => rest.len(),
        HEXDUMP => 4 + u32_at(rest, 0)? as usize,
        _ => return None,
    })
}

/// The top-level properties of one event, found by [`Schema::layout`].
#[derive(Debug, Clone)]
pub struct Fields<'a, 's> {
    pub schema: &'s Schema,
    payload: &'a [u8],
    spans: Vec<(usize, usize)>,
}

impl<'a> Fields<'a, '_> {
    /// Raw bytes of property `name`.
    pub fn bytes(&self, name: &str) -> Option<&'a [u8]> {
        let (s, e) = *self.spans.get(self.schema.index_of(name)?)?;
        self.payload.get(s..e)
    }

    /// An integer property of any width (1, 2, 4 or 8 bytes).
    pub fn uint(&self, name: &str) -> Option<u64> {
        int_value(self.bytes(name)?)
    }

    /// A UTF-16 string property, without its terminator.
    pub fn string(&self, name: &str) -> Option<String> {
        let b = self.bytes(name)?;
        let units: Vec<u16> = b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).take_while(|&u| u != 0).collect();
        Some(String::from_utf16_lossy(&units))
    }

    /// Property names and raw bytes, in schema order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &'a [u8])> + '_ {
        self.spans.iter().enumerate().map(|(i, &(s, e))| (self.schema.properties[i].name.as_str(), &self.payload[s..e]))
    }
}

/// Value maps (`EVENT_MAP_INFO`, value-map kind) by (provider, map name).
#[derive(Debug, Default, Clone)]
pub struct ValueMaps {
    maps: HashMap<(Guid, String), HashMap<u32, String>>,
}

impl ValueMaps {
    /// Parses a class-type-33 payload: provider GUID, then an `EVENT_MAP_INFO` image.
    pub fn add_map_event(&mut self, payload: &[u8]) -> Option<()> {
        let provider = guid_at(payload, 0)?;
        let m = payload.get(16..)?;
        let name = name_at(m, u32_at(m, 0)?);
        let (flags, count) = (u32_at(m, 4)?, u32_at(m, 8)? as usize);
        const VALUEMAP: u32 = 1;
        if flags & VALUEMAP == 0 || count > 65536 {
            return None;
        }
        let mut entries = HashMap::new();
        for k in 0..count {
            let at = 16 + 8 * k;
            entries.insert(u32_at(m, at + 4)?, name_at(m, u32_at(m, at)?));
        }
        self.maps.insert((provider, name), entries);
        Some(())
    }

    pub fn lookup(&self, provider: Guid, map: &str, value: u32) -> Option<&str> {
        self.maps.get(&(provider, map.to_string()))?.get(&value).map(String::as_str)
    }
}
