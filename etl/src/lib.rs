//! Windows ETL packet captures (pktmon, `netsh trace` / ndiscap), read on any OS.
//!
//! No Windows API is used: the container (buffers, record headers, XPRESS-compressed
//! relogged buffers), the embedded event schemas and the packet events are decoded from
//! bytes, and packets come out as [`tcpdiag_core::ingest::Frame`]s like pcap and pcapng
//! ones. Data flow: [`container`] (buffers → per-CPU streams → time-ordered events) →
//! [`schema`] (event payload → named properties) → [`pktmon`] / [`ndiscap`] (events →
//! packets) → [`reader`] (observation filter, interfaces → [`EtlFrame`]).
//! See `README.md` for the format notes.
//!
//! ```no_run
//! let mut r = tcpdiag_etl::EtlReader::open("PktMon.etl")?;
//! while let Some(f) = r.next_frame()? {
//!     let frame = f.frame();
//!     println!("{} {} bytes", frame.ts_ns, frame.caplen);
//! }
//! # Ok::<(), tcpdiag_core::ingest::IngestError>(())
//! ```

pub mod buffer;
pub mod builtin;
pub mod bytes;
pub mod container;
pub mod convert;
pub mod flowkey;
#[doc(hidden)]
pub mod fuzz;
pub mod frame;
pub mod logfile;
pub mod ndiscap;
pub mod packet;
pub mod pktmon;
pub mod reader;
pub mod record;
pub mod schema;
pub mod source;
pub mod stats;
pub mod tcpip;
pub mod xpress;
pub mod xpress_huffman;

pub use bytes::Guid;
pub use frame::{EtlFrame, EtlInterface, InterfaceKey, ObservationFilter, ReaderOptions};
pub use packet::{Direction, DropInfo, Observation, WlanMetadata};
pub use convert::{convert, convert_file, ConvertError, ConvertOptions, ConvertSummary, Mode};
pub use reader::{looks_like_etl, EtlReader};
pub use source::{ComponentChoice, EtlSource};
pub use stats::EtlStats;
