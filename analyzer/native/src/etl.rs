//! Windows ETL traces (pktmon, `netsh trace`) in the native module: the reader chosen by
//! content for every table, conversion to pcapng, and the Microsoft-Windows-TCPIP events.
//!
//! The observation point PktMon copies are read from (`--etl-component`) is a process-wide
//! setting, `etl_set_component`, so that every table function keeps its signature.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use tcpdiag_core::ingest::{CaptureReader, Format, FrameSource, IngestError, IngestErrorKind, Input, RandomAccess};
use tcpdiag_etl::tcpip::Value;
use tcpdiag_etl::{looks_like_etl, ComponentChoice, ConvertError, ConvertOptions, EtlReader, EtlSource, EtlStats, Mode, ReaderOptions};

use crate::{error_dict, guarded};

static COMPONENT: Mutex<Option<String>> = Mutex::new(None);

fn component() -> ComponentChoice {
    let c = COMPONENT.lock().map(|c| c.clone()).unwrap_or(None);
    c.as_deref().unwrap_or("auto").parse().unwrap_or_default()
}

/// True when the opened input is an ETL trace: by its first bytes, or — for a damaged
/// file that is no other format either — by the `.etl` extension, so its error names the
/// ETL problem.
fn is_etl(input: &Input, path: &str) -> bool {
    if looks_like_etl(input.head()) {
        return true;
    }
    let ext = Path::new(path).extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("etl"));
    ext && input.format() == Format::Unknown && !input.head().is_empty()
}

/// The frame source for any input, opened once: the ETL reader for ETL traces, else the
/// capture reader.
pub(crate) fn open_source(path: &str) -> Result<Box<dyn FrameSource>, IngestError> {
    let input = Input::open(Path::new(path))?;
    if is_etl(&input, path) {
        return Ok(Box::new(EtlSource::from_input(input, &component())?));
    }
    Ok(Box::new(CaptureReader::from_input(input)?))
}

/// An ETL trace's random-access view, opened once; an input that is not one is an error.
fn open_etl(path: &str) -> Result<RandomAccess, IngestError> {
    let input = Input::open(Path::new(path))?;
    if !is_etl(&input, path) {
        let what = "not an ETL trace (pktmon, netsh trace), the only input `convert` and the ETL functions read".to_string();
        return Err(IngestError::new(IngestErrorKind::Unsupported(what), 0, 0));
    }
    input.into_random_access("an ETL trace")
}

/// Sets the observation point for ETL traces: "auto" (default), "all", "first", a
/// component id, or text matching one component's name; `None` resets to "auto".
#[pyfunction]
#[pyo3(signature = (component = None))]
fn etl_set_component(component: Option<String>) {
    if let Ok(mut c) = COMPONENT.lock() {
        *c = component;
    }
}

/// True when the file is read as an ETL trace (the file is opened once to look).
#[pyfunction]
fn etl_is_trace(py: Python<'_>, path: &str) -> bool {
    py.detach(|| Input::open(Path::new(path)).is_ok_and(|input| is_etl(&input, path)))
}

fn etl_stats_dict<'py>(py: Python<'py>, s: &EtlStats) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let pairs = [
        ("buffers", s.buffers),
        ("compressed_buffers", s.compressed_buffers),
        ("events", s.events),
        ("packet_events", s.packet_events),
        ("frames", s.frames),
        ("frames_filtered", s.frames_filtered),
        ("drops", s.drops),
        ("events_lost", s.events_lost),
        ("buffers_lost", s.buffers_lost),
        ("corrupt_records", s.corrupt_records),
        ("corrupt_buffers", s.corrupt_buffers),
        ("schemas", s.schemas),
        ("wifi_typed_ethernet", s.wifi_typed_ethernet),
        ("malformed_packet_events", s.malformed_packet_events),
        ("decompressed_bytes", s.decompressed_bytes),
    ];
    for (k, v) in pairs {
        d.set_item(k, v)?;
    }
    Ok(d)
}

