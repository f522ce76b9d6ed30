//! Samples rendered off the thread that takes them: what a render reads
//! ([`SampleInputs`], owned), the job that renders it ([`RenderJob`]) and
//! the slot a sensor's buffer and a recorder hold meanwhile
//! ([`SampleSlot`]), whose readers wait for the render.
//!
//! A sample's number, times and noise stream are fixed when it is taken,
//! so a sample rendered on a worker equals, value for value, the one the
//! taking thread would have rendered at that instant.

use crate::model::{SampleCtx, SensorModel, SensorSample};
use crate::noise::Noise;
use nalgebra::{Rotation3, Vector3, Vector6};
use oceansim_scene::body::Body;
use oceansim_scene::obstacle::Obstacle;
use oceansim_scene::raycast::SceneView;
use oceansim_scene::terrain::Terrain;
use oceansim_vehicles::VehicleState;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Everything a sample reads at one instant, owned, so that a render can
/// run on another thread while the world moves on.
#[derive(Debug, Clone)]
pub struct SampleInputs {
    /// Time of the sample (s).
    pub time: f64,
    /// Wall-clock time of the sample (see [`SampleCtx::wall_time`]).
    pub wall_time: f64,
    /// The carrying vehicle's state.
    pub state: VehicleState,
    /// Its ν̇ over the last tick (Fossen body).
    pub nu_dot: Vector6<f64>,
    /// Water density (kg/m³).
    pub water_density: f64,
    /// The seabed.
    pub terrain: Arc<Terrain>,
    /// Static obstacles at that instant.
    pub obstacles: Arc<[Obstacle]>,
    /// The other agents' solids at that instant.
    pub bodies: Arc<[Body]>,
}

impl SampleInputs {
    /// The context these inputs describe, for a sensor mounted at the
    /// origin (a sensor applies its own mount).
    pub fn ctx(&self) -> SampleCtx<'_> {
        const ORIGIN: Vector3<f64> = Vector3::new(0.0, 0.0, 0.0);
        static IDENTITY: OnceLock<Rotation3<f64>> = OnceLock::new();
        SampleCtx {
            time: self.time,
            wall_time: self.wall_time,
            state: &self.state,
            nu_dot: self.nu_dot,
            water_density: self.water_density,
            scene: SceneView {
                terrain: &self.terrain,
                obstacles: &self.obstacles,
                bodies: &self.bodies,
            },
            mount: (&ORIGIN, IDENTITY.get_or_init(Rotation3::identity)),
        }
    }
}

/// A sample being rendered: its number and times are known, its reading
/// once the render is done.
#[derive(Debug)]
pub struct PendingSample {
    time: f64,
    sequence: u64,
    /// The sample, or why its render failed (a panic's message).
    done: OnceLock<Result<Arc<SensorSample>, Box<str>>>,
}

impl PendingSample {
    /// Whether the render is done.
    pub fn is_ready(&self) -> bool {
        self.done.get().is_some()
    }

    /// The sample, waiting for its render.
    ///
    /// # Panics
    ///
    /// If the render panicked (as it would have on the thread that took
    /// the sample).
    pub fn wait(&self) -> &Arc<SensorSample> {
        // Rather than sleep while the render is queued, run it here (a
        // reader of one sample does not wait behind the whole queue), then,
        // if it is running elsewhere, queued renders (oldest first) until
        // it is done.
        let pool = crate::pool::RenderPool::global();
        if !self.is_ready() && !pool.run_for(self) {
            crate::pool::help_until(pool, || self.is_ready());
        }
        match self.done.wait() {
            Ok(s) => s,
            Err(why) => panic!("rendering sample {} panicked: {why}", self.sequence),
        }
    }
}

/// A sample in a sensor's buffer or a recorder's frame: taken and
/// rendered, or taken and rendering on a worker.
#[derive(Debug, Clone)]
pub enum SampleSlot {
    /// Rendered.
    Ready(Arc<SensorSample>),
    /// Rendering.
    Pending(Arc<PendingSample>),
}

