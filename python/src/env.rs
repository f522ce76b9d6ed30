//! The vector environments of `oceansim-gym`.

use crate::sdk_error;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use oceansim_agents::normalize_control_scheme;
use oceansim_gym::{EnvConfig, GymError, Outcome, TaskKind, VecEnv};
use pyo3::prelude::*;

/// `K` episodes of one task, stepped in one call.
#[pyclass(module = "oceansim._native")]
pub struct NativeVecEnv {
    env: VecEnv,
}

pub(crate) fn gym_error(py: Python<'_>, e: GymError) -> PyErr {
    let code = Some(e.code().to_owned());
    match e {
        GymError::ActionShape { .. } => sdk_error(
            py,
            "OceanSimActionShapeError",
            e.to_string(),
            &[("error_code", code)],
        ),
        _ => sdk_error(
            py,
            "OceanSimValueError",
            e.to_string(),
            &[("error_code", code)],
        ),
    }
}

/// Lane states `(K, 13)`: NED position (3), attitude w, x, y, z (4), body
/// velocity ν (6).
pub(crate) fn lane_states_array<'py>(
    py: Python<'py>,
    lanes: &[oceansim_sim::batch::Lane],
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let mut v = Vec::with_capacity(lanes.len() * 13);
    for l in lanes {
        let s = l.state();
        let q = s.attitude.quaternion();
        v.extend(s.position_ned.iter());
        v.extend([q.w, q.i, q.j, q.k]);
        v.extend(s.nu.iter());
    }
    PyArray1::from_vec(py, v).reshape([lanes.len(), 13])
}

type StepArrays<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray1<u8>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<f32>>,
);

type Bounds<'py> = (Bound<'py, PyArray1<f32>>, Bound<'py, PyArray1<f32>>);

