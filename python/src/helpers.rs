//! Free functions: control-scheme contracts, action validation, agent
//! definitions, the sensor-schema and point-cloud helpers.

use crate::{parse, sdk_error};
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use oceansim_agents::{ActionSpace, AgentDefinition, AgentError};
use oceansim_client::cloud::{self, CloudError};
use oceansim_client::schema;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::Value;

fn agent_error(py: Python<'_>, e: AgentError) -> PyErr {
    let code = Some(e.code().as_str().to_owned());
    let class = match e {
        AgentError::ActionShape { .. } => "OceanSimActionShapeError",
        _ => "OceanSimValueError",
    };
    sdk_error(py, class, e.to_string(), &[("error_code", code)])
}

fn cloud_error(py: Python<'_>, e: CloudError) -> PyErr {
    crate::value_error(py, e.code(), e.to_string())
}

/// Every control scheme's contract, for a vehicle with `thrusters` thrusters.
#[pyfunction]
#[pyo3(signature = (thrusters=6))]
fn list_control_schemes(thrusters: usize) -> String {
    serde_json::to_string(&oceansim_agents::list_control_schemes_for(
        thrusters.min(64),
    ))
    .unwrap_or_else(|_| "[]".into())
}

/// The `fins` contract of a vehicle: control surfaces (rad) then
/// propellers (rpm), with per-value bounds (non-finite = unbounded).
#[pyfunction]
fn fins_action_space(
    py: Python<'_>,
    surfaces: Vec<String>,
    propellers: Vec<String>,
    low: Vec<f64>,
    high: Vec<f64>,
) -> PyResult<String> {
    let space = ActionSpace::for_fins(&surfaces, &propellers, &low, &high)
        .map_err(|e| agent_error(py, e))?;
    serde_json::to_string(&space)
        .map_err(|e| crate::value_error(py, "invalid_message", e.to_string()))
}

/// The canonical name of a control scheme (aliases accepted).
#[pyfunction]
fn normalize_control_scheme(py: Python<'_>, name: &str) -> PyResult<String> {
    oceansim_agents::normalize_control_scheme(name)
        .map(|s| s.as_str().to_owned())
        .map_err(|e| agent_error(py, e))
}

/// Checks `action` against an action space (JSON); returns the floats.
#[pyfunction]
fn validate_action(py: Python<'_>, space: &str, action: &str) -> PyResult<Vec<f64>> {
    let mut space: ActionSpace = serde_json::from_value(parse(space)?).map_err(|e| {
        crate::value_error(py, "invalid_message", format!("invalid action space: {e}"))
    })?;
    // A space built by hand goes through the crate's own bounds check
    // (lengths, low <= high), as the contract table's spaces did.
    let inconsistent = |what: String| {
        crate::value_error(
            py,
            "invalid_message",
            format!("inconsistent action space: {what}"),
        )
    };
    let n = space.fields.len();
    if space.shape != [n] || space.units.len() != n {
        return Err(inconsistent(format!(
            "shape {:?}, {n} fields, {} units",
            space.shape,
            space.units.len()
        )));
    }
    let (low, high) = (space.low.take(), space.high.take());
    let space = space
        .with_bounds(low, high)
        .map_err(|e| inconsistent(e.to_string()))?;
    space
        .validate_json(&parse(action)?)
        .map_err(|e| agent_error(py, e))
}

/// Parses an agent definition (aliases accepted); returns its canonical,
/// versioned dictionary.
#[pyfunction]
fn agent_definition(py: Python<'_>, data: &str) -> PyResult<String> {
    AgentDefinition::from_json(&parse(data)?)
        .map(|d| d.to_json().to_string())
        .map_err(|e| agent_error(py, e))
}

#[pyfunction]
#[pyo3(signature = (payload, sensor_type="unknown"))]
fn normalize_sensor_payload(payload: &str, sensor_type: &str) -> PyResult<String> {
    Ok(schema::normalize_sensor_payload(&parse(payload)?, sensor_type).to_string())
}

fn schema_error(py: Python<'_>, e: schema::SensorSchemaError) -> PyErr {
    let (code, field, sensor) = (
        Some(e.code().to_owned()),
        e.field().map(str::to_owned),
        Some(e.sensor().to_owned()),
    );
    sdk_error(
        py,
        "SensorSchemaError",
        e.to_string(),
        &[("error_code", code), ("field", field), ("sensor", sensor)],
    )
}

