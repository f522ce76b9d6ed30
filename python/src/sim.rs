//! The in-process simulator: every protocol action without a socket.

use numpy::PyArray1;
use oceansim_protocol::Request;
use oceansim_sim::frames::{Ned, User};
use oceansim_sim::{Session, SimConfig, Simulation};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{mpsc, Mutex};

/// What the simulation's own thread owns.
struct Worker {
    sim: Simulation,
    session: Session,
}

type Job = Box<dyn FnOnce(&mut Worker) + Send>;

/// One simulation in this process. The simulator is single-threaded by
/// design (its world is not `Send`), so it lives on a thread of its own;
/// calls hand it a job and wait with the interpreter released.
#[pyclass(module = "oceansim._native", frozen)]
pub struct NativeSimulation {
    jobs: Mutex<Option<mpsc::Sender<Job>>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    step_ticks: u64,
    step_period_s: f64,
}

fn sim_error(py: Python<'_>, e: oceansim_sim::SimError) -> PyErr {
    crate::value_error(py, e.code(), e.to_string())
}

impl NativeSimulation {
    /// Runs `f` on the simulation's thread and returns its result.
    fn run<T: Send + 'static>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Worker) -> T + Send + 'static,
    ) -> PyResult<T> {
        let (tx, rx) = mpsc::channel();
        let job: Job = Box::new(move |w| {
            let _ = tx.send(f(w));
        });
        let sent = match &*self.jobs.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(jobs) => jobs.send(job).is_ok(),
            None => return Err(PyValueError::new_err("the simulation is closed")),
        };
        if !sent {
            return Err(PyValueError::new_err("the simulation thread has stopped"));
        }
        py.detach(move || rx.recv())
            .map_err(|_| PyValueError::new_err("the simulation thread has stopped"))
    }
}

impl NativeSimulation {
    /// Closes the job queue and waits for the thread to finish the jobs
    /// already queued.
    fn shut_down(&self) -> Option<std::thread::JoinHandle<()>> {
        self.jobs.lock().unwrap_or_else(|p| p.into_inner()).take();
        self.thread.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl Drop for NativeSimulation {
    fn drop(&mut self) {
        if let Some(t) = self.shut_down() {
            let _ = t.join();
        }
    }
}

#[pymethods]
impl NativeSimulation {
    #[new]
    #[pyo3(signature = (scenario, seed, profile=None, tick_s=0.01, step_period_s=0.1, paused=true, export_root=None, sensor_data=true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        scenario: String,
        seed: u64,
        profile: Option<String>,
        tick_s: f64,
        step_period_s: f64,
        paused: bool,
        export_root: Option<String>,
        sensor_data: bool,
    ) -> PyResult<Self> {
        let mut config = SimConfig {
            scenario,
            seed,
            profile,
            tick_s,
            step_period_s,
            paused,
            deterministic: true,
            record_sensor_data: sensor_data,
            ..SimConfig::default()
        };
        if let Some(root) = export_root {
            config.export_root = root.into();
        }
        let step_ticks = config.step_ticks();
        let (jobs, queue) = mpsc::channel::<Job>();
        let (ready_tx, ready) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("oceansim-sim".into())
            .spawn(move || {
                let mut w = match Simulation::new(config) {
                    Ok(sim) => {
                        let _ = ready_tx.send(Ok(()));
                        Worker {
                            sim,
                            session: Session::new(),
                        }
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                while let Ok(job) = queue.recv() {
                    job(&mut w);
                }
            })
            .map_err(|e| PyValueError::new_err(format!("cannot start the simulation: {e}")))?;
        match py.detach(move || ready.recv()) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(sim_error(py, e)),
            Err(_) => return Err(PyValueError::new_err("the simulation thread failed")),
        }
        Ok(NativeSimulation {
            jobs: Mutex::new(Some(jobs)),
            thread: Mutex::new(Some(thread)),
            step_ticks,
            step_period_s,
        })
    }

    /// Answers one protocol request line (single or batch) and returns
    /// the reply envelope as JSON text; errors come back as error
    /// envelopes, exactly as over TCP.
    fn request(&self, py: Python<'_>, line: String) -> PyResult<String> {
        self.run(py, move |w| match Request::decode(&line) {
            Ok(req) => w
                .sim
                .answer(&mut w.session, req)
                .finish(&mut w.sim)
                .to_line(),
            Err(e) => e.to_response(Some(w.sim.sim_time())).to_line(),
        })
    }

    /// Advances `n` control periods (the interpreter is released).
    fn step(&self, py: Python<'_>, n: u64) -> PyResult<()> {
        let ticks = n
            .checked_mul(self.step_ticks)
            .filter(|t| *t <= 1 << 40)
            .ok_or_else(|| PyValueError::new_err(format!("{n} steps is too many")))?;
        self.run(py, move |w| {
            w.sim.tick(ticks);
        })
    }

    /// Advances `n` physics ticks.
    fn tick(&self, py: Python<'_>, n: u64) -> PyResult<()> {
        self.run(py, move |w| {
            w.sim.tick(n);
        })
    }

    #[getter]
    fn sim_time(&self, py: Python<'_>) -> PyResult<f64> {
        self.run(py, |w| w.sim.sim_time())
    }

    /// Stops the simulation's thread; later calls raise.
    fn close(&self, py: Python<'_>) {
        if let Some(t) = self.shut_down() {
            py.detach(move || {
                let _ = t.join();
            });
        }
    }

    #[getter]
    fn step_period_s(&self) -> f64 {
        self.step_period_s
    }

    /// A vehicle's state as NumPy arrays (the main AUV for `None`):
    /// `position` (user frame x east, y north, z up, m), `velocity` (user
    /// frame, m/s), `position_ned`, `attitude_wxyz` (body → NED), `nu`
    /// (Fossen body velocity u, v, w, p, q, r), `euler_rad` (roll, pitch,
    /// yaw NED), `sim_time`.
    #[pyo3(signature = (agent=None))]
    fn state<'py>(&self, py: Python<'py>, agent: Option<&str>) -> PyResult<Bound<'py, PyDict>> {
        let name = agent.map(str::to_owned);
        let (s, time) = self.run(py, move |w| {
            (w.sim.vehicle_state(name.as_deref()), w.sim.sim_time())
        })?;
        let s = s.ok_or_else(|| {
            PyValueError::new_err(format!(
                "no vehicle `{}` (proxies are kinematic: use agents())",
                agent.unwrap_or("main")
            ))
        })?;
        let d = PyDict::new(py);
        let q = s.attitude.quaternion();
        let (r, p, y) = s.euler();
        let v = s.velocity_ned();
        d.set_item("sim_time", time)?;
        d.set_item(
            "position",
            PyArray1::from_vec(py, User::from(Ned(s.position_ned)).0.to_vec()),
        )?;
        d.set_item(
            "velocity",
            PyArray1::from_vec(py, User::from(Ned(v)).0.to_vec()),
        )?;
        d.set_item(
            "position_ned",
            PyArray1::from_vec(py, s.position_ned.as_slice().to_vec()),
        )?;
        d.set_item(
            "attitude_wxyz",
            PyArray1::from_vec(py, vec![q.w, q.i, q.j, q.k]),
        )?;
        d.set_item("nu", PyArray1::from_vec(py, s.nu.as_slice().to_vec()))?;
        d.set_item("euler_rad", PyArray1::from_vec(py, vec![r, p, y]))?;
        Ok(d)
    }
}
