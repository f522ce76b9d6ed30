//! The tasks a vehicle solves with its own senses: TerrainFollow (DVL and
//! IMU), SonarAvoid (forward-looking imaging sonar) and Remus100Heading
//! (the REMUS 100 on its fins). Their starts, targets, errors and
//! observations; the reward's shape is the one of [`crate::TaskKind`].

use crate::place::{goal_clear, hull_clear};
use crate::task::{Episode, CLEARANCE_M};
use nalgebra::Vector3;
use oceansim_sim::batch::{Lane, Shared};
use oceansim_sim::frames::{Ned, User};
use oceansim_sim::{SensorFamily, SensorReading};
use oceansim_vehicles::VehicleState;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::f64::consts::{PI, TAU};

/// TerrainFollow's least and largest target altitude (m).
pub const ALTITUDE_RANGE_M: [f64; 2] = [2.5, 5.0];
/// |Altitude error| that counts as following (m).
pub const ALTITUDE_TOLERANCE_M: f64 = 0.5;
/// Least surge speed that counts as following the terrain (m/s): holding
/// an altitude in place is depth keeping, not terrain following.
pub const MIN_SURGE_M_S: f64 = 0.3;
/// SonarAvoid's goal distance (m).
pub const SONAR_GOAL_RANGE_M: [f64; 2] = [12.0, 24.0];
/// How near the straight way from start to goal passes an obstacle's
/// surface in every SonarAvoid episode (m): the obstacle is in the way.
pub const OBSTACLE_IN_WAY_M: f64 = 1.5;
/// Intensity (of 255) from which a sonar bin counts as an echo, in the
/// per-beam ranges of SonarAvoid's observation: above the noise floor and
/// speckle of open water (under 40), below a surface's return (over 150).
pub const ECHO_THRESHOLD: u8 = 90;
/// Default beams, bins and range of SonarAvoid's sonar.
pub const SONAR_DEFAULT: (u32, u32, f64) = (64, 32, 15.0);
/// Remus100Heading: the weight of the heading error against the depth
/// error in the task's error (m per rad: 10° weighs 0.87 m).
pub const HEADING_WEIGHT_M_PER_RAD: f64 = 5.0;
/// Remus100Heading's tolerances: depth (m) and heading (rad, 5°).
pub const REMUS_TOLERANCE: (f64, f64) = (0.5, 5.0 * PI / 180.0);
/// Remus100Heading's surge speed at the start (m/s): under way, as a
/// heading and depth change is flown.
pub const REMUS_START_SURGE_M_S: f64 = 1.5;

/// The open water Remus100Heading runs in (the scenario name
/// `OpenWater`): 240 m square, a flat seabed at 60 m, no obstacles, room
/// for the REMUS 100's 37 m turning circle at full rudder and 40 s at its
/// 2.5 m/s.
pub const OPEN_WATER_SCENARIO: &str = r#"{
  "schema_version": 1,
  "id": "OpenWater",
  "display_name": "Open water (REMUS 100 manoeuvres)",
  "description": "A 240 m square of open water over a flat seabed at 60 m, no obstacles: room for the REMUS 100's turning circles.",
  "generator": "pale_plain",
  "map_size_m": [240.0, 240.0],
  "seeds": [0],
  "tags": ["open_water", "gym"],
  "recommended_profile": "remus100",
  "terrain": {"floor_depth_m": 60.0, "relief_m": 0.5, "feature_scale_m": 40.0},
  "procedural_obstacles": {"count": 0, "radius_range_m": [1.0, 2.0], "keep_clear_radius_m": 5.0},
  "agents": [{
    "schema_version": 1, "agent_name": "auv/main", "agent_type": "main_auv",
    "is_main_agent": true, "profile": "remus100", "location": [0.0, -20.0, 0.0],
    "rotation": [0.0, 0.0, 0.0], "control_scheme": "fins",
    "sensors": ["depth", "imu", "dvl"], "metadata": {}
  }],
  "obstacles": []
}"#;

/// An angle wrapped to (−π, π].
pub(crate) fn wrap(a: f64) -> f64 {
    let w = (a + PI).rem_euclid(TAU) - PI;
    if w <= -PI {
        w + TAU
    } else {
        w
    }
}

/// Height of the vehicle above the terrain below it (m; obstacles aside).
pub(crate) fn altitude(shared: &Shared, s: &VehicleState) -> f64 {
    let here = User::from(Ned(s.position_ned)).0;
    here[2] - shared.scene().terrain.height(here[0], here[1])
}

/// Height of the vehicle's origin above whatever is straight below it,
/// the seabed or a boulder on it (m): what TerrainFollow holds, as a DVL
/// sees it. The terrain's altitude where the ray finds nothing.
pub(crate) fn seabed_altitude(shared: &Shared, s: &VehicleState) -> f64 {
    let scene = shared.scene();
    let o = Vector3::from(User::from(Ned(s.position_ned)).0);
    let view = oceansim_sim::SceneView {
        terrain: &scene.terrain,
        obstacles: &scene.obstacles,
        bodies: &[],
    };
    let (t, hit) = view.raycast(&o, &Vector3::new(0.0, 0.0, -1.0), 100.0);
    if hit == oceansim_sim::Hit::None {
        altitude(shared, s)
    } else {
        t
    }
}

