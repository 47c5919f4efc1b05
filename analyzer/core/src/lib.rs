//! tcpdiag's native core: ① ingest (capture records → frames), ② decode (frames → TCP
//! segments), ③ flow (segments → bidirectional flows numbered like Wireshark's
//! `tcp.stream`), ④ analyse, ⑤ emit (columnar tables). No Python here: the extension
//! module `tcpdiag._native` is a thin layer over this crate.

pub mod analyse;
pub mod bpf;
pub mod compare;
pub mod decode;
pub mod emit;
pub mod flow;
pub mod ingest;
pub mod libpcap;
pub mod live;
pub mod parallel;
pub mod pipeline;
