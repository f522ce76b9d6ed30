//! The SDK's exceptions (`oceansim/errors.py`) raised from Rust, and JSON
//! text from the Python layer parsed with them.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;

/// Parses JSON text from the Python layer.
pub(crate) fn parse(text: &str) -> PyResult<Value> {
    serde_json::from_str(text).map_err(|e| {
        Python::attach(|py| {
            sdk_error(
                py,
                "OceanSimValueError",
                format!("invalid JSON: {e}"),
                &[("error_code", Some("invalid_message".into()))],
            )
        })
    })
}

/// A `ValueError` of the SDK (`OceanSimValueError`) with `code`.
pub(crate) fn value_error(py: Python<'_>, code: &str, message: String) -> PyErr {
    sdk_error(
        py,
        "OceanSimValueError",
        message,
        &[("error_code", Some(code.to_owned()))],
    )
}

/// An exception of `oceansim.errors`, with keyword attributes.
pub(crate) fn sdk_error(
    py: Python<'_>,
    class: &str,
    message: String,
    attrs: &[(&str, Option<String>)],
) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let cls = py.import("oceansim.errors")?.getattr(class)?;
        let kwargs = PyDict::new(py);
        for (k, v) in attrs {
            kwargs.set_item(*k, v.clone())?;
        }
        let exc = cls.call((message.clone(),), Some(&kwargs))?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|e| e)
}

/// A client error as the SDK's exception.
pub(crate) fn client_error(py: Python<'_>, e: oceansim_client::ClientError) -> PyErr {
    use oceansim_client::ClientError as E;
    let code = Some(e.code().to_owned());
    let message = e.to_string();
    match e {
        E::Connection { .. } => sdk_error(
            py,
            "OceanSimConnectionError",
            message,
            &[("error_code", code)],
        ),
        E::Timeout { .. } => {
            sdk_error(py, "OceanSimTimeoutError", message, &[("error_code", code)])
        }
        E::Protocol { action, reply, .. } => sdk_error(
            py,
            "OceanSimProtocolError",
            message,
            &[
                ("error_code", code),
                ("action", Some(action)),
                ("response_json", reply.map(|r| r.to_string())),
            ],
        ),
        E::Action(ref a) if a.code().as_str() == "invalid_action_shape" => sdk_error(
            py,
            "OceanSimActionShapeError",
            message,
            &[("error_code", code)],
        ),
        E::Schema(s) => sdk_error(
            py,
            "SensorSchemaError",
            message,
            &[
                ("error_code", code),
                ("field", s.field().map(str::to_owned)),
                ("sensor", Some(s.sensor().to_owned())),
            ],
        ),
        _ => sdk_error(py, "OceanSimValueError", message, &[("error_code", code)]),
    }
}