/// A user-frame point of the inner share `inner` of the map (0..1).
fn inner_point(shared: &Shared, rng: &mut ChaCha8Rng, inner: f64) -> (f64, f64) {
    let [x0, x1, y0, y1] = shared.scene().bounds();
    let (mx, my) = (
        (x1 - x0) * (1.0 - inner) / 2.0,
        (y1 - y0) * (1.0 - inner) / 2.0,
    );
    (
        rng.gen_range(x0 + mx..x1 - mx),
        rng.gen_range(y0 + my..y1 - my),
    )
}

/// TerrainFollow: a start in the inner half of the map at `target ±
/// 0.5–1.5 m` of altitude, heading for the map's centre within ±30°; the
/// target altitude in `ep`. `None` when the draw misses.
pub(crate) fn draw_terrain_follow(
    shared: &Shared,
    rng: &mut ChaCha8Rng,
) -> Option<(VehicleState, Vector3<f64>, f64)> {
    let (x, y) = inner_point(shared, rng, 0.5);
    let floor = shared.scene().terrain.height(x, y);
    let target = rng.gen_range(ALTITUDE_RANGE_M[0]..ALTITUDE_RANGE_M[1]);
    let off = rng.gen_range(0.5..1.5) * if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
    let alt = (target + off).max(ALTITUDE_RANGE_M[0] - 0.5);
    let z = floor + alt;
    if !z.is_finite() || -z < CLEARANCE_M {
        return None;
    }
    // Yaw from north towards east: the bearing of the centre from (x, y).
    let yaw = (-x).atan2(-y) + rng.gen_range(-PI / 6.0..PI / 6.0);
    let state = VehicleState::at_rest(Ned::from(User([x, y, z])).0, 0.0, 0.0, wrap(yaw));
    // Off the target by 0.5 m or more over what is really below (a
    // boulder counts), so that no episode starts already following.
    let off_target = (seabed_altitude(shared, &state) - target).abs() >= 0.5;
    (off_target && hull_clear(shared, &state)).then_some((state, state.position_ned, target))
}

/// Whether the straight way from `a` to `b` (NED) passes within
/// [`OBSTACLE_IN_WAY_M`] of an obstacle's surface.
fn obstacle_in_way(shared: &Shared, a: &Vector3<f64>, b: &Vector3<f64>) -> bool {
    let (pa, pb) = (
        Vector3::from(User::from(Ned(*a)).0),
        Vector3::from(User::from(Ned(*b)).0),
    );
    let n = ((pb - pa).norm() / 0.5).ceil().max(1.0) as usize;
    // The obstacle is in the way, not at either end: the middle 80 %.
    (n / 10..=n - n / 10).any(|k| {
        let p = pa + (pb - pa) * (k as f64 / n as f64);
        shared
            .scene()
            .obstacles
            .iter()
            .any(|o| o.surface(&p).1 < OBSTACLE_IN_WAY_M)
    })
}

/// Whether the hull fits at every point of the way from `a` to `b` but
/// where an obstacle stands in it: the seabed and the surface keep clear.
fn way_clear_of_seabed(shared: &Shared, a: &Vector3<f64>, b: &Vector3<f64>) -> bool {
    let n = ((b - a).norm() / 1.0).ceil().max(1.0) as usize;
    (0..=n).all(|k| {
        let p = a + (b - a) * (k as f64 / n as f64);
        let s = VehicleState::at_rest(p, 0.0, 0.0, 0.0);
        altitude(shared, &s) > CLEARANCE_M && p.z > CLEARANCE_M
    })
}

/// SonarAvoid: a start and a goal 12–24 m apart at one depth, the way
/// between them passing an obstacle, the vehicle facing the goal within
/// ±45°. `None` when the draw misses.
pub(crate) fn draw_sonar_avoid(
    shared: &Shared,
    rng: &mut ChaCha8Rng,
) -> Option<(VehicleState, Vector3<f64>)> {
    let (x, y) = inner_point(shared, rng, 0.8);
    let floor = -shared.scene().terrain.height(x, y);
    if floor.is_nan() || floor <= 2.0 * CLEARANCE_M + 0.5 {
        return None;
    }
    let depth = rng.gen_range(CLEARANCE_M..floor - CLEARANCE_M);
    let start = Ned::from(User([x, y, -depth])).0;
    let d = rng.gen_range(SONAR_GOAL_RANGE_M[0]..SONAR_GOAL_RANGE_M[1]);
    let bearing: f64 = rng.gen_range(-PI..PI);
    let goal = start + Vector3::new(d * bearing.cos(), d * bearing.sin(), 0.0);
    let [x0, x1, y0, y1] = shared.scene().bounds();
    let g = User::from(Ned(goal)).0;
    let inside = (x0 + 2.0..x1 - 2.0).contains(&g[0]) && (y0 + 2.0..y1 - 2.0).contains(&g[1]);
    if !inside || !obstacle_in_way(shared, &start, &goal) {
        return None;
    }
    if !way_clear_of_seabed(shared, &start, &goal) || !goal_clear(shared, &goal) {
        return None;
    }
    let yaw = wrap(bearing + rng.gen_range(-PI / 4.0..PI / 4.0));
    let state = VehicleState::at_rest(start, 0.0, 0.0, yaw);
    hull_clear(shared, &state).then_some((state, goal))
}

