//! `tcpdiag._native`: the private seam between the Rust core and the Python package.
//!
//! Capture problems are *returned* (as an `error` dict beside the partial results), never
//! raised from here: the Python layer decides between a warning and an exception. Rust
//! panics are caught at this boundary and become `RuntimeError` naming the input.

mod etl;
mod parallel;

use std::borrow::Borrow;
use std::panic::{catch_unwind, AssertUnwindSafe};

use numpy::PyArray1;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use tcpdiag_core::analyse::vantage::Vantage;
use tcpdiag_core::analyse::verdict::{judge, FlowVerdict, Value};
use tcpdiag_core::analyse::{Analyzer, FlowState, LimitState, NoNotes};
use tcpdiag_core::emit::annotations::Annotations;
use tcpdiag_core::emit::csv::PacketCsv;
use tcpdiag_core::emit::{AnalysisColumns, PacketColumns};
use tcpdiag_core::flow::FlowSummary;
use tcpdiag_core::ingest::{FrameSource, IngestError, IngestErrorKind};
use tcpdiag_core::pipeline::{scan, NoSink, Scan, ScanStats, Scanner};

pub(crate) fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f))
        .map_err(|_| PyRuntimeError::new_err(format!("{what}: internal error in the native core (please report with the capture)")))
}

pub(crate) fn error_dict<'py>(py: Python<'py>, e: &IngestError) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let kind = match &e.kind {
        IngestErrorKind::Io(_) => "io",
        IngestErrorKind::Empty => "empty",
        IngestErrorKind::NotACapture { .. } => "not_a_capture",
        IngestErrorKind::Unsupported(_) => "unsupported",
        IngestErrorKind::Truncated { .. } => "truncated",
        IngestErrorKind::Corrupt(_) => "corrupt",
    };
    d.set_item("kind", kind)?;
    d.set_item("message", e.to_string())?;
    d.set_item("detail", e.kind.to_string())?;
    d.set_item("offset", e.offset)?;
    d.set_item("frames_read", e.frames_read)?;
    Ok(d)
}

fn stats_dict<'py>(py: Python<'py>, s: &ScanStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("frames", s.frames)?;
    d.set_item("tcp_segments", s.tcp_segments)?;
    d.set_item("not_tcp", s.not_tcp)?;
    d.set_item("undecodable", s.undecodable)?;
    d.set_item("fragments", s.fragments)?;
    d.set_item("icmp_quoted", s.icmp_quoted)?;
    d.set_item("unknown_linktypes", s.unknown_linktypes.clone())?;
    d.set_item("first_undecodable", s.first_undecodable.clone())?;
    d.set_item("input_bytes", s.input_bytes)?;
    d.set_item("format", s.format)?;
    Ok(d)
}

fn flows_dict<'py>(py: Python<'py>, flows: &[FlowSummary]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    macro_rules! col {
        ($name:expr, $f:expr) => {
            d.set_item($name, PyList::new(py, flows.iter().map($f))?)?;
        };
    }
    col!("stream", |f: &FlowSummary| f.stream);
    col!("a_addr", |f: &FlowSummary| f.a.0.to_ip().to_string());
    col!("a_port", |f: &FlowSummary| f.a.1);
    col!("b_addr", |f: &FlowSummary| f.b.0.to_ip().to_string());
    col!("b_port", |f: &FlowSummary| f.b.1);
    col!("first_frame", |f: &FlowSummary| f.first_frame);
    col!("last_frame", |f: &FlowSummary| f.last_frame);
    col!("first_ts_ns", |f: &FlowSummary| f.first_ts_ns);
    col!("last_ts_ns", |f: &FlowSummary| f.last_ts_ns);
    for (i, side) in ["ab", "ba"].iter().enumerate() {
        col!(format!("packets_{side}"), |f: &FlowSummary| f.sides[i].packets);
        col!(format!("bytes_{side}"), |f: &FlowSummary| f.sides[i].frame_bytes);
        col!(format!("payload_{side}"), |f: &FlowSummary| f.sides[i].payload_bytes);
    }
    for (i, side) in ["a", "b"].iter().enumerate() {
        col!(format!("syn_frame_{side}"), |f: &FlowSummary| f.sides[i].syn_frame);
        col!(format!("mss_{side}"), |f: &FlowSummary| f.sides[i].syn.mss);
        col!(format!("wscale_{side}"), |f: &FlowSummary| f.sides[i].syn.wscale);
        col!(format!("fin_{side}"), |f: &FlowSummary| f.sides[i].fin_seen);
        col!(format!("rst_{side}"), |f: &FlowSummary| f.sides[i].rst_seen);
    }
    col!("handshake", |f: &FlowSummary| f.handshake_seen());
    col!("wscale_in_effect", |f: &FlowSummary| f.wscale_in_effect());
    col!("sack_permitted", |f: &FlowSummary| f.sack_permitted());
    col!("timestamps", |f: &FlowSummary| f.timestamps());
    col!("ecn", |f: &FlowSummary| f.ecn());
    Ok(d)
}

