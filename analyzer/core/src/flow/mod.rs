//! ③ flow: TCP segments → bidirectional flows numbered as Wireshark numbers `tcp.stream`.

pub mod key;
pub mod seq;
pub mod summary;
pub mod table;

pub use key::{Direction, FlowKey};
pub use seq::SeqNumber;
pub use summary::{FlowSummary, SideSummary, SynOptions};
pub use table::{FlowTable, Placement};
