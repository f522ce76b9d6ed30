//! `oceansim._native`: the Rust half of the `oceansim` Python package.
//!
//! Three parts, each a thin layer over a workspace crate:
//!
//! * `client`: the OceanSim SDK's transport and AUV helpers over
//!   `oceansim-client`'s blocking client (request ids, background reader,
//!   timeouts, error envelopes);
//! * `sim`: the in-process simulator (`oceansim-sim`), no socket;
//! * `env`: the vector environments of `oceansim-gym`.
//!
//! JSON-shaped values cross the boundary as JSON text (the Python layer
//! calls `json.dumps`/`json.loads`, both in C); arrays cross as NumPy arrays
//! that take ownership of Rust's buffers, so nothing is copied on the way
//! out. Long calls release the interpreter (`Python::detach`). Errors are
//! raised as the SDK's exception classes, defined once in
//! `oceansim/errors.py` and looked up here.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;

mod auv;
mod client;
mod dataset;
mod env;
mod fleet;
mod helpers;
mod sim;

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

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<client::NativeClient>()?;
    m.add_class::<client::NativeAgent>()?;
    m.add_class::<sim::NativeSimulation>()?;
    m.add_class::<env::NativeVecEnv>()?;
    m.add_class::<fleet::NativeFleetEnv>()?;
    m.add_class::<dataset::NativeRunReplay>()?;
    m.add_class::<dataset::NativeRecorder>()?;
    helpers::register(m)?;
    Ok(())
}
