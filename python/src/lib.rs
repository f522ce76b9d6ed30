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

mod auv;
mod client;
mod dataset;
mod env;
mod errors;
mod fleet;
mod helpers;
mod sim;

// The children import these from here; re-exported (not imported) so the
// children depend on `errors`, not on this file.
pub(crate) use errors::{client_error, parse, sdk_error, value_error};

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