#[pyfunction]
#[pyo3(signature = (payload, name="sensor"))]
fn validate_sensor_payload(py: Python<'_>, payload: &str, name: &str) -> PyResult<String> {
    schema::validate_sensor_payload(&parse(payload)?, name)
        .map(|v| v.to_string())
        .map_err(|e| schema_error(py, e))
}

#[pyfunction]
fn validate_sensor_set(py: Python<'_>, sensors: &str, required: Vec<String>) -> PyResult<String> {
    let Value::Object(map) = parse(sensors)? else {
        return Err(PyValueError::new_err("sensors must be a dictionary"));
    };
    let req: Vec<&str> = required.iter().map(String::as_str).collect();
    schema::validate_sensor_set(&map, &req)
        .map(|m| Value::Object(m).to_string())
        .map_err(|e| schema_error(py, e))
}

fn rows<'py>(
    py: Python<'py>,
    v: Vec<Vec<f64>>,
    width: usize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let n = v.len();
    PyArray1::from_vec(py, v.into_iter().flatten().collect()).reshape([n, width])
}

#[pyfunction]
#[pyo3(signature = (cloud, world=false))]
fn xyz_from_cloud<'py>(
    py: Python<'py>,
    cloud: &str,
    world: bool,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let pts = cloud::xyz_from_cloud(&parse(cloud)?, world).map_err(|e| cloud_error(py, e))?;
    let n = pts.len();
    PyArray1::from_vec(py, pts.into_iter().flatten().collect()).reshape([n, 3])
}

#[pyfunction]
fn intensity_from_cloud<'py>(py: Python<'py>, cloud: &str) -> PyResult<Bound<'py, PyArray1<f64>>> {
    cloud::intensity_from_cloud(&parse(cloud)?)
        .map(|v| PyArray1::from_vec(py, v))
        .map_err(|e| cloud_error(py, e))
}

#[pyfunction]
fn organized_range_image<'py>(py: Python<'py>, cloud: &str) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let img = cloud::organized_range_image(&parse(cloud)?).map_err(|e| cloud_error(py, e))?;
    let (rings, columns) = (img.rings, img.columns);
    let mut v = Vec::with_capacity(rings * columns);
    for r in 0..rings {
        for c in 0..columns {
            v.push(img.get(r, c));
        }
    }
    PyArray1::from_vec(py, v).reshape([rings, columns])
}

#[pyfunction]
fn structured_cloud_to_numpy<'py>(
    py: Python<'py>,
    cloud: &str,
    fields: Vec<String>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let f: Vec<&str> = fields.iter().map(String::as_str).collect();
    let r = cloud::structured_cloud_to_rows(&parse(cloud)?, &f).map_err(|e| cloud_error(py, e))?;
    rows(py, r, f.len())
}

/// A state reply's data with the SDK's `AUVState` conversions.
#[pyfunction]
fn auv_state(py: Python<'_>, data: &str) -> PyResult<String> {
    oceansim_client::AuvState::from_value(parse(data)?)
        .map(|s| crate::client::state_json(&s).to_string())
        .map_err(|e| crate::client_error(py, e))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(list_control_schemes, m)?)?;
    m.add_function(wrap_pyfunction!(auv_state, m)?)?;
    m.add_function(wrap_pyfunction!(normalize_control_scheme, m)?)?;
    m.add_function(wrap_pyfunction!(fins_action_space, m)?)?;
    m.add_function(wrap_pyfunction!(validate_action, m)?)?;
    m.add_function(wrap_pyfunction!(agent_definition, m)?)?;
    m.add_function(wrap_pyfunction!(normalize_sensor_payload, m)?)?;
    m.add_function(wrap_pyfunction!(validate_sensor_payload, m)?)?;
    m.add_function(wrap_pyfunction!(validate_sensor_set, m)?)?;
    m.add_function(wrap_pyfunction!(xyz_from_cloud, m)?)?;
    m.add_function(wrap_pyfunction!(intensity_from_cloud, m)?)?;
    m.add_function(wrap_pyfunction!(organized_range_image, m)?)?;
    m.add_function(wrap_pyfunction!(structured_cloud_to_numpy, m)?)?;
    Ok(())
}
