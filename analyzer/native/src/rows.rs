//! Batches read as Python values without pyarrow: the terminal and JSON reports need a few
//! rows of the flows and findings tables, and importing pyarrow (and numpy with it) cost
//! more than the analysis of a small capture (~0.2 s and ~45 MB).
//!
//! Values come out as pyarrow's `to_pylist` gives them, except times: int nanoseconds since
//! the epoch, as `tcpdiag.tables.rows` gives them.

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, TimestampNanosecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use pyo3::IntoPyObjectExt;

use tcpdiag_core::emit::flows_table::SEVERITIES;

use crate::batch::Batch;

/// Every value of `a` (nulls as None).
fn values(py: Python<'_>, a: &dyn Array) -> PyResult<Vec<Py<PyAny>>> {
    fn each<T: for<'py> IntoPyObject<'py> + Copy>(
        py: Python<'_>,
        a: &dyn Array,
        get: impl Fn(usize) -> T,
    ) -> PyResult<Vec<Py<PyAny>>> {
        (0..a.len()).map(|i| if a.is_null(i) { Ok(py.None()) } else { get(i).into_py_any(py) }).collect()
    }
    match a.data_type() {
        DataType::Boolean => each(py, a, |i| a.as_boolean().value(i)),
        DataType::UInt8 => each(py, a, |i| a.as_primitive::<UInt8Type>().value(i)),
        DataType::UInt16 => each(py, a, |i| a.as_primitive::<UInt16Type>().value(i)),
        DataType::UInt32 => each(py, a, |i| a.as_primitive::<UInt32Type>().value(i)),
        DataType::UInt64 => each(py, a, |i| a.as_primitive::<UInt64Type>().value(i)),
        DataType::Int32 => each(py, a, |i| a.as_primitive::<Int32Type>().value(i)),
        DataType::Int64 => each(py, a, |i| a.as_primitive::<Int64Type>().value(i)),
        DataType::Float64 => each(py, a, |i| a.as_primitive::<Float64Type>().value(i)),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => each(py, a, |i| a.as_primitive::<TimestampNanosecondType>().value(i)),
        DataType::Utf8 => {
            let s = a.as_string::<i32>();
            (0..a.len()).map(|i| Ok(if a.is_null(i) { py.None() } else { PyString::new(py, s.value(i)).into_any().unbind() })).collect()
        }
        DataType::Dictionary(_, _) => {
            let d = a.as_any_dictionary();
            let words = values(py, d.values().as_ref())?;
            if words.is_empty() {
                // Only nulls can point into no words (normalized_keys would panic).
                return Ok((0..a.len()).map(|_| py.None()).collect());
            }
            let keys = d.normalized_keys();
            (0..a.len()).map(|i| Ok(if a.is_null(i) { py.None() } else { words[keys[i]].clone_ref(py) })).collect()
        }
        DataType::List(_) => {
            let l = a.as_list::<i32>();
            let offsets = l.value_offsets();
            let (first, last) = (offsets[0] as usize, offsets[a.len()] as usize);
            let items = values(py, l.values().slice(first, last - first).as_ref())?;
            (0..a.len())
                .map(|i| {
                    if a.is_null(i) {
                        return Ok(py.None());
                    }
                    let (lo, hi) = (offsets[i] as usize - first, offsets[i + 1] as usize - first);
                    Ok(PyList::new(py, items[lo..hi].iter().map(|v| v.clone_ref(py)))?.into_any().unbind())
                })
                .collect()
        }
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let columns = s.columns().iter().map(|c| values(py, c.as_ref())).collect::<PyResult<Vec<_>>>()?;
            (0..a.len())
                .map(|i| {
                    if a.is_null(i) {
                        return Ok(py.None());
                    }
                    let d = PyDict::new(py);
                    for (f, c) in fields.iter().zip(&columns) {
                        d.set_item(f.name(), &c[i])?;
                    }
                    Ok(d.into_any().unbind())
                })
                .collect()
        }
        other => Err(PyValueError::new_err(format!("internal error: no Python values for Arrow type {other}"))),
    }
}

/// The rows `offset..offset + length` of `batch` as dicts, columns in schema order.
pub fn rows<'py>(py: Python<'py>, batch: &RecordBatch, offset: usize, length: usize) -> PyResult<Bound<'py, PyList>> {
    let offset = offset.min(batch.num_rows());
    let length = length.min(batch.num_rows() - offset);
    let part = batch.slice(offset, length);
    let columns = part.columns().iter().map(|c| values(py, c.as_ref())).collect::<PyResult<Vec<_>>>()?;
    let schema = part.schema();
    let out = PyList::empty(py);
    for i in 0..length {
        let d = PyDict::new(py);
        for (f, c) in schema.fields().iter().zip(&columns) {
            d.set_item(f.name(), &c[i])?;
        }
        out.append(d)?;
    }
    Ok(out)
}

/// One column of `batch` as a list.
pub fn column<'py>(py: Python<'py>, batch: &RecordBatch, name: &str) -> PyResult<Bound<'py, PyList>> {
    let c = batch.column_by_name(name).ok_or_else(|| PyKeyError::new_err(name.to_string()))?;
    PyList::new(py, values(py, c.as_ref())?)
}

/// What orders one flow among the others (see [`worst_first`]).
struct Rank {
    severity: usize,
    share: f64,
    data: u64,
    stream: u32,
}

fn ranks(b: &RecordBatch) -> PyResult<Vec<Rank>> {
    let col = |name: &str| b.column_by_name(name).ok_or_else(|| PyKeyError::new_err(name.to_string()));
    let sev = col("severity")?.as_any_dictionary();
    let words = sev.values().as_string::<i32>();
    let rank_of: Vec<usize> = (0..words.len()).map(|i| SEVERITIES.iter().position(|s| *s == words.value(i)).unwrap_or(0)).collect();
    let keys = if words.is_empty() { vec![0; b.num_rows()] } else { sev.normalized_keys() };
    let share = col("verdict_share")?.as_primitive::<Float64Type>().clone();
    let data = col("data_bytes")?.as_primitive::<UInt64Type>().clone();
    let stream = col("stream")?.as_primitive::<UInt32Type>().clone();
    Ok((0..b.num_rows())
        .map(|i| Rank { severity: rank_of.get(keys[i]).copied().unwrap_or(0), share: share.value(i), data: data.value(i), stream: stream.value(i) })
        .collect())
}

/// Row numbers of a diagnosis' flows table (its batches in order), worst flow first: the
/// primary finding's severity, then the share of time it explains, then the data carried,
/// then the stream number. The order of every report.
#[pyfunction]
pub fn worst_first(py: Python<'_>, batches: Vec<Py<Batch>>) -> PyResult<Vec<usize>> {
    let mut all = Vec::new();
    for b in &batches {
        all.extend(ranks(b.get().record_batch())?);
    }
    py.detach(|| {
        // NaN shares (none are expected) sort after every number, as NumPy's sort put them.
        let desc = |x: f64, y: f64| match (x.is_nan(), y.is_nan()) {
            (false, false) => y.partial_cmp(&x).unwrap_or(Ordering::Equal),
            (a, b) => a.cmp(&b),
        };
        let mut idx: Vec<usize> = (0..all.len()).collect();
        idx.sort_by(|&i, &j| {
            let (a, b) = (&all[i], &all[j]);
            b.severity.cmp(&a.severity).then(desc(a.share, b.share)).then(b.data.cmp(&a.data)).then(a.stream.cmp(&b.stream))
        });
        Ok(idx)
    })
}
