//! The scaling entry points: analysis on N cores, rotated pieces merged, capture filters,
//! idle-flow eviction (`analyze_scaled`), and live capture (`LiveSession`).

use std::time::Duration;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use tcpdiag_core::bpf::FrameFilter;
use tcpdiag_core::ingest::merge::MergedSource;
use tcpdiag_core::live::LiveCapture;
use tcpdiag_core::parallel::{run, run_file, run_on, EngineOptions, EngineStats, Outcome};
use tcpdiag_core::pipeline::{Scan, ScanStats};

use super::{guarded, judge_options};
use crate::tables::analysis_result;

fn engine_options(
    jobs: usize,
    vantage: Option<&str>,
    target_bps: Option<f64>,
    idle_timeout: Option<f64>,
    close_grace: f64,
) -> PyResult<EngineOptions> {
    let secs = |s: f64| (s * 1e9) as i64;
    if idle_timeout.is_some_and(|t| t <= 0.0) || close_grace < 0.0 {
        return Err(PyValueError::new_err("idle timeout must be positive"));
    }
    Ok(EngineOptions {
        jobs: jobs.max(1),
        idle_timeout_ns: idle_timeout.map(secs),
        close_grace_ns: secs(close_grace),
        judge: judge_options(vantage, target_bps)?,
    })
}

fn filter_of(expr: Option<&str>) -> PyResult<Option<FrameFilter>> {
    expr.map(|e| FrameFilter::new(e).map_err(|m| PyValueError::new_err(format!("filter {e:?}: {m}")))).transpose()
}

fn engine_dict<'py>(py: Python<'py>, e: &EngineStats, episodes: &[(u32, u32)]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("peak_active", e.peak_active)?;
    d.set_item("evicted", e.evicted)?;
    d.set_item("resumed", e.resumed)?;
    d.set_item("filtered_out", e.filtered_out)?;
    d.set_item("episodes", episodes.to_vec())?;
    Ok(d)
}

fn outcome_dict<'py>(py: Python<'py>, o: Outcome) -> PyResult<Bound<'py, PyDict>> {
    let d = analysis_result(py, &o.scan, &o.scan.flows, o.verdicts)?;
    d.set_item("engine", engine_dict(py, &o.engine, &o.episodes)?)?;
    Ok(d)
}

/// Like `analyze`, over one capture or several merged by time, with `jobs` analysis
/// threads, an optional tcpdump filter and idle-flow eviction (`idle_timeout` seconds of
/// capture time, `None` = never). Adds `"engine"`: peak active flows, evictions, episodes;
/// an error dict carries `"input"`, the index of the capture that failed.
#[pyfunction]
#[pyo3(signature = (paths, jobs = 1, vantage = None, filter = None, idle_timeout = None, close_grace = 1.0, target_bps = None))]
#[allow(clippy::too_many_arguments)]
fn analyze_scaled<'py>(
    py: Python<'py>,
    paths: Vec<String>,
    jobs: usize,
    vantage: Option<&str>,
    filter: Option<&str>,
    idle_timeout: Option<f64>,
    close_grace: f64,
    target_bps: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    if paths.is_empty() {
        return Err(PyValueError::new_err("no capture given"));
    }
    let opts = engine_options(jobs, vantage, target_bps, idle_timeout, close_grace)?;
    let filter = filter_of(filter)?;
    let mut readers = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        match py.detach(|| guarded(p, || super::etl::open_source(p)))? {
            Ok(r) => readers.push(r),
            Err(e) => {
                let scan = Scan { flows: Vec::new(), stats: ScanStats::default(), error: Some(e) };
                let d = analysis_result(py, &scan, &[], Vec::new())?;
                d.get_item("error")?.unwrap().set_item("input", i)?;
                return Ok(d);
            }
        }
    }
    let what = paths.join(", ");
    let (outcome, failed) = py.detach(|| {
        guarded(&what, move || {
            if readers.len() == 1 {
                // A plain pcap file on several cores: every thread reads a share of it.
                let ranged = run_file(std::path::Path::new(&paths[0]), &opts, filter.as_ref());
                (ranged.unwrap_or_else(|| run(readers.pop().unwrap(), opts, filter)), Some(0))
            } else {
                let mut src = MergedSource::new(readers);
                let o = run_on(&mut src, opts, filter);
                (o, src.failed_input())
            }
        })
    })?;
    let d = outcome_dict(py, outcome)?;
    if let Some(err) = d.get_item("error")?.filter(|e| !e.is_none()) {
        err.set_item("input", failed.unwrap_or(0))?;
    }
    Ok(d)
}

/// A live capture on one interface, analysed as it arrives (one core).
#[pyclass(unsendable)]
struct LiveSession {
    cap: Option<LiveCapture>,
    iface: String,
}

#[pymethods]
impl LiveSession {
    #[new]
    #[pyo3(signature = (iface, filter = None, snaplen = 262_144, vantage = None, idle_timeout = Some(300.0), close_grace = 1.0))]
    fn new(iface: &str, filter: Option<&str>, snaplen: u32, vantage: Option<&str>, idle_timeout: Option<f64>, close_grace: f64) -> PyResult<Self> {
        let opts = engine_options(1, vantage, None, idle_timeout, close_grace)?;
        let cap = LiveCapture::open(iface, filter, snaplen, opts).map_err(|m| {
            if m.contains("syntax") || m.contains("filter") || m.contains("expression") {
                PyValueError::new_err(format!("filter: {m}"))
            } else {
                PyOSError::new_err(m)
            }
        })?;
        Ok(LiveSession { cap: Some(cap), iface: iface.to_string() })
    }

    /// Captures for `seconds` (without the GIL).
    fn run_for(&mut self, py: Python<'_>, seconds: f64) -> PyResult<()> {
        let Some(mut cap) = self.cap.take() else { return Err(PyValueError::new_err("session finished")) };
        let iface = self.iface.clone();
        let (cap, r) = py.detach(move || {
            let r = cap.run_for(Duration::from_secs_f64(seconds.max(0.0)));
            (cap, r)
        });
        self.cap = Some(cap);
        r.map_err(|m| PyOSError::new_err(format!("{iface}: {m}")))
    }

    /// Flows with analysis state now and their verdicts if the capture ended now, as
    /// `analyze` returns them.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let Some(cap) = &self.cap else { return Err(PyValueError::new_err("session finished")) };
        let e = cap.engine();
        let mut ids = e.active().to_vec();
        ids.sort_unstable();
        let (flows, verdicts): (Vec<_>, Vec<_>) = ids
            .iter()
            .filter_map(|&i| Some((e.table().flows()[i as usize].clone(), e.judge_now(i)?)))
            .unzip();
        let scan = Scan { flows: Vec::new(), stats: e.scan_stats().clone(), error: None };
        analysis_result(py, &scan, &flows, verdicts)
    }

    /// Ends the capture: every flow judged, as `analyze_scaled` returns.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let Some(cap) = self.cap.take() else { return Err(PyValueError::new_err("session finished")) };
        let o = py.detach(move || cap.finish());
        outcome_dict(py, o)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(analyze_scaled, m)?)?;
    m.add_class::<LiveSession>()?;
    Ok(())
}
