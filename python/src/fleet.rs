//! The fleet environment of `oceansim-gym`, for `oceansim.marl`.

use crate::env::gym_error;
use crate::sdk_error;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use oceansim_agents::normalize_control_scheme;
use oceansim_gym::{FleetConfig, FleetEnv};
use pyo3::prelude::*;

/// `N` vehicles holding a ring over one acoustic channel.
#[pyclass(module = "oceansim._native")]
pub struct NativeFleetEnv {
    env: FleetEnv,
}

type FleetArrays<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<f32>>,
);

#[pymethods]
impl NativeFleetEnv {
    #[new]
    #[pyo3(signature = (n_agents, threads, scenario=None, map_seed=None, profile=None,
                        control_scheme=None, dt=None, tick=None, max_episode_steps=None,
                        ring_radius_m=None, ping_period_s=None, packet_drop_rate=None,
                        bandwidth_bps=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        n_agents: usize,
        threads: usize,
        scenario: Option<String>,
        map_seed: Option<u64>,
        profile: Option<String>,
        control_scheme: Option<&str>,
        dt: Option<f64>,
        tick: Option<f64>,
        max_episode_steps: Option<u32>,
        ring_radius_m: Option<f64>,
        ping_period_s: Option<f64>,
        packet_drop_rate: Option<f64>,
        bandwidth_bps: Option<f64>,
    ) -> PyResult<Self> {
        let mut cfg = FleetConfig::new(n_agents);
        if let Some(s) = scenario {
            cfg.scenario = s;
        }
        if let Some(s) = map_seed {
            cfg.map_seed = s;
        }
        cfg.profile = profile;
        if let Some(s) = control_scheme {
            cfg.scheme = normalize_control_scheme(s)
                .map_err(|e| crate::value_error(py, e.code().as_str(), e.to_string()))?;
        }
        cfg.dt_s = dt.unwrap_or(cfg.dt_s);
        cfg.tick_s = tick.unwrap_or(cfg.tick_s);
        cfg.max_steps = max_episode_steps.unwrap_or(cfg.max_steps);
        cfg.ring_radius_m = ring_radius_m.unwrap_or(cfg.ring_radius_m);
        cfg.ping_period_s = ping_period_s.unwrap_or(cfg.ping_period_s);
        cfg.medium.packet_drop_rate = packet_drop_rate.unwrap_or(cfg.medium.packet_drop_rate);
        cfg.medium.bandwidth_bps = bandwidth_bps.unwrap_or(cfg.medium.bandwidth_bps);
        let env = py
            .detach(|| FleetEnv::new(&cfg, threads))
            .map_err(|e| gym_error(py, e))?;
        Ok(NativeFleetEnv { env })
    }

    #[getter]
    fn n_agents(&self) -> usize {
        self.env.n_agents()
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
        self.env.config().scheme.as_str()
    }
    #[getter]
    fn max_episode_steps(&self) -> u32 {
        self.env.config().max_steps
    }
    #[getter]
    fn dt(&self) -> f64 {
        self.env.batch().shared().step_period_s()
    }
    #[getter]
    fn ring_radius_m(&self) -> f64 {
        self.env.config().ring_radius_m
    }
    #[getter]
    fn time_s(&self) -> f64 {
        self.env.time_s()
    }

    /// Lower and upper action bounds (the scheme's units).
    fn action_bounds<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>) {
        let (lo, hi) = self.env.action_bounds();
        (PyArray1::from_slice(py, lo), PyArray1::from_slice(py, hi))
    }

    /// Lower and upper observation bounds.
    fn observation_bounds<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<f32>>, Bound<'py, PyArray1<f32>>) {
        let (lo, hi) = self.env.observation_bounds();
        (PyArray1::from_slice(py, lo), PyArray1::from_slice(py, hi))
    }

    /// Which agents' episodes go on, `(N,)`.
    fn alive<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        PyArray1::from_slice(py, self.env.alive())
    }

    /// Reports sent, delivered, lost and not sent (busy channel).
    fn message_counts(&self) -> [u64; 4] {
        self.env.message_counts()
    }

    /// Each agent's slot in NED (m), `(N, 3)`.
    fn slots_ned<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let s = self.env.slots_ned();
        let n = s.len();
        PyArray1::from_vec(py, s.into_iter().flatten().collect()).reshape([n, 3])
    }

    /// Agent states `(N, 13)`: NED position, attitude w, x, y, z, ν.
    fn states<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        crate::env::lane_states_array(py, self.env.batch().lanes())
    }

    /// A new episode; observations `(N, n)`.
    #[pyo3(signature = (seed=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<u64>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let (n, len) = (self.env.n_agents(), self.env.observation_len());
        let env = &mut self.env;
        let obs = py
            .detach(|| env.reset(seed))
            .map_err(|e| gym_error(py, e))?;
        PyArray1::from_vec(py, obs).reshape([n, len])
    }

    /// One step: `(obs, reward, terminated, truncated, slot_error_m)`.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<FleetArrays<'py>> {
        let (n, len, a) = (
            self.env.n_agents(),
            self.env.observation_len(),
            self.env.action_len(),
        );
        if actions.shape() != [n, a] {
            return Err(sdk_error(
                py,
                "OceanSimActionShapeError",
                format!(
                    "actions must have shape ({n}, {a}), got {:?}",
                    actions.shape()
                ),
                &[("error_code", Some("invalid_action_shape".into()))],
            ));
        }
        let flat: Vec<f64> = actions.as_array().iter().copied().collect();
        let env = &mut self.env;
        let out = py
            .detach(|| env.step(&flat))
            .map_err(|e| gym_error(py, e))?;
        Ok((
            PyArray1::from_vec(py, out.obs).reshape([n, len])?,
            PyArray1::from_vec(py, out.reward),
            PyArray1::from_vec(py, out.terminated),
            PyArray1::from_vec(py, out.truncated),
            PyArray1::from_vec(py, out.slot_error_m),
        ))
    }
}