/// Converts an ETL trace to pcapng at `out` ("-" = stdout). Returns `{"frames",
/// "interfaces", "comments_dropped", "stats", "error"}`; output failures raise OSError.
#[pyfunction]
#[pyo3(signature = (path, out, compat = false, component = None))]
fn etl_convert<'py>(py: Python<'py>, path: &str, out: &str, compat: bool, component: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
    let opts = ConvertOptions {
        mode: if compat { Mode::Etl2pcapng } else { Mode::Default },
        component: component.unwrap_or("auto").parse().unwrap_or_default(),
    };
    let (src, out_path) = (path.to_string(), out.to_string());
    let res = py.detach(|| {
        guarded(path, move || -> Result<tcpdiag_etl::ConvertSummary, ConvertError> {
            // The input is checked before the output is created: a bad trace leaves no file.
            let ra = open_etl(&src).map_err(ConvertError::Input)?;
            let check = ReaderOptions { prescan_metadata: false, ..ReaderOptions::default() };
            EtlReader::from_random_access(ra.try_clone().map_err(|e| ConvertError::Input(IngestError::new(IngestErrorKind::Io(e.to_string()), 0, 0)))?, check)
                .map_err(ConvertError::Input)?;
            let sink: Box<dyn Write> = if out_path == "-" {
                Box::new(std::io::stdout().lock())
            } else {
                Box::new(std::fs::File::create(&out_path)?)
            };
            let w = std::io::BufWriter::with_capacity(1 << 20, sink);
            let reopen = |ro| {
                let view = ra.try_clone().map_err(|e| IngestError::new(IngestErrorKind::Io(e.to_string()), 0, 0))?;
                EtlReader::from_random_access(view, ro)
            };
            let (summary, mut w) = tcpdiag_etl::convert(reopen, w, &opts)?;
            w.flush()?;
            Ok(summary)
        })
    })?;
    let d = PyDict::new(py);
    match res {
        Ok(s) => {
            d.set_item("frames", s.frames)?;
            d.set_item("interfaces", s.interfaces)?;
            d.set_item("comments_dropped", s.comments_dropped)?;
            d.set_item("stats", etl_stats_dict(py, &s.stats)?)?;
            d.set_item("error", s.error.as_ref().map(|e| error_dict(py, e)).transpose()?)?;
        }
        Err(ConvertError::Input(e)) => {
            d.set_item("frames", 0)?;
            d.set_item("interfaces", 0)?;
            d.set_item("comments_dropped", 0)?;
            d.set_item("stats", PyDict::new(py))?;
            d.set_item("error", error_dict(py, &e)?)?;
        }
        Err(ConvertError::Output(e)) => return Err(PyOSError::new_err(format!("{out}: {e}"))),
    }
    Ok(d)
}

/// PktMon components named in the trace: list of `(id, name, description)`.
#[pyfunction]
fn etl_components<'py>(py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match py.detach(|| guarded(path, || open_etl(path).and_then(|ra| EtlReader::from_random_access(ra, ReaderOptions::default()))))? {
        Ok(r) => {
            let rows: Vec<(u16, String, String)> = r.components().values().map(|c| (c.id, c.name.clone(), c.description.clone())).collect();
            d.set_item("components", rows)?;
            d.set_item("error", py.None())?;
        }
        Err(e) => {
            d.set_item("components", PyList::empty(py))?;
            d.set_item("error", error_dict(py, &e)?)?;
        }
    }
    Ok(d)
}

