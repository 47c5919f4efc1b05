//! `tcpdiag._native`: the private seam between the Rust core and the Python package.
//!
//! Capture problems are *returned* (as an `error` dict beside the partial results), never
//! raised from here: the Python layer decides between a warning and an exception. Rust
//! panics are caught at this boundary and become `RuntimeError` naming the input.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use numpy::PyArray1;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use tcpdiag_core::emit::csv::PacketCsv;
use tcpdiag_core::emit::PacketColumns;
use tcpdiag_core::flow::FlowSummary;
use tcpdiag_core::ingest::{CaptureReader, IngestError, IngestErrorKind};
use tcpdiag_core::pipeline::{scan, NoSink, Scan, ScanStats, Scanner};

fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f))
        .map_err(|_| PyRuntimeError::new_err(format!("{what}: internal error in the native core (please report with the capture)")))
}

fn error_dict<'py>(py: Python<'py>, e: &IngestError) -> PyResult<Bound<'py, PyDict>> {
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
    Ok(d)
}

fn opt<T: Copy>(v: Option<T>) -> Option<T> {
    v
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
        col!(format!("mss_{side}"), |f: &FlowSummary| opt(f.sides[i].syn.mss));
        col!(format!("wscale_{side}"), |f: &FlowSummary| opt(f.sides[i].syn.wscale));
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

/// Opens a capture; on failure returns the result dict carrying only the error.
fn open<'py>(py: Python<'py>, path: &str) -> PyResult<Result<CaptureReader, Bound<'py, PyDict>>> {
    match guarded(path, || CaptureReader::open(Path::new(path)))? {
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

/// Streams the packets table as CSV to `out` ("-" for standard output).
#[pyfunction]
fn write_packets_csv<'py>(py: Python<'py>, path: &str, out: &str) -> PyResult<Bound<'py, PyDict>> {
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
            let mut csv = PacketCsv::new(std::io::BufWriter::with_capacity(1 << 20, sink));
            let scan = scan(reader, &mut csv);
            Ok((scan, csv.finish().err()))
        })
    })?
    .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{out}: {e}")))?;
    let d = result_dict(py, &scan)?;
    d.set_item("write_error", write_err.map(|e| e.to_string()))?;
    Ok(d)
}

/// Iterates over the packets table in chunks of at most `chunk_rows` rows, each a dict of
/// numpy arrays plus `addrs` (the distinct addresses that `src`/`dst` codes index).
#[pyclass(unsendable)]
struct PacketChunks {
    path: String,
    scanner: Option<Scanner>,
    chunk_rows: u64,
    finished: Option<Scan>,
}

#[pymethods]
impl PacketChunks {
    #[new]
    #[pyo3(signature = (path, chunk_rows = 1_000_000))]
    fn new(path: &str, chunk_rows: u64) -> PyResult<Self> {
        let (scanner, finished) = match guarded(path, || CaptureReader::open(Path::new(path)))? {
            Ok(r) => (Some(Scanner::new(r)), None),
            Err(e) => (None, Some(Scan { flows: Vec::new(), stats: ScanStats::default(), error: Some(e) })),
        };
        Ok(PacketChunks { path: path.to_string(), scanner, chunk_rows: chunk_rows.max(1), finished })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(mut scanner) = self.scanner.take() else { return Ok(None) };
        let rows = self.chunk_rows;
        let path = self.path.clone();
        let (scanner, cols, more) = py.detach(move || {
            guarded(&path, move || {
                let mut cols = PacketColumns::default();
                let more = scanner.advance(&mut cols, rows);
                (scanner, cols, more)
            })
        })?;
        if more {
            self.scanner = Some(scanner);
        } else {
            self.finished = Some(scanner.finish());
        }
        if cols.is_empty() {
            return Ok(None);
        }
        let d = PyDict::new(py);
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
        Ok(Some(d))
    }

    /// After iteration: `{"flows", "stats", "error"}` as from `scan_flows`.
    fn result<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        match &self.finished {
            Some(scan) => Ok(Some(result_dict(py, scan)?)),
            None => Ok(None),
        }
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(scan_flows, m)?)?;
    m.add_function(wrap_pyfunction!(write_packets_csv, m)?)?;
    m.add_class::<PacketChunks>()?;
    Ok(())
}
