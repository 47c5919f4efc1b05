//! The tables of a capture: flows (`scan_flows`), flows with their verdicts and the
//! findings (`analyze`), and the packets table in chunks with the analysis columns, the
//! SACK blocks and the events (`PacketChunks`).

use pyo3::prelude::*;
use pyo3::types::PyDict;

use tcpdiag_core::analyse::units;
use tcpdiag_core::analyse::verdict::FlowVerdict;
use tcpdiag_core::analyse::{Analyzer, NoNotes};
use tcpdiag_core::emit::diagnosis::Diagnosis;
use tcpdiag_core::emit::events::EventColumns;
use tcpdiag_core::emit::flows_table::{findings_batch, flows_batch};
use tcpdiag_core::emit::packet_batch::{analysis_batches, packets_batch};
use tcpdiag_core::emit::schema::{self, ANALYSIS, DIRECTION, EVENT, FATE, FINDING, FLOW, PACKET, PAIR, PAIR_FINDING, SACK, SERIES, VERDICT};
use tcpdiag_core::emit::series::{SeriesColumns, SeriesFlow};
use tcpdiag_core::emit::{AnalysisColumns, PacketColumns};
use tcpdiag_core::flow::FlowSummary;
use tcpdiag_core::pipeline::{scan, NoSink, Scan, Scanner};

use crate::batch::{empty, Batch};
use crate::{guarded, judge_options, open, result_dict};

/// `{"flows": Batch, "stats", "error"}`.
fn flows_result<'py>(py: Python<'py>, scan: &Scan) -> PyResult<Bound<'py, PyDict>> {
    let d = result_dict(py, scan)?;
    d.set_item("flows", Batch::of(flows_batch(&scan.flows, None))?)?;
    Ok(d)
}

/// Flows per batch of the diagnosis tables: each batch's verdicts are rendered and their
/// text freed before the next, so a million flows never hold text and tables at once.
const VERDICT_BATCH: usize = 1 << 16;

/// `{"flows": [Batch] (with the verdict columns), "findings": [Batch], "stats", "error"}`.
pub(crate) fn analysis_result<'py>(
    py: Python<'py>,
    scan: &Scan,
    flows: &[FlowSummary],
    mut verdicts: Vec<FlowVerdict>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = result_dict(py, scan)?;
    let (f, x) = py.detach(|| {
        let (mut f, mut x) = (Vec::new(), Vec::new());
        for (sums, vs) in flows.chunks(VERDICT_BATCH).zip(verdicts.chunks_mut(VERDICT_BATCH)) {
            f.push(flows_batch(sums, Some(vs)));
            x.push(findings_batch(sums, vs));
            vs.iter_mut().for_each(|v| v.findings = Vec::new());
        }
        (f, x)
    });
    drop(verdicts);
    let batches = |r: Vec<Result<_, _>>| r.into_iter().map(Batch::of).collect::<PyResult<Vec<Batch>>>();
    d.set_item("flows", batches(f)?)?;
    d.set_item("findings", batches(x)?)?;
    Ok(d)
}

/// The flows table of a capture.
#[pyfunction]
fn scan_flows<'py>(py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyDict>> {
    let scan = match open(py, path)? {
        Ok(reader) => py.detach(|| guarded(path, || scan(reader, &mut NoSink)))?,
        Err(failed) => failed,
    };
    flows_result(py, &scan)
}

/// `{"flows": [Batch], "findings": [Batch], "stats", "error"}` from a finished diagnosis.
pub(crate) fn diagnosis_result<'py>(py: Python<'py>, scan: &Scan, d: Diagnosis) -> PyResult<Bound<'py, PyDict>> {
    let dict = result_dict(py, scan)?;
    let (flows, findings) =
        py.detach(|| d.finish(&scan.flows)).map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("internal error: {e}")))?;
    dict.set_item("flows", vec![Batch::new(flows)])?;
    dict.set_item("findings", vec![Batch::new(findings)])?;
    Ok(dict)
}

