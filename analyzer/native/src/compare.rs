//! `compare`: two captures of the same transfer, their flows matched and what happened
//! between the capture points (the pairs, directions, fates and pair findings tables, the
//! clock alignment), with each capture's own diagnosis beside them.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use tcpdiag_core::compare::{compare as compare_captures, CompareOptions, Comparison};
use tcpdiag_core::emit::compare::{directions_batch, fates_batch, pair_findings_batch, pairs_batch};

use crate::batch::Batch;
use crate::tables::diagnosis_result;
use crate::{guarded, judge_options, open, result_dict};

fn clock_dict<'py>(py: Python<'py>, c: &Comparison) -> PyResult<Bound<'py, PyDict>> {
    let k = &c.clock;
    let d = PyDict::new(py);
    d.set_item("basis", k.basis.name())?;
    d.set_item("offset_ns", k.offset_ns)?;
    d.set_item("lower_ns", k.lower_ns)?;
    d.set_item("upper_ns", k.upper_ns)?;
    d.set_item("uncertainty_ns", k.uncertainty_ns())?;
    d.set_item("drift_ppm", k.drift_ppm)?;
    d.set_item("t_ref_ns", k.t_ref_ns)?;
    d.set_item("flows", k.flows)?;
    Ok(d)
}

/// `{"a": {flows, findings, stats, error}, "b": {…}, "names", and, when both captures were
/// read: "pairs", "directions", "findings", "fates" (None unless asked), "clock",
/// "matched"}`.
#[pyfunction]
#[pyo3(signature = (path_a, path_b, vantage = None, target_bps = None, names = None, fates = false))]
fn compare<'py>(
    py: Python<'py>,
    path_a: &str,
    path_b: &str,
    vantage: Option<&str>,
    target_bps: Option<f64>,
    names: Option<(String, String)>,
    fates: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let opts = CompareOptions { judge: judge_options(vantage, target_bps)?, names: names.map(|(a, b)| [a, b]), fates };
    let out = PyDict::new(py);
    let (ra, rb) = (open(py, path_a)?, open(py, path_b)?);
    let (a, b) = match (ra, rb) {
        (Ok(a), Ok(b)) => (a, b),
        (ra, rb) => {
            // A capture that cannot be opened: its error, nothing compared.
            for (key, r) in [("a", ra), ("b", rb)] {
                let d = match r {
                    Ok(_) => PyDict::new(py),
                    Err(failed) => result_dict(py, &failed)?,
                };
                out.set_item(key, d)?;
            }
            return Ok(out);
        }
    };
    let what = format!("{path_a} and {path_b}");
    let c = py.detach(|| guarded(&what, || compare_captures(a, b, &opts)))?;
    let tables = py.detach(|| {
        guarded(&what, || -> Result<_, arrow_schema::ArrowError> {
            Ok((pairs_batch(&c)?, directions_batch(&c)?, pair_findings_batch(&c)?, fates.then(|| fates_batch(&c.fates)).transpose()?))
        })
    })?;
    let (pairs, directions, findings, fate_rows) = tables.map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("internal error: {e}")))?;
    out.set_item("clock", clock_dict(py, &c)?)?;
    out.set_item("matched", c.matched())?;
    out.set_item("names", c.names.to_vec())?;
    out.set_item("pairs", Batch::new(pairs))?;
    out.set_item("directions", Batch::new(directions))?;
    out.set_item("findings", Batch::new(findings))?;
    out.set_item("fates", fate_rows.map(Batch::new))?;
    let Comparison { a, b, .. } = c;
    out.set_item("a", diagnosis_result(py, &a.scan, a.diagnosis)?)?;
    out.set_item("b", diagnosis_result(py, &b.scan, b.diagnosis)?)?;
    Ok(out)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    Ok(())
}