fn result_dict<'py>(py: Python<'py>, scan: &Scan) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("flows", flows_dict(py, &scan.flows)?)?;
    d.set_item("stats", stats_dict(py, &scan.stats)?)?;
    match &scan.error {
        Some(e) => d.set_item("error", error_dict(py, e)?)?,
        None => d.set_item("error", py.None())?,
    }
    Ok(d)
}

/// Opens a capture; on failure returns the result dict carrying only the error. Without
/// the GIL: opening a FIFO waits for its writer, which may be a Python thread.
fn open<'py>(py: Python<'py>, path: &str) -> PyResult<Result<Box<dyn FrameSource>, Bound<'py, PyDict>>> {
    match py.detach(|| guarded(path, || etl::open_source(path)))? {
        Ok(r) => Ok(Ok(r)),
        Err(e) => {
            let scan = Scan { flows: Vec::new(), stats: ScanStats::default(), error: Some(e) };
            Ok(Err(result_dict(py, &scan)?))
        }
    }
}

/// The flows table of a capture: `{"flows": {column: list}, "stats": {...}, "error": None | {...}}`.
#[pyfunction]
fn scan_flows<'py>(py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyDict>> {
    let reader = match open(py, path)? {
        Ok(r) => r,
        Err(d) => return Ok(d),
    };
    let scan = py.detach(|| guarded(path, || scan(reader, &mut NoSink)))?;
    result_dict(py, &scan)
}

fn verdict_dict<'py>(py: Python<'py>, stream: u32, v: &FlowVerdict) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("stream", stream)?;
    d.set_item("data_dir", v.data_dir)?;
    d.set_item("vantage", v.vantage.name())?;
    d.set_item("busy_s", v.busy_ns as f64 / 1e9)?;
    let shares = PyDict::new(py);
    let busy = v.busy_ns.max(1) as f64;
    for st in LimitState::ALL.iter().skip(1) {
        shares.set_item(st.name(), v.state_ns[*st as usize] as f64 / busy)?;
    }
    d.set_item("shares", shares)?;
    let ms = |x: Option<i64>| x.map(|n| n as f64 / 1e6);
    d.set_item("min_rtt_ms", ms(v.min_rtt_ns))?;
    d.set_item("srtt_ms", ms(v.srtt_ns))?;
    d.set_item("mean_rtt_ms", ms(v.mean_rtt_ns))?;
    d.set_item("mss", v.mss)?;
    d.set_item("data_bytes", v.data_bytes)?;
    d.set_item("goodput_bps", v.goodput_bps)?;
    d.set_item("rwnd_min", v.rwnd_min)?;
    d.set_item("rwnd_max", v.rwnd_max)?;
    d.set_item("rwnd_basis", v.rwnd_basis.map(|b| b as u8))?;
    d.set_item("retrans", v.retrans_segments)?;
    d.set_item("spurious", v.spurious)?;
    d.set_item("dsacks", v.dsacks)?;
    d.set_item("reorder_events", v.reorder_events)?;
    d.set_item("max_reorder_ms", v.max_reorder_ns as f64 / 1e6)?;
    d.set_item("recoveries", v.recoveries)?;
    d.set_item("zero_windows", v.zero_windows)?;
    d.set_item("lost_before_bytes", v.lost_before_bytes)?;
    let findings = PyList::empty(py);
    for f in &v.findings {
        let fd = PyDict::new(py);
        fd.set_item("id", f.id)?;
        fd.set_item("share", f.share)?;
        fd.set_item("frames", f.frames.clone())?;
        let vals = PyDict::new(py);
        for (k, val) in &f.values {
            match val {
                Value::Int(i) => vals.set_item(*k, *i)?,
                Value::Num(x) => vals.set_item(*k, *x)?,
                Value::Text(t) => vals.set_item(*k, t)?,
            }
        }
        fd.set_item("values", vals)?;
        findings.append(fd)?;
    }
    d.set_item("findings", findings)?;
    Ok(d)
}