/// Every flow's verdict: the flows table with the diagnosis columns, and the findings.
#[pyfunction]
#[pyo3(signature = (path, vantage = None, target_bps = None))]
fn analyze<'py>(py: Python<'py>, path: &str, vantage: Option<&str>, target_bps: Option<f64>) -> PyResult<Bound<'py, PyDict>> {
    let opts = judge_options(vantage, target_bps)?;
    let (scan, diagnosis) = match open(py, path)? {
        Ok(reader) => py.detach(|| {
            guarded(path, || {
                // Each flow is judged once closed, its state dropped and its verdict put in
                // the tables: states, verdicts and tables never pile up.
                let mut analyzer = Analyzer::with_store(NoNotes, opts, Diagnosis::new(opts));
                let scan = scan(reader, &mut analyzer);
                let (diagnosis, _) = analyzer.finish_into(&scan.flows);
                (scan, diagnosis)
            })
        })?,
        Err(failed) => (failed, Diagnosis::new(opts)),
    };
    diagnosis_result(py, &scan, diagnosis)
}

/// The analysis sinks of a chunked scan: per-packet columns, events, series.
type Analysed = ((AnalysisColumns, EventColumns), SeriesColumns);

/// What a chunked scan collects: the wire columns only, or the analysis.
enum Collect {
    Wire,
    Analysis(Analyzer<Analysed, Diagnosis>, bool),
}

/// Per-flow series settings: the flows table's columns `stream`, `data_dir` and
/// `rate_window_s`.
type SeriesSpec = (Vec<u32>, Vec<u8>, Vec<f64>);

/// Iterates over the packets table in chunks of at most `chunk_rows` rows: each a dict
/// `{"packets": Batch}`, with `analysis=True` also `"sacks"` and `"events"` batches and,
/// for the flows `series` names, `"series"`; after the last chunk `result()` (with
/// verdicts when analysed).
#[pyclass(unsendable)]
struct PacketChunks {
    path: String,
    scanner: Option<Scanner>,
    collect: Option<Collect>,
    chunk_rows: u64,
    finished: Option<Scan>,
}

