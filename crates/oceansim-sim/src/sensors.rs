//! Sensors: payloads in the `oceansim_sensor_payload` envelope (schema
//! version 2), computed from the scene by ray casting, each at its own rate
//! and with seeded noise, so the same command sequence gives the same bytes.
//!
//! Sensor frames follow the body: x forward, y starboard, z down (FRD);
//! `extrinsic_xyz_rpy` is the mount in the body frame (m, rad). Geometry in
//! payloads is in the sensor frame unless a field says `_world` (OceanSim
//! user frame: x east, y north, z up).

use crate::geometry::{splitmix64, Obstacle, Terrain};
use nalgebra::{Rotation3, UnitQuaternion, Vector3, Vector6};
use oceansim_vehicles::frames::ned_to_enu;
use oceansim_vehicles::{SensorMount, VehicleState};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map, Value};

/// What a ray hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Hit {
    /// Nothing within range.
    None = 0,
    /// The seabed.
    Terrain = 1,
    /// A static obstacle.
    Obstacle = 2,
    /// A dynamic agent.
    Agent = 3,
}

/// The geometry sensors see, user frame.
#[derive(Debug)]
pub struct Scene<'a> {
    /// Seabed.
    pub terrain: &'a Terrain,
    /// Static obstacles.
    pub obstacles: &'a [Obstacle],
    /// Dynamic agents as spheres: (centre, radius).
    pub agents: &'a [([f64; 3], f64)],
}

impl Scene<'_> {
    /// Obstacles that a ray of length `max` from `o` could reach.
    pub fn candidates(&self, o: &Vector3<f64>, max: f64) -> Vec<usize> {
        self.obstacles
            .iter()
            .enumerate()
            .filter(|(_, ob)| (Vector3::from(ob.center) - o).norm() - ob.bounding_radius() <= max)
            .map(|(i, _)| i)
            .collect()
    }

    /// Nearest hit along unit `d` from `o` within `max` m.
    pub fn raycast(&self, o: &Vector3<f64>, d: &Vector3<f64>, max: f64) -> (f64, Hit) {
        self.raycast_among(o, d, max, &self.candidates(o, max))
    }

    /// Like [`Scene::raycast`], testing only the obstacles in `candidates`.
    pub fn raycast_among(
        &self,
        o: &Vector3<f64>,
        d: &Vector3<f64>,
        max: f64,
        candidates: &[usize],
    ) -> (f64, Hit) {
        let mut best = (max, Hit::None);
        if o.z > 0.0 && d.z >= 0.0 {
            return best;
        }
        if let Some(t) = self.terrain.raycast(o, d, max) {
            best = (t, Hit::Terrain);
        }
        for ob in candidates.iter().map(|&i| &self.obstacles[i]) {
            if let Some(t) = ob.raycast(o, d) {
                if t < best.0 {
                    best = (t, Hit::Obstacle);
                }
            }
        }
        for (c, r) in self.agents {
            let oc = o - Vector3::from(*c);
            let b = oc.dot(d);
            let disc = b * b - (oc.norm_squared() - r * r);
            if disc >= 0.0 {
                let t = -b - disc.sqrt();
                if t >= 0.0 && t < best.0 {
                    best = (t, Hit::Agent);
                }
            }
        }
        // The sea surface (z = 0) reflects rays going up.
        if d.z > 0.0 {
            let t = -o.z / d.z;
            if t >= 0.0 && t < best.0 {
                best = (t, Hit::None);
            }
        }
        best
    }
}

/// Everything a sensor reads at one instant.
#[derive(Debug)]
pub struct Snapshot<'a> {
    /// Simulation time (s).
    pub time: f64,
    /// The AUV state.
    pub state: &'a VehicleState,
    /// ν̇ of the last tick (body), for the IMU.
    pub nu_dot: Vector6<f64>,
    /// Water density (kg/m³).
    pub water_density: f64,
    /// The scene.
    pub scene: Scene<'a>,
    /// Agent name (frame ids are `{agent}/...`).
    pub agent: &'a str,
}

