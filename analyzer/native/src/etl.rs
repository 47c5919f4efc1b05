//! Windows ETL traces (pktmon, `netsh trace`) in the native module: the reader chosen by
//! content for every table, conversion to pcapng, and the Microsoft-Windows-TCPIP events.
//!
//! The observation point PktMon copies are read from (`--etl-component`) is a process-wide
//! setting, `etl_set_component`, so that every table function keeps its signature.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::Mutex;

use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use tcpdiag_core::ingest::{CaptureReader, FrameSource, IngestError};
use tcpdiag_etl::tcpip::Value;
use tcpdiag_etl::{looks_like_etl, ComponentChoice, ConvertError, ConvertOptions, EtlReader, EtlSource, EtlStats, Mode, ReaderOptions};

use crate::{error_dict, guarded};

static COMPONENT: Mutex<Option<String>> = Mutex::new(None);

fn component() -> ComponentChoice {
    let c = COMPONENT.lock().map(|c| c.clone()).unwrap_or(None);
    c.as_deref().unwrap_or("auto").parse().unwrap_or_default()
}

/// True when `path` holds an ETL trace: by its first bytes, or — for a damaged file that
/// is not a pcap, pcapng or gzip one either — by the `.etl` extension, so its error names
/// the ETL problem.
fn is_etl(path: &str) -> bool {
    if path == "-" {
        return false;
    }
    let mut head = [0u8; tcpdiag_etl::reader::SNIFF_LEN];
    let n = match std::fs::File::open(path) {
        Ok(mut f) => read_up_to(&mut f, &mut head),
        Err(_) => return false,
    };
    if looks_like_etl(&head[..n]) {
        return true;
    }
    let other_format = [&[0xd4, 0xc3, 0xb2, 0xa1][..], &[0xa1, 0xb2, 0xc3, 0xd4], &[0x4d, 0x3c, 0xb2, 0xa1], &[0xa1, 0xb2, 0x3c, 0x4d], &[0x0a, 0x0d, 0x0d, 0x0a], &[0x1f, 0x8b]]
        .iter()
        .any(|m| head[..n].starts_with(m));
    let ext = Path::new(path).extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("etl"));
    ext && n > 0 && !other_format
}

fn read_up_to(f: &mut impl Read, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    n
}

/// The frame source for any input: the ETL reader for ETL traces, else the capture reader.
pub(crate) fn open_source(path: &str) -> Result<Box<dyn FrameSource>, IngestError> {
    if is_etl(path) {
        return Ok(Box::new(EtlSource::open(path, &component())?));
    }
    Ok(Box::new(CaptureReader::open(Path::new(path))?))
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

/// True when the file is read as an ETL trace.
#[pyfunction]
fn etl_is_trace(path: &str) -> bool {
    is_etl(path)
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
            EtlReader::open_with(&src, ReaderOptions { prescan_metadata: false, ..ReaderOptions::default() })
                .map_err(ConvertError::Input)?;
            let sink: Box<dyn Write> = if out_path == "-" {
                Box::new(std::io::stdout().lock())
            } else {
                Box::new(std::fs::File::create(&out_path)?)
            };
            let w = std::io::BufWriter::with_capacity(1 << 20, sink);
            let (summary, mut w) = tcpdiag_etl::convert_file(Path::new(&src), w, &opts)?;
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
    match guarded(path, || EtlReader::open(path))? {
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
        guarded(path, || -> Result<(EtlReader, Option<IngestError>), IngestError> {
            let opts = ReaderOptions { observation: tcpdiag_etl::ObservationFilter::All, ..ReaderOptions::default() };
            let mut r = EtlReader::open_with(path, opts)?;
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
