//! Outputs written straight from Rust while the capture is read: the packets table as
//! CSV, and the Wireshark plugin's annotations.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use tcpdiag_core::analyse::Analyzer;
use tcpdiag_core::emit::annotations::Annotations;
use tcpdiag_core::emit::csv::PacketCsv;
use tcpdiag_core::pipeline::{scan, Scan};

use crate::{guarded, judge_options, open, result_dict};

fn written<'py>(py: Python<'py>, scan: &Scan, write_err: Option<std::io::Error>) -> PyResult<Bound<'py, PyDict>> {
    let d = result_dict(py, scan)?;
    d.set_item("write_error", write_err.map(|e| e.to_string()))?;
    Ok(d)
}

/// Writes the Wireshark plugin's annotations of a capture (emit/annotations.rs) to `out`.
#[pyfunction]
#[pyo3(signature = (path, out, vantage = None))]
fn write_annotations<'py>(py: Python<'py>, path: &str, out: &str, vantage: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
    let opts = judge_options(vantage, None)?;
    let reader = match open(py, path)? {
        Ok(r) => r,
        Err(failed) => return written(py, &failed, None),
    };
    let (out_path, capture) = (out.to_string(), path.to_string());
    let capture_bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    let (scan, write_err) = py
        .detach(|| {
            guarded(path, move || -> std::io::Result<(Scan, Option<std::io::Error>)> {
                let file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&out_path)?);
                let mut analyzer = Analyzer::new(Annotations::new(file, &capture, capture_bytes), opts);
                let scan = scan(reader, &mut analyzer);
                let (verdicts, out) = analyzer.finish(&scan.flows);
                let err = out.finish(&scan.flows, &verdicts).err();
                Ok((scan, err))
            })
        })?
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{out}: {e}")))?;
    written(py, &scan, write_err)
}

/// Streams the packets table as CSV to `out` ("-" for standard output), with the
/// analysis columns when `analysis` is true.
#[pyfunction]
#[pyo3(signature = (path, out, analysis = false))]
fn write_packets_csv<'py>(py: Python<'py>, path: &str, out: &str, analysis: bool) -> PyResult<Bound<'py, PyDict>> {
    let reader = match open(py, path)? {
        Ok(r) => r,
        Err(failed) => return written(py, &failed, None),
    };
    let out_path = out.to_string();
    let (scan, write_err) = py
        .detach(|| {
            guarded(path, move || -> std::io::Result<(Scan, Option<std::io::Error>)> {
                let sink: Box<dyn std::io::Write> = if out_path == "-" {
                    Box::new(std::io::stdout().lock())
                } else {
                    Box::new(std::fs::File::create(&out_path)?)
                };
                let buffered = std::io::BufWriter::with_capacity(1 << 20, sink);
                if analysis {
                    let mut analyzer = Analyzer::new(PacketCsv::with_analysis(buffered), Default::default());
                    let scan = scan(reader, &mut analyzer);
                    let (_, out) = analyzer.finish(&scan.flows);
                    Ok((scan, out.finish().err()))
                } else {
                    let mut csv = PacketCsv::new(buffered);
                    let scan = scan(reader, &mut csv);
                    Ok((scan, csv.finish().err()))
                }
            })
        })?
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{out}: {e}")))?;
    written(py, &scan, write_err)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(write_packets_csv, m)?)?;
    m.add_function(wrap_pyfunction!(write_annotations, m)?)?;
    Ok(())
}