/// Every flow's verdict, in stream order. `states` are indexed by stream like the flows
/// (none for a flow seen only in ICMP errors at the end); owned states are dropped as soon
/// as they are judged.
fn judge_all<S: Borrow<FlowState>>(states: impl IntoIterator<Item = S>, flows: &[FlowSummary], vantage: Option<Vantage>) -> Vec<FlowVerdict> {
    let mut states = states.into_iter();
    flows
        .iter()
        .map(|f| match states.next() {
            Some(st) => judge(st.borrow(), f, vantage),
            None => judge(&FlowState::default(), f, vantage),
        })
        .collect()
}

/// The verdicts as a list of dicts (one per flow, in `flows` order).
pub(crate) fn verdict_list<'py>(py: Python<'py>, flows: &[FlowSummary], verdicts: &[FlowVerdict]) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for (f, v) in flows.iter().zip(verdicts) {
        out.append(verdict_dict(py, f.stream, v)?)?;
    }
    Ok(out)
}

fn parse_vantage(v: Option<&str>) -> PyResult<Option<Vantage>> {
    match v {
        None | Some("auto") => Ok(None),
        Some(s) => Vantage::parse(s)
            .map(Some)
            .ok_or_else(|| pyo3::exceptions::PyValueError::new_err(format!("unknown vantage {s:?}: sender, receiver, middle or auto"))),
    }
}

/// Flows table plus each flow's analysis verdict (`"verdicts"`: list of dicts).
#[pyfunction]
#[pyo3(signature = (path, vantage = None))]
fn analyze<'py>(py: Python<'py>, path: &str, vantage: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
    let vantage = parse_vantage(vantage)?;
    let reader = match open(py, path)? {
        Ok(r) => r,
        Err(d) => {
            d.set_item("verdicts", PyList::empty(py))?;
            return Ok(d);
        }
    };
    // Judged before any Python object is made, and each flow's state dropped once judged:
    // the states (kilobytes a flow) and the Python dicts never coexist.
    let (scan, judged) = py.detach(|| {
        guarded(path, || {
            let mut analyzer = Analyzer::new(NoNotes);
            let scan = scan(reader, &mut analyzer);
            let judged = judge_all(analyzer.flows, &scan.flows, vantage);
            (scan, judged)
        })
    })?;
    let d = result_dict(py, &scan)?;
    d.set_item("verdicts", verdict_list(py, &scan.flows, &judged)?)?;
    Ok(d)
}

/// Writes the Wireshark plugin's annotations of a capture (emit/annotations.rs) to `out`.
#[pyfunction]
#[pyo3(signature = (path, out, vantage = None))]
fn write_annotations<'py>(py: Python<'py>, path: &str, out: &str, vantage: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
    let vantage = parse_vantage(vantage)?;
    let reader = match open(py, path)? {
        Ok(r) => r,
        Err(d) => return Ok(d),
    };
    let (out_path, capture) = (out.to_string(), path.to_string());
    let capture_bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    let (scan, write_err) = py.detach(|| {
        guarded(path, move || -> std::io::Result<(Scan, Option<std::io::Error>)> {
            let file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&out_path)?);
            let mut analyzer = Analyzer::new(Annotations::new(file, &capture, capture_bytes));
            let scan = scan(reader, &mut analyzer);
            let Analyzer { flows: states, out } = analyzer;
            let verdicts = judge_all(states, &scan.flows, vantage);
            let err = out.finish(&scan.flows, &verdicts).err();
            Ok((scan, err))
        })
    })?
    .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{out}: {e}")))?;
    let d = result_dict(py, &scan)?;
    d.set_item("write_error", write_err.map(|e| e.to_string()))?;
    Ok(d)
}

