//! The vectorised Fossen system: one [`Vehicle::step`] per vehicle per
//! tick (the same step the simulator and the gym lanes take), each with
//! its own vehicle, no allocation, rows split across threads for large
//! fleets (each row's arithmetic is the same on any split, so the result
//! does not depend on the thread count).

use super::names;
use nalgebra::{Quaternion, UnitQuaternion, Vector3, Vector6};
use oceansim_ecs::{Access, EcsError, Handle, Probe, Result, Step, System, Tracked, World};
use oceansim_vehicles::{CommandLimits, Vehicle, VehicleModel, VehicleProfile, VehicleState};
use serde_json::{Map, Value};
use std::sync::Arc;

/// The vehicles of a fleet: a few profiles, and which one each row uses.
#[derive(Debug, Clone)]
pub struct FleetModels {
    /// Distinct vehicles with their profile names.
    pub models: Arc<[(String, Vehicle)]>,
    /// Index into `models` per row.
    pub of_row: Arc<[u32]>,
}

impl FleetModels {
    /// `n` vehicles cycling through `profiles` (row i uses profile
    /// i mod len).
    ///
    /// # Panics
    /// If `profiles` is empty.
    pub fn cycle(profiles: &[VehicleProfile], n: usize) -> Self {
        assert!(!profiles.is_empty(), "a fleet needs at least one profile");
        let of_row: Vec<u32> = (0..n).map(|i| (i % profiles.len()) as u32).collect();
        Self::new(profiles, &of_row).expect("indices in range")
    }

    /// Row i uses `profiles[of_row[i]]`.
    pub fn new(profiles: &[VehicleProfile], of_row: &[u32]) -> Result<Self> {
        if let Some(bad) = of_row.iter().find(|&&k| k as usize >= profiles.len()) {
            return Err(EcsError::Shape {
                name: "fleet models".into(),
                expected: format!("profile indices below {}", profiles.len()),
                got: bad.to_string(),
            });
        }
        Ok(FleetModels {
            models: profiles
                .iter()
                .map(|p| (p.name.clone(), Vehicle::from_profile(p)))
                .collect(),
            of_row: of_row.into(),
        })
    }

    /// Row `i`'s vehicle.
    pub fn vehicle(&self, i: usize) -> &Vehicle {
        &self.models[self.of_row[i] as usize].1
    }

    /// Row `i`'s dynamics model.
    pub fn model(&self, i: usize) -> &VehicleModel {
        &self.vehicle(i).model
    }

    /// Row `i`'s command limits.
    pub fn limits(&self, i: usize) -> &CommandLimits {
        &self.vehicle(i).limits
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.of_row.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.of_row.is_empty()
    }
}

/// Registers a fleet's components on `world` (N = `world.len()` rows,
/// `models.len()` must match) with vehicles at rest at `p_ned` (N·3, m)
/// with yaw `psi` (N, rad; level), and returns the dynamics system.
/// References start at the initial depth and heading with zero speed; the
/// current is zero until an [`super::OceanCurrent`] writes it.
pub fn fossen_fleet(
    world: &mut World,
    models: FleetModels,
    p_ned: &[f64],
    psi: &[f64],
) -> Result<FossenFleet> {
    let n = world.len();
    if models.len() != n || p_ned.len() != 3 * n || psi.len() != n {
        return Err(EcsError::Shape {
            name: names::P.into(),
            expected: format!("{n} models, {} positions, {n} headings", 3 * n),
            got: format!(
                "{} models, {} positions, {} headings",
                models.len(),
                p_ned.len(),
                psi.len()
            ),
        });
    }
    let q: Vec<f64> = psi
        .iter()
        .flat_map(|&y| [(y / 2.0).cos(), 0.0, 0.0, (y / 2.0).sin()])
        .collect();
    let depth: Vec<f64> = (0..n).map(|i| p_ned[3 * i + 2]).collect();
    // Loop-carried: controllers read the state the last tick left.
    world.add_self_integrated_state(names::P, &[3], Some(p_ned))?;
    world.add_self_integrated_state(names::Q, &[4], Some(&q))?;
    world.add_self_integrated_state(names::NU, &[6], None)?;
    world.add(names::TAU, &[6], None)?;
    world.add(names::CURRENT, &[3], None)?;
    world.add(names::DEPTH_REF, &[], Some(&depth))?;
    world.add(names::HEADING_REF, &[], Some(psi))?;
    world.add(names::SPEED_REF, &[], None)?;
    world.add(names::V_DES, &[2], None)?;
    Ok(FossenFleet::new(models))
}

/// One [`Vehicle::step`] of a row under a body wrench: position (3),
/// quaternion `[w, x, y, z]` (4) and ν (6) updated in place under wrench
/// `tau` (6) and current (3, NED). Returns false, leaving the row
/// unchanged, when the result would not be plausible. The attitude is read
/// back normalised, as the simulator reads its own, so a row and the
/// simulator's vehicle under the same wrench stay equal bit for bit.
pub fn step_vehicle(
    vehicle: &Vehicle,
    p: &mut [f64],
    q: &mut [f64],
    nu: &mut [f64],
    tau: &[f64],
    current: &[f64],
    dt: f64,
) -> bool {
    let s = VehicleState {
        position_ned: Vector3::new(p[0], p[1], p[2]),
        attitude: UnitQuaternion::new_normalize(Quaternion::new(q[0], q[1], q[2], q[3])),
        nu: Vector6::from_column_slice(&nu[..6]),
    };
    let t = Vector6::from_column_slice(&tau[..6]);
    let c = Vector3::new(current[0], current[1], current[2]);
    let Some(next) = vehicle.step_at_rest(&s, &t, &c, dt) else {
        return false;
    };
    let a = next.attitude.quaternion();
    p[..3].copy_from_slice(next.position_ned.as_slice());
    q[..4].copy_from_slice(&[a.w, a.i, a.j, a.k]);
    nu[..6].copy_from_slice(next.nu.as_slice());
    true
}