/// The sensor families.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Pressure depth.
    Depth,
    /// Inertial measurement unit.
    Imu,
    /// Doppler velocity log.
    Dvl,
    /// Camera (intrinsics, depth and segmentation images).
    Camera,
    /// RGB-D dense point cloud.
    RgbdDenseCloud,
    /// Planar lidar.
    Lidar2d,
    /// 3-D lidar.
    Lidar3d,
    /// Forward-looking imaging sonar.
    ImagingSonar,
    /// Down-looking multibeam.
    MultibeamSonar,
    /// Side-scan sonar.
    SideScanSonar,
}

impl Kind {
    /// Parses a sensor family name.
    pub fn parse(s: &str) -> Option<Kind> {
        Some(match s {
            "depth" => Kind::Depth,
            "imu" => Kind::Imu,
            "dvl" => Kind::Dvl,
            "camera" => Kind::Camera,
            "rgbd_dense_cloud" | "rgbd" => Kind::RgbdDenseCloud,
            "lidar_2d" => Kind::Lidar2d,
            "lidar_3d" => Kind::Lidar3d,
            "imaging_sonar" => Kind::ImagingSonar,
            "multibeam_sonar" => Kind::MultibeamSonar,
            "side_scan_sonar" => Kind::SideScanSonar,
            _ => return None,
        })
    }

    /// Family name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Depth => "depth",
            Kind::Imu => "imu",
            Kind::Dvl => "dvl",
            Kind::Camera => "camera",
            Kind::RgbdDenseCloud => "rgbd_dense_cloud",
            Kind::Lidar2d => "lidar_2d",
            Kind::Lidar3d => "lidar_3d",
            Kind::ImagingSonar => "imaging_sonar",
            Kind::MultibeamSonar => "multibeam_sonar",
            Kind::SideScanSonar => "side_scan_sonar",
        }
    }

    /// Update rate (Hz).
    pub fn rate_hz(self) -> f64 {
        match self {
            Kind::Imu => 100.0,
            Kind::Depth => 20.0,
            Kind::Dvl | Kind::Lidar2d => 10.0,
            _ => 5.0,
        }
    }

    /// Standard deviation of the main measurement noise.
    fn sigma(self) -> f64 {
        match self {
            Kind::Depth => 0.01,
            Kind::Imu => 0.02,
            Kind::Dvl => 0.005,
            Kind::Lidar2d | Kind::Lidar3d => 0.02,
            Kind::Camera | Kind::RgbdDenseCloud => 0.01,
            _ => 0.05,
        }
    }
}

/// Writes a JSON object field by field, serialising values directly (no
/// intermediate `Value` trees).
struct Obj {
    buf: Vec<u8>,
    first: bool,
}

impl Obj {
    /// An object whose first fields are the pre-rendered `fragment`
    /// (`"k":v,...` without braces).
    fn new(fragment: &str) -> Self {
        let mut buf = Vec::with_capacity(4096);
        buf.push(b'{');
        buf.extend_from_slice(fragment.as_bytes());
        Obj {
            buf,
            first: fragment.is_empty(),
        }
    }

    fn put<T: serde::Serialize + ?Sized>(&mut self, key: &str, value: &T) {
        if !self.first {
            self.buf.push(b',');
        }
        self.first = false;
        self.buf.push(b'"');
        self.buf.extend_from_slice(key.as_bytes());
        self.buf.extend_from_slice(b"\":");
        // Plain data (numbers, strings, arrays) always serialises.
        let _ = serde_json::to_writer(&mut self.buf, value);
    }

    fn finish(mut self) -> String {
        self.buf.push(b'}');
        String::from_utf8(self.buf).unwrap_or_else(|_| "{}".into())
    }
}

/// Round for compact, deterministic payloads (1 mm, 1e-3 of other units).
fn r4(x: f64) -> f64 {
    (x * 1e3).round() / 1e3
}

/// An intensity in [0, 1] as an 8-bit value.
fn to_u8(x: f64) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round() as u8
}

