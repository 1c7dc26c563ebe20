//! Arrow arrays across the Python boundary through the Arrow PyCapsule interface: a column comes in
//! from any object with `__arrow_c_array__` or `__arrow_c_stream__` (pyarrow, Polars, DuckDB,
//! DataFusion) and a result goes out as an object with `__arrow_c_array__`. Only the C Data
//! Interface's structs cross; the strings stay in the producer's buffers.

use arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::ffi_stream::{ArrayStreamReader, FFI_ArrowArrayStream};
use arrow_array::{make_array, Array, ArrayRef};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

const SCHEMA: &std::ffi::CStr = c"arrow_schema";
const ARRAY: &std::ffi::CStr = c"arrow_array";
const STREAM: &std::ffi::CStr = c"arrow_array_stream";

fn import_error(err: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("cannot import the Arrow column: {err}"))
}

/// The chunks of `column`: one array from `__arrow_c_array__` (a pyarrow `Array`), or every array of
/// `__arrow_c_stream__` (a `ChunkedArray`, a Polars `Series`).
pub fn import_column(column: &Bound<'_, PyAny>) -> PyResult<Vec<ArrayRef>> {
    if column.hasattr("__arrow_c_array__")? {
        let (schema, array): (Bound<'_, PyCapsule>, Bound<'_, PyCapsule>) =
            column.call_method0("__arrow_c_array__")?.extract()?;
        let schema = schema.pointer_checked(Some(SCHEMA))?.cast::<FFI_ArrowSchema>();
        let array = array.pointer_checked(Some(ARRAY))?.cast::<FFI_ArrowArray>();
        // SAFETY: the PyCapsule interface guarantees that a capsule named `arrow_array` holds an
        // `ArrowArray` and one named `arrow_schema` an `ArrowSchema`. `from_raw` moves the array
        // out and marks the capsule's copy released, so the capsule's destructor does not release
        // it again; the schema is only borrowed and stays owned by its capsule.
        let data =
            unsafe { from_ffi(FFI_ArrowArray::from_raw(array.as_ptr()), schema.as_ref()) }.map_err(import_error)?;
        return Ok(vec![make_array(data)]);
    }
    if column.hasattr("__arrow_c_stream__")? {
        let stream = column.call_method0("__arrow_c_stream__")?;
        let stream = stream.cast::<PyCapsule>()?;
        let stream = stream.pointer_checked(Some(STREAM))?.cast::<FFI_ArrowArrayStream>();
        // SAFETY: a capsule named `arrow_array_stream` holds an `ArrowArrayStream`; `from_raw`
        // moves it out and leaves the capsule's copy released, as the interface asks of a consumer.
        let reader = unsafe { ArrayStreamReader::from_raw(stream.as_ptr()) }.map_err(import_error)?;
        return reader.map(|array| array.map_err(import_error)).collect();
    }
    Err(PyTypeError::new_err(format!(
        "expected an Arrow column of history JSON (a pyarrow Array or ChunkedArray, a Polars Series, or any \
         object with __arrow_c_array__ or __arrow_c_stream__), not {}",
        column.get_type().name()?
    )))
}

/// A result column, handed to Python through the Arrow PyCapsule interface (`pyarrow.array(column)`,
/// `polars.Series(column)`).
#[pyclass(frozen, module = "msgflow._msgflow")]
pub struct ArrowColumn {
    array: ArrayRef,
}

impl ArrowColumn {
    /// Wraps `array` for export.
    pub fn new(array: ArrayRef) -> Self {
        ArrowColumn { array }
    }
}

#[pymethods]
impl ArrowColumn {
    /// The `(schema, array)` capsules of the PyCapsule interface. A requested schema is not
    /// honoured (the interface lets a producer ignore it): the column has one type.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let (array, schema) = to_ffi(&self.array.to_data()).map_err(import_error)?;
        // Each capsule owns its struct; a consumer that moves it out leaves it released, and one
        // that never takes it has it released when the capsule is dropped (the structs' `Drop`).
        Ok((
            PyCapsule::new_with_value(py, schema, SCHEMA)?,
            PyCapsule::new_with_value(py, array, ARRAY)?,
        ))
    }

    fn __len__(&self) -> usize {
        self.array.len()
    }

    fn __repr__(&self) -> String {
        format!("ArrowColumn({} rows of {})", self.array.len(), self.array.data_type())
    }
}