/// Streams the packets table as CSV to `out` ("-" for standard output), with the
/// analysis columns when `analysis` is true.
#[pyfunction]
#[pyo3(signature = (path, out, analysis = false))]
fn write_packets_csv<'py>(py: Python<'py>, path: &str, out: &str, analysis: bool) -> PyResult<Bound<'py, PyDict>> {
    let reader = match open(py, path)? {
        Ok(r) => r,
        Err(d) => return Ok(d),
    };
    let out_path = out.to_string();
    let (scan, write_err) = py.detach(|| {
        guarded(path, move || -> std::io::Result<(Scan, Option<std::io::Error>)> {
            let sink: Box<dyn std::io::Write> = if out_path == "-" {
                Box::new(std::io::stdout().lock())
            } else {
                Box::new(std::fs::File::create(&out_path)?)
            };
            let buffered = std::io::BufWriter::with_capacity(1 << 20, sink);
            if analysis {
                let mut analyzer = Analyzer::new(PacketCsv::with_analysis(buffered));
                let scan = scan(reader, &mut analyzer);
                Ok((scan, analyzer.out.finish().err()))
            } else {
                let mut csv = PacketCsv::new(buffered);
                let scan = scan(reader, &mut csv);
                Ok((scan, csv.finish().err()))
            }
        })
    })?
    .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{out}: {e}")))?;
    let d = result_dict(py, &scan)?;
    d.set_item("write_error", write_err.map(|e| e.to_string()))?;
    Ok(d)
}

fn wire_columns(py: Python<'_>, d: &Bound<'_, PyDict>, cols: PacketColumns) -> PyResult<()> {
    d.set_item("frame", PyArray1::from_vec(py, cols.frame))?;
    d.set_item("stream", PyArray1::from_vec(py, cols.stream))?;
    d.set_item("dir", PyArray1::from_vec(py, cols.dir))?;
    d.set_item("ts_ns", PyArray1::from_vec(py, cols.ts_ns))?;
    d.set_item("src", PyArray1::from_vec(py, cols.src))?;
    d.set_item("sport", PyArray1::from_vec(py, cols.sport))?;
    d.set_item("dst", PyArray1::from_vec(py, cols.dst))?;
    d.set_item("dport", PyArray1::from_vec(py, cols.dport))?;
    d.set_item("seq_raw", PyArray1::from_vec(py, cols.seq_raw))?;
    d.set_item("ack_raw", PyArray1::from_vec(py, cols.ack_raw))?;
    d.set_item("tcp_len", PyArray1::from_vec(py, cols.tcp_len))?;
    d.set_item("flags", PyArray1::from_vec(py, cols.flags))?;
    d.set_item("win_raw", PyArray1::from_vec(py, cols.win_raw))?;
    let addrs: Vec<String> = cols.addrs.values.iter().map(|a| a.to_ip().to_string()).collect();
    d.set_item("addrs", addrs)?;
    Ok(())
}

fn analysis_columns(py: Python<'_>, d: &Bound<'_, PyDict>, c: AnalysisColumns) -> PyResult<()> {
    wire_columns(py, d, c.wire)?;
    d.set_item("data_dir", PyArray1::from_vec(py, c.data_dir))?;
    d.set_item("rwnd", PyArray1::from_vec(py, c.rwnd))?;
    d.set_item("rwnd_basis", PyArray1::from_vec(py, c.rwnd_basis))?;
    d.set_item("in_flight", PyArray1::from_vec(py, c.in_flight))?;
    d.set_item("unacked", PyArray1::from_vec(py, c.unacked))?;
    d.set_item("sacked", PyArray1::from_vec(py, c.sacked))?;
    d.set_item("cwnd", PyArray1::from_vec(py, c.cwnd))?;
    d.set_item("cwnd_conf", PyArray1::from_vec(py, c.cwnd_conf))?;
    d.set_item("limit", PyArray1::from_vec(py, c.limit))?;
    d.set_item("retrans", PyArray1::from_vec(py, c.retrans))?;
    d.set_item("retrans_of", PyArray1::from_vec(py, c.retrans_of))?;
    d.set_item("dsack", PyArray1::from_vec(py, c.dsack))?;
    d.set_item("spurious_of", PyArray1::from_vec(py, c.spurious_of))?;
    d.set_item("spurious_by", PyArray1::from_vec(py, c.spurious_by))?;
    d.set_item("reorder_packets", PyArray1::from_vec(py, c.reorder_packets))?;
    d.set_item("reorder_bytes", PyArray1::from_vec(py, c.reorder_bytes))?;
    d.set_item("reorder_ns", PyArray1::from_vec(py, c.reorder_ns))?;
    d.set_item("lost_before", PyArray1::from_vec(py, c.lost_before))?;
    d.set_item("dup_ack", PyArray1::from_vec(py, c.dup_ack))?;
    d.set_item("zero_window", PyArray1::from_vec(py, c.zero_window))?;
    d.set_item("zero_window_probe", PyArray1::from_vec(py, c.zero_window_probe))?;
    d.set_item("window_full", PyArray1::from_vec(py, c.window_full))?;
    d.set_item("keepalive", PyArray1::from_vec(py, c.keepalive))?;
    d.set_item("duplicate", PyArray1::from_vec(py, c.duplicate))?;
    d.set_item("rtt_ns", PyArray1::from_vec(py, c.rtt_ns))?;
    d.set_item("sack_row", PyArray1::from_vec(py, c.sack_row))?;
    d.set_item("sack_left", PyArray1::from_vec(py, c.sack_left))?;
    d.set_item("sack_right", PyArray1::from_vec(py, c.sack_right))?;
    Ok(())
}

