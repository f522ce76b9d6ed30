//! Mounts checked against their purpose: a sensor that must see the
//! seabed (multibeam, DVL, side-scan) must have a beam pointing below the
//! horizontal on a level vehicle.

use super::Family;
use nalgebra::Rotation3;
use oceansim_vehicles::{SensorMount, VehicleProfile};

/// Least downward component (sine of the depression angle, about 3°) a
/// beam needs, on a level vehicle, to reach the seabed within its range at
/// some altitude.
const MIN_DOWN: f64 = 0.05;

/// Why `family` mounted per `mount` can never serve its purpose, if it
/// cannot: a family that must see the seabed (multibeam, DVL, side-scan)
/// mounted so that, on a level vehicle, none of its beams points below the
/// horizontal sees no seabed at any altitude.
pub fn mount_problem(family: Family, mount: Option<&SensorMount>) -> Option<String> {
    let beams = family.model(None).seabed_beams();
    if beams.is_empty() {
        return None;
    }
    let rpy = mount
        .map_or([0.0; 3], |m| m.rotation_rpy_deg)
        .map(f64::to_radians);
    let rot = Rotation3::from_euler_angles(rpy[0], rpy[1], rpy[2]);
    let lowest = beams
        .iter()
        .map(|b| (rot * b).z)
        .fold(f64::NEG_INFINITY, f64::max);
    (lowest < MIN_DOWN).then(|| {
        format!(
            "{} mounted at roll/pitch/yaw {:?} deg has no beam pointing below the horizontal (steepest {:.1} deg), so it never sees the seabed (its beams look along the sensor's +z axis, which an unrotated mount points down)",
            family.name(),
            mount.map_or([0.0; 3], |m| m.rotation_rpy_deg),
            lowest.clamp(-1.0, 1.0).asin().to_degrees()
        )
    })
}

/// Checks every sensor mount of `profile` against its purpose; the
/// problems, one per sensor, joined by "; ".
pub fn check_mounts(profile: &VehicleProfile) -> std::result::Result<(), String> {
    let problems: Vec<String> = profile
        .sensors
        .iter()
        .filter_map(|m| {
            let family = Family::parse(&m.sensor_type)?;
            mount_problem(family, Some(m)).map(|p| format!("sensor `{}`: {p}", m.name))
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "vehicle profile `{}`: {}",
            profile.name,
            problems.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{fixture, Reading};
    use super::*;
    use nalgebra::Vector3;
    use oceansim_vehicles::VehicleState;

    #[test]
    fn every_shipped_profile_mounts_its_sensors_for_their_purpose() {
        for name in VehicleProfile::builtin_names() {
            let p = VehicleProfile::builtin(name).unwrap();
            assert_eq!(check_mounts(&p), Ok(()), "{name}");
        }
    }

    #[test]
    fn a_downward_sensor_turned_horizontal_or_up_is_an_error_naming_it() {
        let mut p = VehicleProfile::builtin("oceansim_torpedo_auv").unwrap();
        let mb = p
            .sensors
            .iter_mut()
            .find(|s| s.sensor_type == "multibeam_sonar")
            .unwrap();
        // The mount the profile shipped with: pitched -90 deg, beams aft.
        mb.rotation_rpy_deg = [0.0, -90.0, 0.0];
        let e = check_mounts(&p).unwrap_err();
        assert!(
            e.contains("`multibeam_sonar`") && e.contains("never sees the seabed"),
            "{e}"
        );
        let dvl = p
            .sensors
            .iter_mut()
            .find(|s| s.sensor_type == "dvl")
            .unwrap();
        dvl.rotation_rpy_deg = [180.0, 0.0, 0.0];
        let e = check_mounts(&p).unwrap_err();
        assert!(
            e.contains("`dvl`") && e.contains("`multibeam_sonar`"),
            "{e}"
        );
        // Tilted 30 deg is still looking down; other families are not checked.
        let m = SensorMount {
            rotation_rpy_deg: [30.0, 0.0, 0.0],
            ..p.sensors[0].clone()
        };
        assert_eq!(mount_problem(Family::MultibeamSonar, Some(&m)), None);
        assert_eq!(mount_problem(Family::Camera, Some(&m)), None);
    }

    #[test]
    fn every_shipped_multibeam_and_dvl_sees_the_seabed_at_10_m_altitude() {
        // The fixture's seabed is 20 m deep: the vehicle at 10 m, level.
        let state = VehicleState::at_rest(Vector3::new(0.0, 0.0, 10.0), 0.0, 0.0, 0.0);
        let mut checked = 0;
        for name in VehicleProfile::builtin_names() {
            let p = VehicleProfile::builtin(name).unwrap();
            for m in &p.sensors {
                match Family::parse(&m.sensor_type) {
                    Some(f @ Family::MultibeamSonar) => {
                        let (s, _) = fixture::sample(f, Some(m), &state);
                        let Reading::Multibeam(r) = s.reading else {
                            panic!()
                        };
                        // Beams within ±60° reach the seabed within 20 m.
                        let hits = r.ranges.iter().flatten().count();
                        assert!(
                            hits >= r.beams * 3 / 4,
                            "{name}: {hits} of {} beams",
                            r.beams
                        );
                        for d in r.depths_m.iter().flatten() {
                            assert!((d - 20.0).abs() < 0.3, "{name}: sounding {d} m");
                        }
                        checked += 1;
                    }
                    Some(f @ Family::Dvl) => {
                        let (s, _) = fixture::sample(f, Some(m), &state);
                        let Reading::Dvl(r) = s.reading else { panic!() };
                        let alt = r.altitude_m.expect("bottom lock at 10 m");
                        assert!((alt - 10.0).abs() < 0.2, "{name}: altitude {alt}");
                        checked += 1;
                    }
                    _ => {}
                }
            }
        }
        assert!(checked >= 3, "the torpedo's multibeam and both DVLs");
    }
}
