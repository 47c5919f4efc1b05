//! ⑤ emit: the tables (flows, findings, packets, analysis, events; Arrow record batches
//! declared in schema.rs) for Python, streaming CSV, and the Wireshark plugin's annotations.

pub mod analysis;
pub mod annotations;
pub mod columns;
pub mod csv;
pub mod diagnosis;
pub mod events;
pub mod flows_table;
pub mod packet_batch;
pub mod packets;
pub mod schema;
pub mod series;

pub use analysis::AnalysisColumns;
pub use packets::{PacketColumns, COLUMNS as PACKET_COLUMNS};