/// What a chunked scan collects: the wire columns only, or with the analysis.
enum Collect {
    Wire,
    Analysis(Analyzer<AnalysisColumns>),
}

/// Iterates over the packets table in chunks of at most `chunk_rows` rows, each a dict of
/// numpy arrays plus `addrs` (the distinct addresses that `src`/`dst` codes index).
/// With `analysis=True` the analysis columns come too, and `result()` has verdicts.
#[pyclass(unsendable)]
struct PacketChunks {
    path: String,
    scanner: Option<Scanner>,
    collect: Option<Collect>,
    chunk_rows: u64,
    vantage: Option<Vantage>,
    finished: Option<Scan>,
}

#[pymethods]
impl PacketChunks {
    #[new]
    #[pyo3(signature = (path, chunk_rows = 1_000_000, analysis = false, vantage = None))]
    fn new(py: Python<'_>, path: &str, chunk_rows: u64, analysis: bool, vantage: Option<&str>) -> PyResult<Self> {
        let vantage = parse_vantage(vantage)?;
        let (scanner, finished) = match py.detach(|| guarded(path, || etl::open_source(path)))? {
            Ok(r) => (Some(Scanner::boxed(r)), None),
            Err(e) => (None, Some(Scan { flows: Vec::new(), stats: ScanStats::default(), error: Some(e) })),
        };
        let collect = if analysis { Collect::Analysis(Analyzer::new(AnalysisColumns::default())) } else { Collect::Wire };
        Ok(PacketChunks {
            path: path.to_string(),
            scanner,
            collect: Some(collect),
            chunk_rows: chunk_rows.max(1),
            vantage,
            finished,
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(mut scanner) = self.scanner.take() else { return Ok(None) };
        let Some(mut collect) = self.collect.take() else { return Ok(None) };
        let rows = self.chunk_rows;
        let path = self.path.clone();
        let (scanner, collect, wire, analysed, more) = py.detach(move || {
            guarded(&path, move || {
                let mut wire = PacketColumns::default();
                let mut analysed = None;
                let more = match &mut collect {
                    Collect::Wire => scanner.advance(&mut wire, rows),
                    Collect::Analysis(a) => {
                        let more = scanner.advance(a, rows);
                        analysed = Some(std::mem::take(&mut a.out));
                        more
                    }
                };
                (scanner, collect, wire, analysed, more)
            })
        })?;
        self.collect = Some(collect);
        if more {
            self.scanner = Some(scanner);
        } else {
            self.finished = Some(scanner.finish());
        }
        let d = PyDict::new(py);
        match analysed {
            Some(cols) if !cols.is_empty() => analysis_columns(py, &d, cols)?,
            None if !wire.is_empty() => wire_columns(py, &d, wire)?,
            _ => return Ok(None),
        }
        Ok(Some(d))
    }

    /// After iteration: `{"flows", "stats", "error"}` as from `scan_flows`, plus
    /// `"verdicts"` when the analysis ran.
    fn result<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(scan) = &self.finished else { return Ok(None) };
        let d = result_dict(py, scan)?;
        if let Some(Collect::Analysis(a)) = &self.collect {
            d.set_item("verdicts", verdict_list(py, &scan.flows, &judge_all(&a.flows, &scan.flows, self.vantage))?)?;
        }
        Ok(Some(d))
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(scan_flows, m)?)?;
    m.add_function(wrap_pyfunction!(write_packets_csv, m)?)?;
    m.add_function(wrap_pyfunction!(write_annotations, m)?)?;
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_class::<PacketChunks>()?;
    etl::register(m)?;
    parallel::register(m)?;
    Ok(())
}