#[pymethods]
impl PacketChunks {
    #[new]
    #[pyo3(signature = (path, chunk_rows = 1_000_000, analysis = false, vantage = None, series = None))]
    fn new(
        py: Python<'_>,
        path: &str,
        chunk_rows: u64,
        analysis: bool,
        vantage: Option<&str>,
        series: Option<SeriesSpec>,
    ) -> PyResult<Self> {
        let judge = judge_options(vantage, None)?;
        let (scanner, finished) = match open(py, path)? {
            Ok(r) => (Some(Scanner::boxed(r)), None),
            Err(failed) => (None, Some(failed)),
        };
        let collect = if analysis {
            let with_series = series.is_some();
            let (streams, dirs, windows) = series.unwrap_or_default();
            let flows = streams
                .into_iter()
                .zip(dirs)
                .zip(windows)
                .map(|((s, d), w)| (s, SeriesFlow { data_dir: d, window_ns: (w * 1e9) as i64 }));
            let sinks = ((AnalysisColumns::default(), EventColumns::default()), SeriesColumns::new(flows));
            Collect::Analysis(Analyzer::with_store(sinks, judge, Diagnosis::new(judge)), with_series)
        } else {
            Collect::Wire
        };
        Ok(PacketChunks { path: path.to_string(), scanner, collect: Some(collect), chunk_rows: chunk_rows.max(1), finished })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(mut scanner) = self.scanner.take() else { return Ok(None) };
        let Some(mut collect) = self.collect.take() else { return Ok(None) };
        let rows = self.chunk_rows;
        let path = self.path.clone();
        let (scanner, collect, chunk, more) = py.detach(move || {
            guarded(&path, move || {
                let (chunk, more) = match &mut collect {
                    Collect::Wire => {
                        let mut wire = PacketColumns::default();
                        let more = scanner.advance(&mut wire, rows);
                        let chunk = (!wire.is_empty()).then(|| (packets_batch(wire).map(|p| (p, None)), None));
                        (chunk, more)
                    }
                    Collect::Analysis(a, with_series) => {
                        let more = scanner.advance(a, rows);
                        let ((cols, events), series) = &mut a.out;
                        let cols = std::mem::take(cols);
                        let events = std::mem::take(events);
                        let series = with_series.then(|| series.take_batch());
                        let chunk = (!cols.is_empty()).then(|| {
                            (analysis_batches(cols).map(|(p, s)| (p, Some(s))), Some((events.into_batch(), series)))
                        });
                        (chunk, more)
                    }
                };
                (scanner, collect, chunk, more)
            })
        })?;
        self.collect = Some(collect);
        if more {
            self.scanner = Some(scanner);
        } else {
            self.finished = Some(scanner.finish());
        }
        let Some((tables, extra)) = chunk else { return Ok(None) };
        let (packets, sacks) = tables.map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("internal error: {e}")))?;
        let d = PyDict::new(py);
        d.set_item("packets", Batch::new(packets))?;
        if let Some(s) = sacks {
            d.set_item("sacks", Batch::new(s))?;
        }
        if let Some((events, series)) = extra {
            d.set_item("events", Batch::of(events)?)?;
            if let Some(series) = series {
                d.set_item("series", Batch::of(series)?)?;
            }
        }
        Ok(Some(d))
    }

    /// After iteration: as `scan_flows` returns, or as `analyze` with the analysis.
    fn result<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(scan) = &self.finished else { return Ok(None) };
        match self.collect.take() {
            Some(Collect::Analysis(a, _)) => {
                let (diagnosis, _) = a.finish_into(&scan.flows);
                Ok(Some(diagnosis_result(py, scan, diagnosis)?))
            }
            _ => Ok(Some(flows_result(py, scan)?)),
        }
    }
}

/// Every table's declared schema, as an empty batch: flows, verdict (the flows table of a
/// diagnosis), findings, packets, analysis (packets with the analysis columns), sacks,
/// events, series; and a comparison's pairs, directions, fates and pair_findings.
/// docs/tables.md is generated from these.
#[pyfunction]
fn schemas<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let tables: [(&str, &[&[schema::Column]]); 12] = [
        ("flows", &[FLOW]),
        ("verdict", &[FLOW, VERDICT]),
        ("findings", &[FINDING]),
        ("packets", &[PACKET]),
        ("analysis", &[PACKET, ANALYSIS]),
        ("sacks", &[SACK]),
        ("events", &[EVENT]),
        ("series", &[SERIES]),
        ("pairs", &[PAIR]),
        ("directions", &[DIRECTION]),
        ("fates", &[FATE]),
        ("pair_findings", &[PAIR_FINDING]),
    ];
    for (name, cols) in tables {
        d.set_item(name, empty(schema::schema(cols)))?;
    }
    Ok(d)
}

/// A number in the words every surface uses (the engine's one formatter): `unit` is one
/// of bytes, size, rate, ms, seconds, percent, count.
#[pyfunction]
fn format_number(unit: &str, x: f64) -> PyResult<String> {
    Ok(match unit {
        "bytes" => units::bytes(x.max(0.0) as u64),
        "size" => units::size(x),
        "rate" => units::rate(x),
        "ms" => units::ms(x),
        "seconds" => units::seconds(x),
        "percent" => units::percent(x),
        "count" => units::grouped(x as i64),
        _ => return Err(pyo3::exceptions::PyValueError::new_err(format!("unknown unit {unit:?}"))),
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(scan_flows, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(schemas, m)?)?;
    m.add_function(wrap_pyfunction!(format_number, m)?)?;
    m.add_class::<PacketChunks>()?;
    Ok(())
}
