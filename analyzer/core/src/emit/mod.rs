//! ⑤ emit: columnar tables (packets, analysis, flows) for Python, and streaming CSV.

pub mod analysis;
pub mod annotations;
pub mod csv;
pub mod packets;
pub mod templates;

pub use analysis::AnalysisColumns;
pub use packets::{PacketColumns, COLUMNS as PACKET_COLUMNS};
