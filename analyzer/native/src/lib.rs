//! `tcpdiag._native`: the private seam between the Rust core and the Python package.
//!
//! Tables cross as Arrow record batches ([`batch::Batch`], the columns emit/schema.rs
//! declares); the few small things beside them (scan statistics, the error) as dicts.
//! Capture problems are *returned* (as an `error` dict beside the partial results), never
//! raised from here: the Python layer decides between a warning and an exception. Rust
//! panics are caught at this boundary and become `RuntimeError` naming the input. The
//! Python signatures are declared in analyzer/tcpdiag/_native.pyi (checked by stubtest).

/// mimalloc for the core's allocations: the analysis of a million small flows allocates and
/// frees millions of small states, which glibc's allocator keeps resident (measured: peak
/// 1.85 GB with glibc, 1.46 GB with mimalloc on a 1M-flow scan, and a third less CPU).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod batch;
mod compare;
mod etl;
mod parallel;
mod rows;
mod tables;
mod writers;

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use tcpdiag_core::analyse::vantage::Vantage;
use tcpdiag_core::analyse::verdict::JudgeOptions;
use tcpdiag_core::ingest::{FrameSource, IngestError, IngestErrorKind};
use tcpdiag_core::pipeline::{Scan, ScanStats};

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

pub(crate) fn stats_dict<'py>(py: Python<'py>, s: &ScanStats) -> PyResult<Bound<'py, PyDict>> {
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

/// `{"stats": …, "error": None | {…}}` of a scan; callers add the tables.
pub(crate) fn result_dict<'py>(py: Python<'py>, scan: &Scan) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("stats", stats_dict(py, &scan.stats)?)?;
    match &scan.error {
        Some(e) => d.set_item("error", error_dict(py, e)?)?,
        None => d.set_item("error", py.None())?,
    }
    Ok(d)
}

/// Opens a capture; on failure the scan that carries only the error. Without the GIL:
/// opening a FIFO waits for its writer, which may be a Python thread.
pub(crate) fn open(py: Python<'_>, path: &str) -> PyResult<Result<Box<dyn FrameSource>, Scan>> {
    Ok(py
        .detach(|| guarded(path, || etl::open_source(path)))?
        .map_err(|e| Scan { flows: Vec::new(), stats: ScanStats::default(), error: Some(e) }))
}

pub(crate) fn judge_options(vantage: Option<&str>, target_bps: Option<f64>) -> PyResult<JudgeOptions> {
    let vantage = match vantage {
        None | Some("auto") => None,
        Some(s) => Some(
            Vantage::parse(s)
                .ok_or_else(|| PyValueError::new_err(format!("unknown vantage {s:?}: sender, receiver, middle or auto")))?,
        ),
    };
    if target_bps.is_some_and(|t| !(t > 0.0 && t.is_finite())) {
        return Err(PyValueError::new_err("target rate must be a positive number of bit/s"));
    }
    Ok(JudgeOptions { vantage, target_bps })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<batch::Batch>()?;
    m.add_function(wrap_pyfunction!(rows::worst_first, m)?)?;
    tables::register(m)?;
    writers::register(m)?;
    etl::register(m)?;
    parallel::register(m)?;
    compare::register(m)?;
    Ok(())
}