fn gauss(rng: &mut ChaCha8Rng) -> f64 {
    // Box–Muller.
    let u1: f64 = rng.gen::<f64>().max(1e-300);
    let u2: f64 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// One sensor with its cached payload.
#[derive(Debug, Clone)]
pub struct Sensor {
    /// Name (unique per agent).
    pub name: String,
    /// Family.
    pub kind: Kind,
    mount_xyz: [f64; 3],
    mount_rot: Rotation3<f64>,
    noise_seed: u64,
    sequence: u64,
    last_time: Option<f64>,
    /// The last payload, serialised once when it was computed.
    cached: String,
    /// Beam directions in the sensor frame.
    beams: Vec<Vector3<f64>>,
    /// The envelope fields that never change, pre-rendered.
    fragment: String,
}

const LIDAR2D_BEAMS: usize = 90;
const LIDAR3D_RINGS: usize = 8;
const LIDAR3D_COLS: usize = 36;
const CAM_W: usize = 16;
const CAM_H: usize = 12;
const SONAR_BEAMS: usize = 24;
const SONAR_BINS: usize = 32;
const MB_BEAMS: usize = 32;
const SSS_RAYS: usize = 16;

fn beams(kind: Kind) -> Vec<Vector3<f64>> {
    let deg = |x: f64| x.to_radians();
    match kind {
        Kind::Lidar2d => (0..LIDAR2D_BEAMS)
            .map(|i| {
                let a = deg(-180.0 + 360.0 * i as f64 / LIDAR2D_BEAMS as f64);
                Vector3::new(a.cos(), a.sin(), 0.0)
            })
            .collect(),
        Kind::Lidar3d => (0..LIDAR3D_RINGS)
            .flat_map(|r| {
                let e = deg(-15.0 + 30.0 * r as f64 / (LIDAR3D_RINGS - 1) as f64);
                (0..LIDAR3D_COLS).map(move |c| {
                    let a = deg(-180.0 + 360.0 * c as f64 / LIDAR3D_COLS as f64);
                    Vector3::new(e.cos() * a.cos(), e.cos() * a.sin(), -e.sin())
                })
            })
            .collect(),
        Kind::Camera | Kind::RgbdDenseCloud => {
            let (fx, cx, cy) = camera_intrinsics();
            (0..CAM_H)
                .flat_map(|v| {
                    (0..CAM_W).map(move |u| {
                        Vector3::new(1.0, (u as f64 + 0.5 - cx) / fx, (v as f64 + 0.5 - cy) / fx)
                            .normalize()
                    })
                })
                .collect()
        }
        Kind::ImagingSonar => (0..SONAR_BEAMS)
            .map(|i| {
                let a = deg(-45.0 + 90.0 * (i as f64 + 0.5) / SONAR_BEAMS as f64);
                Vector3::new(a.cos(), a.sin(), 0.0)
            })
            .collect(),
        Kind::MultibeamSonar => (0..MB_BEAMS)
            .map(|i| {
                let b = deg(-60.0 + 120.0 * (i as f64 + 0.5) / MB_BEAMS as f64);
                Vector3::new(0.0, b.sin(), b.cos())
            })
            .collect(),
        Kind::SideScanSonar => [-1.0, 1.0]
            .iter()
            .flat_map(|side| {
                (0..SSS_RAYS).map(move |i| {
                    // 15°..80° below horizontal: shallower rays rarely return within range.
                    let d = deg(15.0 + 65.0 * i as f64 / (SSS_RAYS - 1) as f64);
                    Vector3::new(0.0, side * d.cos(), d.sin())
                })
            })
            .collect(),
        Kind::Dvl => vec![Vector3::new(0.0, 0.0, 1.0)],
        Kind::Depth | Kind::Imu => Vec::new(),
    }
}

/// (fx = fy, cx, cy) of the 90° camera.
fn camera_intrinsics() -> (f64, f64, f64) {
    let fx = (CAM_W as f64 / 2.0) / (45f64.to_radians()).tan();
    (fx, CAM_W as f64 / 2.0, CAM_H as f64 / 2.0)
}

fn max_range(kind: Kind) -> f64 {
    match kind {
        Kind::Lidar2d => 20.0,
        Kind::Lidar3d => 25.0,
        Kind::Camera | Kind::RgbdDenseCloud => 15.0,
        Kind::ImagingSonar => 30.0,
        Kind::MultibeamSonar => 60.0,
        Kind::SideScanSonar => 50.0,
        Kind::Dvl => 30.0,
        _ => 0.0,
    }
}

impl Sensor {
    /// A sensor `name` of family `kind` on agent `agent`, mounted per
    /// `mount` (or at the origin), with noise seeded from `seed`.
    pub fn new(name: &str, kind: Kind, mount: Option<&SensorMount>, seed: u64) -> Self {
        Self::on_agent("auv/main", name, kind, mount, seed)
    }

    /// [`Sensor::new`] for a named agent (frame ids are `{agent}/...`).
    pub fn on_agent(
        agent: &str,
        name: &str,
        kind: Kind,
        mount: Option<&SensorMount>,
        seed: u64,
    ) -> Self {
        let (xyz, rpy_deg) =
            mount.map_or(([0.0; 3], [0.0; 3]), |m| (m.position_m, m.rotation_rpy_deg));
        let rpy = rpy_deg.map(f64::to_radians);
        let mut h = seed;
        for b in name.bytes() {
            h = splitmix64(h ^ u64::from(b));
        }
        let mount_rot = Rotation3::from_euler_angles(rpy[0], rpy[1], rpy[2]);
        let q = UnitQuaternion::from_rotation_matrix(&mount_rot);
        let v = kind.sigma().powi(2);
        let mut head = Obj::new("");
        head.put("enabled", &true);
        head.put("status", "ok");
        head.put("schema_name", "oceansim_sensor_payload");
        head.put("schema_version", &2);
        head.put("sensor_type", kind.name());
        head.put("frame_id", &format!("{agent}/base_link"));
        head.put("sensor_frame_id", &format!("{agent}/{name}"));
        head.put("parent_frame_id", &format!("{agent}/base_link"));
        head.put("noise_seed", &h);
        head.put(
            "extrinsic_xyz_rpy",
            &[xyz[0], xyz[1], xyz[2], rpy[0], rpy[1], rpy[2]],
        );
        head.put("extrinsic_quat_xyzw", &[q.i, q.j, q.k, q.w]);
        head.put(
            "covariance",
            &json!({"convention": "diagonal_variance", "diagonal": [v, v, v]}),
        );
        let full = head.finish();
        let fragment = full[1..full.len() - 1].to_owned();
        Sensor {
            name: name.into(),
            kind,
            mount_xyz: xyz,
            mount_rot,
            noise_seed: h,
            sequence: 0,
            last_time: None,
            cached: String::from("null"),
            beams: beams(kind),
            fragment,
        }
    }

    /// Whether a new sample is due at `time`.
    fn due(&self, time: f64) -> bool {
        self.last_time
            .is_none_or(|t| time - t >= 1.0 / self.kind.rate_hz() - 1e-9)
    }

    /// The payload at `snap.time` as JSON text, recomputed when due.
    pub fn payload(&mut self, snap: &Snapshot<'_>) -> &str {
        if self.due(snap.time) {
            self.sequence += 1;
            self.last_time = Some(snap.time);
            self.cached = self.compute(snap);
        }
        &self.cached
    }

    /// Sensor origin (user frame) and the body→user rotation of its beams.
    fn pose(
        &self,
        s: &VehicleState,
    ) -> (Vector3<f64>, impl Fn(&Vector3<f64>) -> Vector3<f64> + '_) {
        let att = s.attitude;
        let origin_ned = s.position_ned + att * Vector3::from(self.mount_xyz);
        let rot = self.mount_rot;
        (ned_to_enu(&origin_ned), move |d: &Vector3<f64>| {
            ned_to_enu(&(att * (rot * d)))
        })
    }

    fn cast_all(&self, snap: &Snapshot<'_>) -> Vec<(f64, Hit)> {
        let (o, to_world) = self.pose(snap.state);
        let max = max_range(self.kind);
        // Broad phase once per update: only obstacles within reach.
        let near = snap.scene.candidates(&o, max);
        self.beams
            .iter()
            .map(|b| snap.scene.raycast_among(&o, &to_world(b), max, &near))
            .collect()
    }

    fn compute(&self, snap: &Snapshot<'_>) -> String {
        let mut rng = ChaCha8Rng::seed_from_u64(splitmix64(self.noise_seed ^ self.sequence));
        let sigma = self.kind.sigma();
        let mut o = Obj::new(&self.fragment);
        let t = snap.time;
        o.put("sim_time", &t);
        o.put("timestamp_sim", &t);
        // The headless server has no render clock: wall time is sim time,
        // which keeps lockstep responses byte-identical.
        o.put("timestamp_wall", &t);
        o.put("timestamp", &t);
        o.put("sequence", &self.sequence);
        let s = snap.state;
        macro_rules! put {
            ($k:expr, $v:expr $(,)?) => {
                o.put($k, &$v)
            };
        }
        match self.kind {
            Kind::Depth => {
                let (o, _) = self.pose(s);
                let depth = (-o.z).max(0.0) + sigma * gauss(&mut rng);
                put!("depth_m", r4(depth));
                put!(
                    "pressure_pa",
                    r4(101_325.0 + snap.water_density * 9.81 * depth.max(0.0)),
                );
            }
            Kind::Imu => {
                let g_body = s
                    .attitude
                    .inverse_transform_vector(&Vector3::new(0.0, 0.0, 9.81));
                let a = snap.nu_dot.fixed_rows::<3>(0) - g_body;
                let w = s.nu.fixed_rows::<3>(3);
                let q = s.attitude.quaternion();
                let mut n = || sigma * gauss(&mut rng);
                put!(
                    "linear_acceleration",
                    json!([r4(a.x + n()), r4(a.y + n()), r4(a.z + n())]),
                );
                put!(
                    "angular_velocity",
                    json!([
                        r4(w.x + n() * 0.1),
                        r4(w.y + n() * 0.1),
                        r4(w.z + n() * 0.1)
                    ]),
                );
                put!("orientation_quat_xyzw", json!([q.i, q.j, q.k, q.w]));
                put!(
                    "frame_convention",
                    "FRD body, specific force (m/s^2), rates (rad/s)",
                );
            }
            Kind::Dvl => {
                let hits = self.cast_all(snap);
                let (alt, hit) = hits[0];
                let valid = hit != Hit::None;
                let mut n = || sigma * gauss(&mut rng);
                put!(
                    "velocity_body",
                    json!([r4(s.nu[0] + n()), r4(s.nu[1] + n()), r4(s.nu[2] + n())]),
                );
                put!(
                    "altitude_m",
                    if valid {
                        r4(alt + n()).into()
                    } else {
                        Value::Null
                    },
                );
                put!("bottom_lock", valid);
            }
            Kind::Lidar2d => {
                let hits = self.cast_all(snap);
                let ranges: Vec<f64> = hits
                    .iter()
                    .map(|(t, h)| {
                        if *h == Hit::None {
                            max_range(self.kind)
                        } else {
                            r4(t + sigma * gauss(&mut rng))
                        }
                    })
                    .collect();
                let intensity: Vec<f64> = hits
                    .iter()
                    .map(|(t, h)| {
                        if *h == Hit::None {
                            0.0
                        } else {
                            r4(1.0 / (1.0 + t))
                        }
                    })
                    .collect();
                put!("angle_min_rad", (-std::f64::consts::PI));
                put!(
                    "angle_increment_rad",
                    (2.0 * std::f64::consts::PI / LIDAR2D_BEAMS as f64),
                );
                put!("range_min_m", 0.1);
                put!("range_max_m", max_range(self.kind));
                put!("ranges", ranges);
                put!("intensities", intensity);
            }
            Kind::Lidar3d | Kind::Camera | Kind::RgbdDenseCloud => {
                let hits = self.cast_all(snap);
                let (o, to_world) = self.pose(s);
                let mut pts = Vec::new();
                let mut world = Vec::new();
                let mut ring_col = Vec::new();
                let mut depth = Vec::with_capacity(hits.len());
                let mut labels = Vec::with_capacity(hits.len());
                for (k, ((t, h), b)) in hits.iter().zip(&self.beams).enumerate() {
                    labels.push(*h as u8);
                    if *h == Hit::None {
                        depth.push(0u16);
                        continue;
                    }
                    let t = t + sigma * gauss(&mut rng);
                    let p = b * t;
                    // Depth along the optical axis, millimetres (0 = no return).
                    depth.push((p.x * 1000.0).round().clamp(0.0, f64::from(u16::MAX)) as u16);
                    pts.push([r4(p.x), r4(p.y), r4(p.z)]);
                    let w = o + to_world(b) * t;
                    world.push([r4(w.x), r4(w.y), r4(w.z)]);
                    ring_col.push([k / LIDAR3D_COLS, k % LIDAR3D_COLS]);
                }
                match self.kind {
                    Kind::Lidar3d => {
                        put!("rings", LIDAR3D_RINGS);
                        put!("columns", LIDAR3D_COLS);
                        put!("point_count", pts.len());
                        put!("points", pts);
                        put!("points_world", world);
                        put!("ring_column", ring_col);
                    }
                    Kind::Camera => {
                        let (f, cx, cy) = camera_intrinsics();
                        put!("width", CAM_W);
                        put!("height", CAM_H);
                        put!("intrinsics", json!({"fx": f, "fy": f, "cx": cx, "cy": cy}));
                        put!("depth_image_mm", depth);
                        put!("segmentation", labels);
                        put!(
                            "segmentation_classes",
                            json!({"0": "water", "1": "terrain", "2": "static_obstacle", "3": "dynamic_agent"}),
                        );
                    }
                    _ => {
                        let colors: Vec<[u8; 3]> = hits
                            .iter()
                            .filter(|(_, h)| *h != Hit::None)
                            .map(|(_, h)| match h {
                                Hit::Terrain => [150, 140, 110],
                                Hit::Obstacle => [90, 90, 100],
                                _ => [230, 180, 40],
                            })
                            .collect();
                        put!("point_count", pts.len());
                        put!("points", pts);
                        put!("points_world", world);
                        put!("colors_rgb", colors);
                    }
                }
            }
            Kind::ImagingSonar => {
                let hits = self.cast_all(snap);
                let bin = max_range(self.kind) / SONAR_BINS as f64;
                // Echo: a Gaussian blob (σ = one bin) at the return, plus
                // uniform speckle, as 8-bit intensities (value / 255).
                let image: Vec<Vec<u8>> = hits
                    .iter()
                    .map(|(t, h)| {
                        (0..SONAR_BINS)
                            .map(|k| {
                                let r = (k as f64 + 0.5) * bin;
                                let z = (r - t) / bin;
                                let echo = if *h == Hit::None || z.abs() > 4.0 {
                                    0.0
                                } else {
                                    (-0.5 * z * z).exp()
                                };
                                to_u8(echo + 0.03 * rng.gen::<f64>())
                            })
                            .collect()
                    })
                    .collect();
                put!("beams", SONAR_BEAMS);
                put!("bins", SONAR_BINS);
                put!("azimuth_range_deg", json!([-45.0, 45.0]));
                put!("range_resolution_m", bin);
                put!("intensity_scale", (1.0 / 255.0));
                put!("intensity", image);
            }
            Kind::MultibeamSonar => {
                let hits = self.cast_all(snap);
                let (o, to_world) = self.pose(s);
                let ranges: Vec<Value> = hits
                    .iter()
                    .map(|(t, h)| {
                        if *h == Hit::None {
                            Value::Null
                        } else {
                            r4(t + sigma * gauss(&mut rng)).into()
                        }
                    })
                    .collect();
                let depths: Vec<Value> = hits
                    .iter()
                    .zip(&self.beams)
                    .map(|((t, h), b)| {
                        if *h == Hit::None {
                            Value::Null
                        } else {
                            r4(-(o + to_world(b) * *t).z).into()
                        }
                    })
                    .collect();
                put!("beams", MB_BEAMS);
                put!("swath_deg", 120.0);
                put!("ranges", ranges);
                put!("depths_m", depths);
            }
            Kind::SideScanSonar => {
                let hits = self.cast_all(snap);
                let bins = 32usize;
                let bin = max_range(self.kind) / bins as f64;
                let side = |rays: &[(f64, Hit)], rng: &mut ChaCha8Rng| -> Vec<u8> {
                    let mut v = vec![0.0; bins];
                    for (t, h) in rays {
                        if *h != Hit::None {
                            let k = ((t / bin) as usize).min(bins - 1);
                            v[k] += if *h == Hit::Terrain { 0.5 } else { 1.0 };
                        }
                    }
                    v.iter()
                        .map(|x| to_u8(x + 0.03 * rng.gen::<f64>()))
                        .collect()
                };
                let port = side(&hits[..SSS_RAYS], &mut rng);
                let starboard = side(&hits[SSS_RAYS..], &mut rng);
                put!("bins", bins);
                put!("range_resolution_m", bin);
                put!("intensity_scale", (1.0 / 255.0));
                put!("port", port);
                put!("starboard", starboard);
            }
        }
        o.finish()
    }
}

/// The sensors of one agent.
#[derive(Debug, Clone, Default)]
pub struct SensorSuite {
    /// Sensors in declaration order.
    pub sensors: Vec<Sensor>,
}

impl SensorSuite {
    /// Sensors for declared `(name, family)` pairs, mounted per `mounts`.
    /// Unknown families are skipped (reported by the caller).
    pub fn new(decls: &[(String, String)], mounts: &[SensorMount], seed: u64) -> Self {
        let sensors = decls
            .iter()
            .filter_map(|(name, family)| {
                let kind = Kind::parse(family)?;
                let mount = mounts
                    .iter()
                    .find(|m| &m.name == name)
                    .or_else(|| mounts.iter().find(|m| m.sensor_type == *family));
                Some(Sensor::new(name, kind, mount, seed))
            })
            .collect();
        SensorSuite { sensors }
    }

    /// Payloads by name (all, or those in `only`), as JSON values.
    pub fn payloads(&mut self, snap: &Snapshot<'_>, only: Option<&[String]>) -> Map<String, Value> {
        let mut out = Map::new();
        for s in &mut self.sensors {
            if only.is_none_or(|o| o.contains(&s.name)) {
                out.insert(
                    s.name.clone(),
                    serde_json::from_str(s.payload(snap)).unwrap_or(Value::Null),
                );
            }
        }
        out
    }

    /// Appends the payloads as one JSON object to `out`, in declaration
    /// order; unchanged payloads are re-sent from their cached text.
    pub fn write_payloads_json(
        &mut self,
        snap: &Snapshot<'_>,
        only: Option<&[String]>,
        out: &mut String,
    ) {
        out.push('{');
        let mut first = true;
        for s in &mut self.sensors {
            if only.is_none_or(|o| o.contains(&s.name)) {
                if !first {
                    out.push(',');
                }
                first = false;
                // Sensor names are plain identifiers from validated definitions,
                // but escape them anyway.
                out.push_str(&Value::String(s.name.clone()).to_string());
                out.push(':');
                out.push_str(s.payload(snap));
            }
        }
        out.push('}');
    }

    /// The payloads as one JSON object text.
    pub fn payloads_json(&mut self, snap: &Snapshot<'_>, only: Option<&[String]>) -> String {
        let mut out = String::with_capacity(16 * 1024);
        self.write_payloads_json(snap, only, &mut out);
        out
    }

    /// Whether a sensor of this name exists.
    pub fn has(&self, name: &str) -> bool {
        self.sensors.iter().any(|s| s.name == name)
    }
}