impl SampleSlot {
    /// The sample's sequence number (known before it is rendered).
    pub fn sequence(&self) -> u64 {
        match self {
            SampleSlot::Ready(s) => s.sequence,
            SampleSlot::Pending(p) => p.sequence,
        }
    }

    /// When the sample was taken (s, simulated).
    pub fn time(&self) -> f64 {
        match self {
            SampleSlot::Ready(s) => s.time,
            SampleSlot::Pending(p) => p.time,
        }
    }

    /// Whether it is rendered.
    pub fn is_ready(&self) -> bool {
        match self {
            SampleSlot::Ready(_) => true,
            SampleSlot::Pending(p) => p.is_ready(),
        }
    }

    /// The sample, waiting for its render if it is still running (see
    /// [`PendingSample::wait`]).
    pub fn get(&self) -> &Arc<SensorSample> {
        match self {
            SampleSlot::Ready(s) => s,
            SampleSlot::Pending(p) => p.wait(),
        }
    }
}

/// One sample's render, to run on any thread: the model's detached copy,
/// the inputs at the instant the sample was taken, the mount and the
/// sample's noise stream. A job dropped without running fails its sample
/// (its readers panic with that) rather than leave them waiting.
#[derive(Debug)]
#[must_use = "a sample's readers wait for its render: run or submit the job"]
pub struct RenderJob {
    pub(crate) model: Box<dyn SensorModel>,
    pub(crate) inputs: SampleInputs,
    pub(crate) mount: (Vector3<f64>, Rotation3<f64>),
    pub(crate) noise_seed: u64,
    pub(crate) out: Arc<PendingSample>,
    /// The sensor's render-time counter (ns).
    pub(crate) cost: Arc<AtomicU64>,
}

impl RenderJob {
    /// A job filling a new pending sample numbered `sequence`.
    pub(crate) fn new(
        model: Box<dyn SensorModel>,
        inputs: SampleInputs,
        mount: (Vector3<f64>, Rotation3<f64>),
        noise_seed: u64,
        sequence: u64,
        cost: Arc<AtomicU64>,
    ) -> Self {
        let out = Arc::new(PendingSample {
            time: inputs.time,
            sequence,
            done: OnceLock::new(),
        });
        RenderJob {
            model,
            inputs,
            mount,
            noise_seed,
            out,
            cost,
        }
    }

    /// Queues the job on the process's [`crate::RenderPool`].
    pub fn submit(self) {
        crate::pool::RenderPool::global().submit(self);
    }

    /// The slot the render fills.
    pub fn pending(&self) -> &Arc<PendingSample> {
        &self.out
    }

    /// Renders the sample and fills its slot. A panicking model fills it
    /// with the panic's message, so its readers fail rather than wait
    /// forever.
    pub fn run(mut self) {
        let started = Instant::now();
        let sequence = self.out.sequence;
        let job = &mut self;
        let rendered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut rng = Noise::new(job.noise_seed, sequence);
            let ctx = SampleCtx {
                mount: (&job.mount.0, &job.mount.1),
                ..job.inputs.ctx()
            };
            let reading = job.model.sample(&ctx, &mut rng);
            Arc::new(SensorSample {
                time: job.inputs.time,
                wall_time: job.inputs.wall_time,
                sequence,
                reading,
            })
        }))
        .map_err(|e| {
            e.downcast_ref::<&str>()
                .map(|s| (*s).into())
                .or_else(|| e.downcast_ref::<String>().map(|s| s.as_str().into()))
                .unwrap_or_else(|| "a render panicked".into())
        });
        crate::add_elapsed(&self.cost, started);
        let _ = self.out.done.set(rendered);
    }
}

impl Drop for RenderJob {
    fn drop(&mut self) {
        // A no-op once run; otherwise the sample fails instead of hanging.
        let _ = self
            .out
            .done
            .set(Err("its render job was dropped unrun".into()));
    }
}
