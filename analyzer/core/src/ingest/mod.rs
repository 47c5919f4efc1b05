//! ① ingest: capture files (pcap, pcapng, gzip-compressed, standard input) → frames.

pub mod error;
pub mod frame;

pub use error::{IngestError, IngestErrorKind};
pub use frame::{Frame, FrameOptions};