/// `fossen_fleet`: advances every row one [`Vehicle::step`] of its own
/// vehicle (its profile's integrator) under the wrench in `tau`.
/// A row whose step fails keeps its pose and stops (ν = 0); the count is
/// published as the tracked scalar `fleet_faults` (cumulative). With more
/// than one thread, fleets of at least twice the split threshold are
/// stepped in parallel chunks.
#[derive(Debug)]
pub struct FossenFleet {
    models: FleetModels,
    par_threshold: usize,
    faults: Probe,
    total_faults: u64,
    h: Option<[Handle<f64>; 5]>,
}

impl FossenFleet {
    /// Rows per thread below which the fleet steps on one thread (a
    /// torpedo's RK4 step is ~0.3 µs: 128 of them outweigh a fork/join).
    pub const DEFAULT_PAR_THRESHOLD: usize = 128;

    /// The dynamics of `models` (one per row).
    pub fn new(models: FleetModels) -> Self {
        FossenFleet {
            models,
            par_threshold: Self::DEFAULT_PAR_THRESHOLD,
            faults: Probe::new(),
            total_faults: 0,
            h: None,
        }
    }

    /// Splits across threads from 2 × `rows` rows on, when more than one
    /// thread is available (tests use a small value to exercise the split).
    pub fn with_par_threshold(mut self, rows: usize) -> Self {
        self.par_threshold = rows.max(1);
        self
    }

    /// Steps that failed so far.
    pub fn faults(&self) -> u64 {
        self.total_faults
    }
}

/// Steps rows `first..` of one chunk; returns the failures.
#[allow(clippy::too_many_arguments)]
fn step_chunk(
    models: &FleetModels,
    first: usize,
    p: &mut [f64],
    q: &mut [f64],
    nu: &mut [f64],
    tau: &[f64],
    cur: &[f64],
    dt: f64,
) -> u64 {
    let mut failed = 0;
    for (k, ((p, q), nu)) in p
        .chunks_exact_mut(3)
        .zip(q.chunks_exact_mut(4))
        .zip(nu.chunks_exact_mut(6))
        .enumerate()
    {
        let i = first + k;
        let ok = step_vehicle(
            models.vehicle(i),
            p,
            q,
            nu,
            &tau[6 * i..6 * i + 6],
            &cur[3 * i..3 * i + 3],
            dt,
        );
        if !ok {
            // A diverged step leaves the vehicle at rest where it was.
            nu.fill(0.0);
            failed += 1;
        }
    }
    failed
}

impl System for FossenFleet {
    fn name(&self) -> &str {
        "fossen_fleet"
    }
    fn access(&self) -> Access {
        Access::new()
            .reads([names::TAU, names::CURRENT])
            .writes([names::P, names::Q, names::NU])
    }
    fn init(&mut self, w: &World) -> Result<()> {
        if self.models.len() != w.len() {
            return Err(EcsError::Shape {
                name: "fossen_fleet".into(),
                expected: format!("{} rows", self.models.len()),
                got: format!("{} entities", w.len()),
            });
        }
        self.h = Some([
            w.handle(names::P)?,
            w.handle(names::Q)?,
            w.handle(names::NU)?,
            w.handle(names::TAU)?,
            w.handle(names::CURRENT)?,
        ]);
        Ok(())
    }
    fn run(&mut self, w: &World, step: &Step) {
        let Some([hp, hq, hnu, ht, hc]) = self.h else {
            return;
        };
        let (tau, cur) = (w.read(ht), w.read(hc));
        let (tau, cur): (&[f64], &[f64]) = (&tau, &cur);
        let (mut p, mut q, mut nu) = (w.write(hp), w.write(hq), w.write(hnu));
        let rows = p.len() / 3;
        let models = &self.models;
        let dt = step.dt;
        let threads = rayon::current_num_threads();
        let failed = if threads > 1 && rows >= 2 * self.par_threshold {
            use rayon::prelude::*;
            let chunk = rows
                .div_ceil(4 * threads)
                .max(self.par_threshold / 2)
                .max(1);
            p.par_chunks_mut(3 * chunk)
                .zip(q.par_chunks_mut(4 * chunk))
                .zip(nu.par_chunks_mut(6 * chunk))
                .enumerate()
                .map(|(c, ((p, q), nu))| step_chunk(models, c * chunk, p, q, nu, tau, cur, dt))
                .sum()
        } else {
            step_chunk(models, 0, &mut p, &mut q, &mut nu, tau, cur, dt)
        };
        self.total_faults += failed;
        self.faults.set(self.total_faults as f64);
    }
    fn tracked(&mut self) -> Vec<Tracked> {
        vec![Tracked::new("fleet_faults", self.faults.source())]
    }
    fn params(&self) -> Map<String, Value> {
        let mut m = Map::new();
        let names: Vec<&str> = self.models.models.iter().map(|(n, _)| n.as_str()).collect();
        m.insert(
            "fossen_fleet".into(),
            crate::controllers::logged(&FleetParams {
                vehicles: self.models.len(),
                profiles: names,
            }),
        );
        m
    }
}
/// The Fossen fleet's logged settings.
#[derive(serde::Serialize)]
struct FleetParams<'a> {
    /// Vehicles in the fleet.
    vehicles: usize,
    /// Their profiles' names.
    profiles: Vec<&'a str>,
}
