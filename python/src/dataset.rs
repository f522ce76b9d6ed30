//! Recorded runs: the replay reader and the offline recorder of
//! `oceansim-dataset`.

use crate::parse;
use numpy::{PyArray1, PyArray2, PyArrayMethods};
use oceansim_dataset::{DatasetError, OfflineRecorder, RunReplay};
use pyo3::prelude::*;
use serde_json::{json, Value};

fn dataset_error(py: Python<'_>, e: DatasetError) -> PyErr {
    crate::value_error(py, e.code(), e.to_string())
}

fn table<'py, const N: usize>(
    py: Python<'py>,
    rows: impl ExactSizeIterator<Item = [f64; N]>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let n = rows.len();
    PyArray1::from_vec(py, rows.flatten().collect()).reshape([n, N])
}

/// A run directory, loaded (an export or a saved recording).
#[pyclass(module = "oceansim._native", frozen)]
pub struct NativeRunReplay {
    run: RunReplay,
}

impl NativeRunReplay {
    fn agent<'a>(&'a self, agent: Option<&'a str>) -> PyResult<&'a str> {
        let agents = self.run.agents();
        match agent {
            Some(a) if agents.contains(&a) => Ok(a),
            Some(a) => Err(pyo3::exceptions::PyKeyError::new_err(format!(
                "no agent `{a}` in the run; agents: {agents:?}"
            ))),
            None => agents
                .first()
                .copied()
                .ok_or_else(|| pyo3::exceptions::PyValueError::new_err("the run has no agents")),
        }
    }
}

#[pymethods]
impl NativeRunReplay {
    #[staticmethod]
    fn open(py: Python<'_>, dir: String) -> PyResult<NativeRunReplay> {
        py.detach(move || RunReplay::open(&dir))
            .map(|run| NativeRunReplay { run })
            .map_err(|e| dataset_error(py, e))
    }
    fn dir(&self) -> String {
        self.run.dir().display().to_string()
    }
    fn metadata(&self) -> String {
        self.run.metadata().to_string()
    }
    fn frame_count(&self) -> usize {
        self.run.frame_count()
    }
    fn agents(&self) -> Vec<String> {
        self.run.agents().into_iter().map(str::to_owned).collect()
    }
    /// Frame `index` as JSON: `{frame, time, agents: [timeline rows]}`.
    fn frame(&self, index: usize) -> PyResult<String> {
        let f = self.run.frames().nth(index).ok_or_else(|| {
            pyo3::exceptions::PyIndexError::new_err(format!(
                "frame {index} of {}",
                self.run.frame_count()
            ))
        })?;
        // Documented json! case: a frame as the dict the Python SDK returns.
        Ok(json!({"frame": f.index, "time": f.time, "agents": f.agents}).to_string())
    }
    /// `(N, 11)`: time, position (3, user frame), quaternion x, y, z, w,
    /// velocity (3).
    #[pyo3(signature = (agent=None))]
    fn trajectory<'py>(
        &self,
        py: Python<'py>,
        agent: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let a = self.agent(agent)?;
        let t = self.run.trajectory(a);
        table(
            py,
            t.into_iter().map(|p| {
                let (x, q, v) = (p.position, p.quaternion_xyzw, p.velocity);
                [
                    p.time, x[0], x[1], x[2], q[0], q[1], q[2], q[3], v[0], v[1], v[2],
                ]
            }),
        )
    }
    #[pyo3(signature = (sensor, agent=None))]
    fn sensor_frames(&self, sensor: &str, agent: Option<&str>) -> PyResult<Vec<(u64, Vec<u64>)>> {
        Ok(self.run.sensor_frames(self.agent(agent)?, sensor))
    }
    fn commands(&self) -> String {
        Value::Array(
            self.run
                .commands()
                .iter()
                .map(|c| serde_json::to_value(c).unwrap_or(Value::Null))
                .collect(),
        )
        .to_string()
    }
    fn summary(&self) -> String {
        let s = self.run.summary();
        // Documented json! case: the summary as the dict the Python SDK returns.
        json!({
            "scenario": s.scenario, "seed": s.seed, "frames": s.frames,
            "time_span_s": s.time_span_s, "distance_m": s.distance_m,
            "agent_frames": s.agent_frames, "commands": s.commands,
            "sensor_samples": s.sensor_samples, "text": s.to_string(),
        })
        .to_string()
    }
    /// TUM rows `(N, 8)`: time, x, y, z, qx, qy, qz, qw.
    #[pyo3(signature = (agent=None))]
    fn tum_rows<'py>(
        &self,
        py: Python<'py>,
        agent: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let rows = self
            .run
            .tum_rows(self.agent(agent)?)
            .map_err(|e| dataset_error(py, e))?;
        table(py, rows.into_iter())
    }
    /// EuRoC rows `(N, 17)`: timestamp (ns), x, y, z, qw, qx, qy, qz, vx, vy,
    /// vz, then the IMU's gyro (rad/s) and accelerometer (m/s²) biases in
    /// the body FLU frame (zeros where the run does not know them).
    #[pyo3(signature = (agent=None))]
    fn euroc_rows<'py>(
        &self,
        py: Python<'py>,
        agent: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let rows = self
            .run
            .euroc_rows(self.agent(agent)?)
            .map_err(|e| dataset_error(py, e))?;
        table(
            py,
            rows.into_iter().map(|(ns, r)| {
                let mut out = [0.0; 17];
                out[0] = ns as f64;
                out[1..].copy_from_slice(&r);
                out
            }),
        )
    }
}

/// Frames from your own loop, saved as a run directory.
#[pyclass(module = "oceansim._native")]
pub struct NativeRecorder {
    rec: OfflineRecorder,
}

#[pymethods]
impl NativeRecorder {
    #[new]
    fn new(scenario: &str, seed: u64) -> Self {
        NativeRecorder {
            rec: OfflineRecorder::new(scenario, seed),
        }
    }
    /// Adds a frame from a `get_state`/`step` reply's data (JSON).
    fn add_state(&mut self, py: Python<'_>, agent: &str, data: &str) -> PyResult<()> {
        let v = parse(data)?;
        self.rec
            .add_state(agent, &v)
            .map_err(|e| dataset_error(py, e))
    }
    fn frame_count(&self) -> u64 {
        self.rec.frame_count()
    }
    fn to_dataset(&self) -> String {
        self.rec.to_value().to_string()
    }
    fn save(&self, py: Python<'_>, dir: String) -> PyResult<NativeRunReplay> {
        let rec = &self.rec;
        py.detach(|| rec.save(&dir))
            .map(|run| NativeRunReplay { run })
            .map_err(|e| dataset_error(py, e))
    }
}