#[pymethods]
impl NativeVecEnv {
    #[new]
    #[pyo3(signature = (task, num_envs, threads, scenario=None, map_seed=None, profile=None,
                        control_scheme=None, dt=None, tick=None, max_episode_steps=None,
                        sonar_beams=None, sonar_bins=None, sonar_range_m=None,
                        extra_sensors=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        task: &str,
        num_envs: usize,
        threads: usize,
        scenario: Option<String>,
        map_seed: Option<u64>,
        profile: Option<String>,
        control_scheme: Option<&str>,
        dt: Option<f64>,
        tick: Option<f64>,
        max_episode_steps: Option<u32>,
        sonar_beams: Option<u32>,
        sonar_bins: Option<u32>,
        sonar_range_m: Option<f64>,
        extra_sensors: Option<Vec<String>>,
    ) -> PyResult<Self> {
        let kind: TaskKind = task.parse().map_err(|e| gym_error(py, e))?;
        let mut cfg = EnvConfig::new(kind);
        if let Some(s) = scenario {
            cfg.scenario = s;
        }
        if let Some(s) = map_seed {
            cfg.map_seed = s;
        }
        // The task's own profile (Remus100Heading's `remus100`) unless
        // one is asked for.
        if profile.is_some() {
            cfg.profile = profile;
        }
        if let Some(s) = control_scheme {
            cfg.scheme = normalize_control_scheme(s)
                .map_err(|e| crate::value_error(py, e.code().as_str(), e.to_string()))?;
        }
        if let Some(dt) = dt {
            cfg.dt_s = dt;
        }
        if let Some(t) = tick {
            cfg.tick_s = t;
        }
        if let Some(m) = max_episode_steps {
            cfg.max_steps = m;
        }
        if kind != TaskKind::SonarAvoid
            && (sonar_beams.is_some() || sonar_bins.is_some() || sonar_range_m.is_some())
        {
            return Err(gym_error(
                py,
                GymError::Config(format!("{} has no sonar to size", kind.name())),
            ));
        }
        cfg.sonar_beams = sonar_beams.unwrap_or(cfg.sonar_beams);
        cfg.sonar_bins = sonar_bins.unwrap_or(cfg.sonar_bins);
        cfg.sonar_range_m = sonar_range_m.unwrap_or(cfg.sonar_range_m);
        for name in extra_sensors.unwrap_or_default() {
            let family = oceansim_sim::SensorFamily::parse(&name).ok_or_else(|| {
                gym_error(
                    py,
                    GymError::Config(format!("unknown sensor family `{name}`")),
                )
            })?;
            cfg.extra_sensors
                .push(oceansim_sim::batch::LaneSensorSpec::new(family));
        }
        let env = py
            .detach(|| VecEnv::new(&cfg, num_envs, threads))
            .map_err(|e| gym_error(py, e))?;
        Ok(NativeVecEnv { env })
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.env.num_envs()
    }
    #[getter]
    fn observation_len(&self) -> usize {
        self.env.observation_len()
    }
    #[getter]
    fn action_len(&self) -> usize {
        self.env.action_len()
    }
    #[getter]
    fn control_scheme(&self) -> &'static str {
        self.env.task().scheme().as_str()
    }
    #[getter]
    fn max_episode_steps(&self) -> u32 {
        self.env.task().max_steps()
    }
    #[getter]
    fn dt(&self) -> f64 {
        self.env.batch().shared().step_period_s()
    }

    /// Lower and upper action bounds.
    fn action_bounds<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>) {
        let (lo, hi) = self.env.task().action_bounds();
        (PyArray1::from_slice(py, lo), PyArray1::from_slice(py, hi))
    }

    /// Lower and upper observation bounds (observations are clipped to
    /// them).
    fn observation_bounds<'py>(&self, py: Python<'py>) -> Bounds<'py> {
        let (lo, hi) = self.env.task().observation_bounds();
        (PyArray1::from_slice(py, lo), PyArray1::from_slice(py, hi))
    }

    /// The typical magnitude of each observation value (the normalised
    /// observation is `clip(obs / scale, -1, 1)`).
    fn observation_scales<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_slice(py, self.env.task().observation_scales())
    }

    /// SonarAvoid's sonar `(beams, bins, range_m)`.
    #[getter]
    fn sonar(&self) -> (usize, usize, f64) {
        self.env.task().sonar()
    }

    /// The tasks' names, in registration order.
    #[staticmethod]
    fn task_names() -> Vec<&'static str> {
        TaskKind::ALL.iter().map(|t| t.name()).collect()
    }

    /// The baseline controller's actions `(K, a)` for raw observations
    /// `(K, n)`, in the task's default scheme and units (`None` when the
    /// environment runs another scheme).
    fn baseline_actions<'py>(
        &self,
        py: Python<'py>,
        obs: numpy::PyReadonlyArray2<'py, f32>,
    ) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        let n = self.env.observation_len();
        let shape = obs.shape();
        if shape.len() != 2 || shape[1] != n {
            return Err(crate::value_error(
                py,
                "invalid_action_shape",
                format!("observations must have shape (K, {n}), got {shape:?}"),
            ));
        }
        let a = self.env.action_len();
        let rows = shape[0];
        let flat: Vec<f32> = obs.as_array().iter().copied().collect();
        let mut out = Vec::with_capacity(rows * a);
        for o in flat.chunks(n) {
            match oceansim_gym::baseline_action(self.env.task(), o) {
                Some(x) => out.extend(x),
                None => return Ok(None),
            }
        }
        Ok(Some(PyArray1::from_vec(py, out).reshape([rows, a])?))
    }

    /// The default episode length (steps) of `task`.
    #[staticmethod]
    fn default_max_episode_steps(py: Python<'_>, task: &str) -> PyResult<u32> {
        let kind: TaskKind = task.parse().map_err(|e| gym_error(py, e))?;
        Ok(kind.default_max_steps())
    }

    /// Each lane's error now (m), `(K,)`: of the episode it is in, as of
    /// the last reset or step.
    fn errors<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f32>> {
        PyArray1::from_vec(py, self.env.errors_m())
    }

    /// The names of the outcome codes `step` returns, by code.
    #[staticmethod]
    fn outcome_names() -> Vec<&'static str> {
        Outcome::ALL.iter().map(|o| o.as_str()).collect()
    }

    /// Restarts every episode; returns observations `(K, n)`.
    #[pyo3(signature = (seed=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<u64>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let (k, n) = (self.env.num_envs(), self.env.observation_len());
        let env = &mut self.env;
        let obs = py
            .detach(|| env.reset(seed))
            .map_err(|e| gym_error(py, e))?;
        PyArray1::from_vec(py, obs).reshape([k, n])
    }

    /// One step of every lane: `(obs, reward, terminated, truncated,
    /// final_obs, outcome, error_m, success, current_error_m)`; lanes that
    /// ended restart in the same step (outcome, error and success are the
    /// old episode's, `current_error_m` the new one's start error).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<StepArrays<'py>> {
        let (k, n) = (self.env.num_envs(), self.env.observation_len());
        let shape = actions.shape();
        if shape != [k, self.env.action_len()] {
            return Err(sdk_error(
                py,
                "OceanSimActionShapeError",
                format!(
                    "actions must have shape ({k}, {}), got {shape:?}",
                    self.env.action_len()
                ),
                &[("error_code", Some("invalid_action_shape".into()))],
            ));
        }
        // Copied while the interpreter is held: Python may change the array
        // once it is released.
        let flat: Vec<f64> = actions.as_array().iter().copied().collect();
        let env = &mut self.env;
        let out = py
            .detach(|| env.step(&flat))
            .map_err(|e| gym_error(py, e))?;
        Ok((
            PyArray1::from_vec(py, out.obs).reshape([k, n])?,
            PyArray1::from_vec(py, out.reward),
            PyArray1::from_vec(py, out.terminated),
            PyArray1::from_vec(py, out.truncated),
            PyArray1::from_vec(py, out.final_obs).reshape([k, n])?,
            PyArray1::from_vec(py, out.outcome.iter().map(|o| *o as u8).collect()),
            PyArray1::from_vec(py, out.error_m),
            PyArray1::from_vec(py, out.success),
            PyArray1::from_vec(py, out.current_error_m),
        ))
    }

    /// Lane states `(K, 13)`: NED position (3), attitude w, x, y, z (4), body
    /// velocity ν (6).
    fn lane_states<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        crate::env::lane_states_array(py, self.env.batch().lanes())
    }

    /// Each lane's goal in NED (m), `(K, 3)`.
    fn goals_ned<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let g = self.env.goals_ned();
        let k = g.len();
        PyArray1::from_vec(py, g.into_iter().flatten().collect()).reshape([k, 3])
    }
}
