//! Shredded Variant storage reassembled for Python: [`unshred_variant`] takes the storage
//! of an `arrow.parquet.variant` array as another reader gives it (`struct<metadata, value?,
//! typed_value?>`, shredded by the Parquet spec) and returns the unshredded
//! `struct<metadata: binary, value: binary>` that `parq.VariantType` decodes, rebuilt by
//! parq's reassembly (`parq::variant::unshred`).

use arrow_array::cast::AsArray;
use arrow_array::{make_array, Array};
use arrow_data::ArrayData;
use arrow_pyarrow::{FromPyArrow, ToPyArrow};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

use crate::error;

/// The unshredded `struct<metadata, value>` array of shredded Variant storage `storage`
/// (a pyarrow StructArray, or any object of the Arrow PyCapsule array interface).
#[pyfunction]
pub(crate) fn unshred_variant<'py>(
    py: Python<'py>,
    storage: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let data = ArrayData::from_pyarrow_bound(storage)?;
    let array = make_array(data);
    let Some(s) = array.as_struct_opt() else {
        return Err(PyTypeError::new_err(format!(
            "Variant storage must be a struct array, not {}",
            array.data_type()
        )));
    };
    let out = py.detach(|| parq::variant::unshred(s)).map_err(error)?;
    out.into_data().to_pyarrow(py)
}
