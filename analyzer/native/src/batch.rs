//! Arrow record batches handed to Python through the Arrow PyCapsule interface: pyarrow
//! (≥ 14) takes a `Batch` with `pyarrow.record_batch(batch)` without copying the columns.

use std::sync::Arc;

use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, RecordBatch, StructArray};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyList};

/// One Arrow record batch (a table or a chunk of one).
#[pyclass(frozen)]
pub struct Batch {
    batch: RecordBatch,
}

impl Batch {
    pub fn new(batch: RecordBatch) -> Batch {
        Batch { batch }
    }

    /// A batch, or the Arrow error as a `RuntimeError` (a schema bug: the builders fill the
    /// columns emit/schema.rs declares).
    pub fn of(r: Result<RecordBatch, arrow_schema::ArrowError>) -> PyResult<Batch> {
        r.map(Batch::new).map_err(|e| PyRuntimeError::new_err(format!("internal error building a table: {e}")))
    }

    pub fn record_batch(&self) -> &RecordBatch {
        &self.batch
    }
}

#[pymethods]
impl Batch {
    /// Rows in the batch.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }

    /// The columns' names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.batch.schema().fields().iter().map(|f| f.name().clone()).collect()
    }

    /// Rows `offset..offset + length` as dicts (`crate::rows`), without pyarrow.
    #[pyo3(signature = (offset = 0, length = usize::MAX))]
    fn rows<'py>(&self, py: Python<'py>, offset: usize, length: usize) -> PyResult<Bound<'py, PyList>> {
        crate::rows::rows(py, &self.batch, offset, length)
    }

    /// One column's values as a list, without pyarrow.
    fn column<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyList>> {
        crate::rows::column(py, &self.batch, name)
    }

    /// The Arrow PyCapsule interface: (schema capsule, array capsule) of the batch as a
    /// struct array. A requested schema other than the batch's own is refused.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema; // a hint the consumer may ignore (Arrow PyCapsule spec)
        let array = StructArray::from(self.batch.clone());
        let data = array.into_data();
        let schema = FFI_ArrowSchema::try_from(data.data_type())
            .map_err(|e| PyValueError::new_err(format!("arrow schema export: {e}")))?;
        let array = FFI_ArrowArray::new(&data);
        Ok((
            PyCapsule::new_with_value(py, schema, c"arrow_schema")?,
            PyCapsule::new_with_value(py, array, c"arrow_array")?,
        ))
    }

    /// The schema alone, as an Arrow PyCapsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.batch.schema().as_ref())
            .map_err(|e| PyValueError::new_err(format!("arrow schema export: {e}")))?;
        PyCapsule::new_with_value(py, schema, c"arrow_schema")
    }
}

/// An empty batch of `schema` (the declared shape of a table with no rows).
pub fn empty(schema: Arc<arrow_schema::Schema>) -> Batch {
    Batch::new(RecordBatch::new_empty(schema))
}