/// Remus100Heading: under way at [`REMUS_START_SURGE_M_S`] in the middle
/// third of the map, 15–40 m down; a target heading 20–90° to either side
/// and a target depth 2–8 m up or down. Returns the start, the target
/// (NED, `z` the target depth) and the target heading (rad).
pub(crate) fn draw_remus(
    shared: &Shared,
    rng: &mut ChaCha8Rng,
) -> Option<(VehicleState, Vector3<f64>, f64)> {
    let (x, y) = inner_point(shared, rng, 1.0 / 3.0);
    let floor = -shared.scene().terrain.height(x, y);
    let depth = rng.gen_range(15.0..40.0f64);
    let yaw: f64 = rng.gen_range(-PI..PI);
    let turn =
        rng.gen_range(20.0f64..90.0).to_radians() * if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
    let dz = rng.gen_range(2.0..8.0) * if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
    let target_depth = depth + dz;
    if !(CLEARANCE_M..floor - 2.0 * CLEARANCE_M).contains(&target_depth)
        || floor < depth + 2.0 * CLEARANCE_M
    {
        return None;
    }
    let mut state = VehicleState::at_rest(Ned::from(User([x, y, -depth])).0, 0.0, 0.0, yaw);
    state.nu[0] = REMUS_START_SURGE_M_S;
    let target = Vector3::new(state.position_ned.x, state.position_ned.y, target_depth);
    hull_clear(shared, &state).then_some((state, target, wrap(yaw + turn)))
}

/// The depth and heading errors of Remus100Heading: (target − depth (m),
/// target − heading wrapped (rad)).
pub(crate) fn remus_errors(s: &VehicleState, ep: &Episode) -> (f64, f64) {
    let (_, _, yaw) = s.euler();
    (
        ep.goal_ned.z - s.position_ned.z,
        wrap(ep.target_heading - yaw),
    )
}

/// The latest reading of the lane's sensor of `family`.
fn reading(lane: &Lane, family: SensorFamily) -> Option<&SensorReading> {
    lane.sensor(family)?.latest().map(|s| &s.reading)
}

/// TerrainFollow's observation (18 values) from the DVL and the IMU.
pub(crate) fn observe_terrain_follow(lane: &Lane, ep: &Episode, out: &mut Vec<f64>) {
    let target = ep.target_altitude;
    out.push(target);
    match reading(lane, SensorFamily::Dvl) {
        Some(SensorReading::Dvl(d)) => {
            let lock = d.bottom_lock;
            out.push(d.altitude_m.map_or(0.0, |a| target - a));
            out.push(if lock { 1.0 } else { 0.0 });
            out.extend(d.velocity_body.unwrap_or([0.0; 3]));
            out.extend(
                d.beam_ranges_m
                    .iter()
                    .map(|r| r.unwrap_or(oceansim_sim::DVL_MAX_RANGE_M)),
            );
        }
        _ => {
            out.extend([0.0; 5]);
            out.extend([oceansim_sim::DVL_MAX_RANGE_M; 4]);
        }
    }
    imu_values(lane, out);
}

/// Specific force (3), rates (3), roll and pitch (2) from the lane's IMU
/// (zeros before its first sample).
pub(crate) fn imu_values(lane: &Lane, out: &mut Vec<f64>) {
    match reading(lane, SensorFamily::Imu) {
        Some(SensorReading::Imu(i)) => {
            out.extend(i.linear_acceleration);
            out.extend(i.angular_velocity);
            let [x, y, z, w] = i.orientation_quat_xyzw;
            let q =
                nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(w, x, y, z));
            let (roll, pitch, _) = q.euler_angles();
            out.extend([roll, pitch]);
        }
        _ => out.extend([0.0; 8]),
    }
}

/// The per-beam range of the first echo (m; the sonar's range where there
/// is none) and the image as intensities in [0, 1], beam-major.
pub(crate) fn sonar_values(
    lane: &Lane,
    beams: usize,
    bins: usize,
    range_m: f64,
    out: &mut Vec<f64>,
) {
    let image = match reading(lane, SensorFamily::ImagingSonar) {
        Some(SensorReading::ImagingSonar(s)) if s.intensity.len() == beams => &s.intensity,
        _ => {
            out.extend(std::iter::repeat_n(range_m, beams));
            out.extend(std::iter::repeat_n(0.0, beams * bins));
            return;
        }
    };
    let bin = range_m / bins as f64;
    out.extend(image.iter().map(|beam| {
        beam.iter()
            .position(|v| *v >= ECHO_THRESHOLD)
            .map_or(range_m, |k| (k as f64 + 0.5) * bin)
    }));
    for beam in image {
        out.extend(beam.iter().map(|v| f64::from(*v) / 255.0));
    }
}
