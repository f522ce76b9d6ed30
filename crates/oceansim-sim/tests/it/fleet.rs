//! Fleet controllers from the swarm crate attached to the simulator's own
//! world: they drive its vehicles through the simulator's dynamics, and
//! follow their members when other entities come and go.

use crate::common;

use common::*;
use oceansim_swarm::fleet::{Autopilot, AutopilotGains, VelocityGuidance, WaypointFollow};
use serde_json::json;

#[test]
fn fleet_controllers_drive_spawned_vehicles_through_the_simulators_dynamics() {
    let mut s = sim("Static_Map");
    // A proxy spawned first, removed later: the members' rows move.
    ok(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "p", "location": [-4.0, -6.0, -14.0]}),
    );
    for (name, profile, at) in [
        ("rov", "bluerov2_heavy", [8.0, -6.0, -10.0]),
        ("torp", "oceansim_torpedo_auv", [-8.0, -6.0, -10.0]),
    ] {
        ok(
            &mut s,
            "spawn_agent",
            json!({"agent_name": name, "agent_type": "auv", "profile": profile, "location": at}),
        );
    }
    let main0 = v3(&agent(&mut s, "auv/main")["position"]);
    let start = |s: &mut oceansim_sim::Simulation, id: &str| v3(&agent(s, id)["position"]);
    let (rov0, torp0) = (start(&mut s, "rov"), start(&mut s, "torp"));
    let (layout, models) = s.fleet(&["rov", "torp"]).unwrap();
    // NED waypoints [north, east, depth]: the ROV 3 m east and 2 m deeper;
    // the torpedo 3 m north at its depth.
    let wps = vec![
        vec![[rov0[1], rov0[0] + 3.0, -rov0[2] + 2.0]],
        vec![[torp0[1] + 3.0, torp0[0], -torp0[2]]],
    ];
    s.add_system(WaypointFollow::new(wps, 0.5, 0.3).with_layout(layout.clone()))
        .unwrap();
    s.add_system(VelocityGuidance::new(0.5).with_layout(layout.clone()))
        .unwrap();
    s.add_system(Autopilot::new(models, AutopilotGains::default()).with_layout(layout))
        .unwrap();
    s.tick(500);
    ok(&mut s, "remove_agent", json!({"id": "p"}));
    s.tick(5500);
    let (rov, torp) = (start(&mut s, "rov"), start(&mut s, "torp"));
    let off = |a: [f64; 3], b: [f64; 3]| {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    };
    assert!(
        off(rov, [rov0[0] + 3.0, rov0[1], rov0[2] - 2.0]) < 0.5,
        "ROV {rov0:?} -> {rov:?}"
    );
    assert!(
        off(torp, [torp0[0], torp0[1] + 3.0, torp0[2]]) < 0.5,
        "torpedo {torp0:?} -> {torp:?}"
    );
    // The main AUV is not a member: it moves exactly as in a run without
    // the fleet's systems.
    let main = v3(&agent(&mut s, "auv/main")["position"]);
    let mut plain = sim("Static_Map");
    ok(
        &mut plain,
        "spawn_agent",
        json!({"agent_name": "p", "location": [-4.0, -6.0, -14.0]}),
    );
    plain.tick(500);
    ok(&mut plain, "remove_agent", json!({"id": "p"}));
    plain.tick(5500);
    assert_eq!(
        main,
        v3(&agent(&mut plain, "auv/main")["position"]),
        "from {main0:?}"
    );
}

#[test]
fn a_fleet_of_unknown_agents_or_proxies_is_an_error() {
    let mut s = sim("Static_Map");
    ok(
        &mut s,
        "spawn_agent",
        json!({"agent_name": "p", "location": [-4.0, -6.0, -14.0]}),
    );
    assert!(s.fleet(&["ghost"]).is_err());
    assert!(s.fleet(&["p"]).is_err());
    assert!(s.fleet(&["auv/main"]).is_ok());
}
