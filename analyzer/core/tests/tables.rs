//! The Arrow tables match their declarations in emit/schema.rs, row for row, on every
//! sample: one flow row and one findings group per flow, one packet row per segment, one
//! event per catalogue event a packet carries.

use arrow_array::cast::AsArray;
use arrow_array::types::UInt64Type;
use tcpdiag_core::analyse::verdict::JudgeOptions;
use tcpdiag_core::analyse::Analyzer;
use tcpdiag_core::emit::events::EventColumns;
use tcpdiag_core::emit::flows_table::{findings_batch, flows_batch};
use tcpdiag_core::emit::packet_batch::analysis_batches;
use tcpdiag_core::emit::schema::{self, ANALYSIS, EVENT, FINDING, FLOW, PACKET, VERDICT};
use tcpdiag_core::emit::AnalysisColumns;
use tcpdiag_core::ingest::CaptureReader;
use tcpdiag_core::pipeline::scan;

mod common;
use common::samples;

fn names(cols: &[&[schema::Column]]) -> Vec<&'static str> {
    cols.iter().flat_map(|c| c.iter().map(|x| x.name)).collect()
}

#[test]
fn every_table_of_every_sample_has_its_declared_columns() {
    for path in samples() {
        let mut a = Analyzer::new((AnalysisColumns::default(), EventColumns::default()), JudgeOptions::default());
        let s = scan(Box::new(CaptureReader::open(&path).unwrap()), &mut a);
        let (verdicts, out) = a.finish(&s.flows);

        let flows = flows_batch(&s.flows, Some(&verdicts)).unwrap();
        assert_eq!(flows.num_rows(), s.flows.len());
        let got: Vec<String> = flows.schema().fields().iter().map(|f| f.name().clone()).collect();
        assert_eq!(got, names(&[FLOW, VERDICT]), "{path:?}");

        let findings = findings_batch(&s.flows, &verdicts).unwrap();
        assert_eq!(findings.num_rows(), verdicts.iter().map(|v| v.findings.len()).sum::<usize>());
        assert_eq!(findings.schema().fields().len(), FINDING.len());

        let (cols, events) = out;
        let segments = cols.len();
        let frames: Vec<u64> = cols.wire.frame.clone();
        let (packets, _sacks) = analysis_batches(cols).unwrap();
        assert_eq!(packets.num_rows(), segments);
        assert_eq!(packets.schema().fields().len(), PACKET.len() + ANALYSIS.len());

        let n_events = events.len();
        let events = events.into_batch().unwrap();
        assert_eq!((events.num_rows(), events.schema().fields().len()), (n_events, EVENT.len()));
        // Every event names a frame of the capture.
        let ev_frames = events.column(0).as_primitive::<UInt64Type>();
        assert!(ev_frames.values().iter().all(|f| frames.binary_search(f).is_ok()), "{path:?}");
    }
}