/// Microsoft-Windows-TCPIP events as columns: `ts_ns, event_id, event, pid, tid, tcb,
/// local_addr, local_port, remote_addr, remote_port` and one column per event property
/// (integers, text, or hex for bytes; None where an event lacks it). Also "stats",
/// "error" and "connections" (Tcb intervals).
#[pyfunction]
fn etl_tcpip_events<'py>(py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyDict>> {
    let read = py.detach(|| {
        guarded(path, || -> Result<(EtlReader<std::io::BufReader<RandomAccess>>, Option<IngestError>), IngestError> {
            let opts = ReaderOptions { observation: tcpdiag_etl::ObservationFilter::All, ..ReaderOptions::default() };
            let mut r = EtlReader::from_random_access(open_etl(path)?, opts)?;
            let err = loop {
                match r.next_frame() {
                    Ok(Some(_)) => {}
                    Ok(None) => break None,
                    Err(e) => break Some(e),
                }
            };
            Ok((r, err))
        })
    })?;
    let d = PyDict::new(py);
    let (r, err) = match read {
        Ok(x) => x,
        Err(e) => {
            d.set_item("columns", PyDict::new(py))?;
            d.set_item("connections", PyList::empty(py))?;
            d.set_item("stats", PyDict::new(py))?;
            d.set_item("error", error_dict(py, &e)?)?;
            return Ok(d);
        }
    };
    let table = r.tcpip();
    let conns = table.connections();
    let which = table.resolve(&conns);
    let cols = PyDict::new(py);
    let rows = &table.rows;
    cols.set_item("ts_ns", rows.iter().map(|e| e.ts_ns).collect::<Vec<_>>())?;
    cols.set_item("event_id", rows.iter().map(|e| e.event_id).collect::<Vec<_>>())?;
    cols.set_item("event", rows.iter().map(|e| e.name.clone()).collect::<Vec<_>>())?;
    cols.set_item("pid", rows.iter().map(|e| e.process_id).collect::<Vec<_>>())?;
    cols.set_item("tid", rows.iter().map(|e| e.thread_id).collect::<Vec<_>>())?;
    cols.set_item("tcb", rows.iter().map(|e| e.uint("Tcb")).collect::<Vec<_>>())?;
    let conn = |i: usize| which[i].map(|c| &conns[c]);
    cols.set_item("local_addr", (0..rows.len()).map(|i| conn(i).map(|c| c.local.ip().to_string())).collect::<Vec<_>>())?;
    cols.set_item("local_port", (0..rows.len()).map(|i| conn(i).map(|c| c.local.port())).collect::<Vec<_>>())?;
    cols.set_item("remote_addr", (0..rows.len()).map(|i| conn(i).map(|c| c.remote.ip().to_string())).collect::<Vec<_>>())?;
    cols.set_item("remote_port", (0..rows.len()).map(|i| conn(i).map(|c| c.remote.port())).collect::<Vec<_>>())?;
    let mut names: Vec<&str> = Vec::new();
    for e in rows {
        for (n, _) in &e.fields {
            if !names.contains(&n.as_str()) && !matches!(n.as_str(), "Tcb" | "LocalAddress" | "RemoteAddress") {
                names.push(n);
            }
        }
    }
    for n in names {
        let values = PyList::empty(py);
        for e in rows {
            match e.get(n) {
                None => values.append(py.None())?,
                Some(Value::UInt(v)) => values.append(*v)?,
                Some(Value::Text(t)) => values.append(t)?,
                Some(Value::Bytes(b)) => values.append(b.iter().map(|x| format!("{x:02x}")).collect::<String>())?,
            }
        }
        cols.set_item(n, values)?;
    }
    let cl = PyList::empty(py);
    for c in &conns {
        let cd = PyDict::new(py);
        cd.set_item("tcb", c.tcb)?;
        cd.set_item("local_addr", c.local.ip().to_string())?;
        cd.set_item("local_port", c.local.port())?;
        cd.set_item("remote_addr", c.remote.ip().to_string())?;
        cd.set_item("remote_port", c.remote.port())?;
        cd.set_item("from_ns", (c.from_ns != i64::MIN).then_some(c.from_ns))?;
        cd.set_item("until_ns", (c.until_ns != i64::MAX).then_some(c.until_ns))?;
        cl.append(cd)?;
    }
    d.set_item("columns", cols)?;
    d.set_item("connections", cl)?;
    d.set_item("dropped_rows", table.dropped_rows)?;
    d.set_item("stats", etl_stats_dict(py, &r.stats())?)?;
    d.set_item("error", err.as_ref().map(|e| error_dict(py, e)).transpose()?)?;
    Ok(d)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(etl_set_component, m)?)?;
    m.add_function(wrap_pyfunction!(etl_is_trace, m)?)?;
    m.add_function(wrap_pyfunction!(etl_convert, m)?)?;
    m.add_function(wrap_pyfunction!(etl_components, m)?)?;
    m.add_function(wrap_pyfunction!(etl_tcpip_events, m)?)?;
    Ok(())
}
