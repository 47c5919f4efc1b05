//! The ETL reader as a `tcpdiag_core::ingest::FrameSource`, so `analyze`, `flows` and
//! `packets` read ETL traces through the same pipeline as pcap and pcapng, and the
//! user's choice of observation point (`--etl-component`).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::Path;
use std::str::FromStr;

use tcpdiag_core::ingest::{Frame, FrameSource, IngestError, IngestErrorKind, Input, RandomAccess};

use crate::frame::{EtlFrame, ObservationFilter, ReaderOptions};
use crate::pktmon::Component;
use crate::reader::EtlReader;

/// Which copies of a PktMon packet to read, as the user names it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ComponentChoice {
    /// Per flow, the component that logged its first packet ([`ObservationFilter::FirstPerFlow`]).
    #[default]
    Auto,
    /// Every copy: each packet once per component it crossed.
    All,
    /// The first component each packet met (`AppearanceCount` 1).
    First,
    /// One PktMon component id (or ndiscap LowerIfIndex).
    Id(u32),
    /// The one component whose name or description contains this text (case-insensitive).
    Name(String),
}

impl FromStr for ComponentChoice {
    type Err = std::convert::Infallible;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => ComponentChoice::Auto,
            "all" => ComponentChoice::All,
            "first" => ComponentChoice::First,
            t => match t.parse::<u32>() {
                Ok(id) => ComponentChoice::Id(id),
                Err(_) => ComponentChoice::Name(s.trim().to_string()),
            },
        })
    }
}

impl ComponentChoice {
    /// The filter this choice means for a trace with these components.
    pub fn resolve(&self, components: &BTreeMap<u16, Component>) -> Result<ObservationFilter, String> {
        Ok(match self {
            ComponentChoice::Auto => ObservationFilter::FirstPerFlow,
            ComponentChoice::All => ObservationFilter::All,
            ComponentChoice::First => ObservationFilter::FirstAppearance,
            ComponentChoice::Id(id) => ObservationFilter::Point(*id),
            ComponentChoice::Name(name) => {
                let want = name.to_lowercase();
                let hits: Vec<&Component> = components
                    .values()
                    .filter(|c| c.name.to_lowercase().contains(&want) || c.description.to_lowercase().contains(&want))
                    .collect();
                match hits.as_slice() {
                    [one] => ObservationFilter::Point(one.id as u32),
                    _ => {
                        let list: Vec<String> = components.values().map(|c| format!("{} {}", c.id, c.name)).collect();
                        let what = if hits.is_empty() { "no" } else { "more than one" };
                        return Err(format!(
                            "{what} PktMon component matches {name:?}; choose an id: {}",
                            if list.is_empty() { "the trace names none".to_string() } else { list.join(", ") }
                        ));
                    }
                }
            }
        })
    }
}

/// An [`EtlReader`] handing out [`Frame`]s; keeps the current frame until the next call.
pub struct EtlSource<R = BufReader<File>> {
    reader: EtlReader<R>,
    current: Option<EtlFrame>,
}

impl EtlSource<BufReader<File>> {
    /// Opens `path` with the default reader options and the observation point `choice`.
    pub fn open(path: impl AsRef<Path>, choice: &ComponentChoice) -> Result<Self, IngestError> {
        EtlSource::new(EtlReader::open_with(path, ReaderOptions::default())?, choice)
    }
}

impl EtlSource<BufReader<RandomAccess>> {
    /// Reads an input already opened (a file, a pipe or a decompressed stream; the last
    /// two are held in memory up to a bound, since ETL needs random access).
    pub fn from_input(input: Input, choice: &ComponentChoice) -> Result<Self, IngestError> {
        let ra = input.into_random_access("an ETL trace")?;
        EtlSource::new(EtlReader::from_random_access(ra, ReaderOptions::default())?, choice)
    }
}

impl<R: Read + Seek> EtlSource<R> {
    pub fn new(mut reader: EtlReader<R>, choice: &ComponentChoice) -> Result<Self, IngestError> {
        let filter = choice
            .resolve(reader.components())
            .map_err(|e| IngestError::new(IngestErrorKind::Unsupported(e), 0, 0))?;
        reader.set_observation(filter);
        Ok(EtlSource { reader, current: None })
    }

    pub fn reader(&self) -> &EtlReader<R> {
        &self.reader
    }

    pub fn into_reader(self) -> EtlReader<R> {
        self.reader
    }
}

impl<R: Read + Seek + Send> FrameSource for EtlSource<R> {
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, IngestError> {
        self.current = self.reader.next_frame()?;
        Ok(self.current.as_ref().map(EtlFrame::frame))
    }

    fn input_bytes_read(&self) -> u64 {
        self.reader.stats().file_bytes_read
    }

    fn format_name(&self) -> &'static str {
        "etl"
    }
}
