//! Flies the main AUV of a running simulator (the README's first command)
//! to a waypoint 8 m east or west of the map's centre line at 6 m depth,
//! whichever is farther, with the client's waypoint tracker; then stops.
//! Rerunnable: each run flies to the other waypoint.
//!
//! ```sh
//! cargo run --release -p oceansim-server -- serve                 # terminal 1
//! cargo run --release -p oceansim-client --example drive          # terminal 2 (reuses the server build)
//! cargo run --release -p oceansim-client --example drive -- 127.0.0.1:9876
//! ```

use oceansim_client::blocking::Auv;
use oceansim_client::{ClientError, WaypointStep};

fn main() -> Result<(), ClientError> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9876".into());
    let auv = Auv::connect(&addr)?; // retries for 10 s while the server starts
    let start = auv.get_state()?;
    // Godot map plane: X = user x (east), Z = −user y (north 17 m).
    let world_x = if start.x() > 0.0 { -8.0 } else { 8.0 };
    let target = WaypointStep {
        nav_depth: Some(6.0),
        ..WaypointStep::new(world_x, -17.0)
    };
    let mut arrived = false;
    for _ in 0..1200 {
        let (done, _) = auv.track_waypoint_step(target)?; // one force command
        if done {
            arrived = true;
            break;
        }
        auv.advance()?; // one 0.1 s control period
    }
    auv.stop()?;
    let end = auv.get_state()?;
    println!(
        "{} the waypoint x = {:.1}, y = {:.1} m (user frame: x east, y north), {:.1} m deep: from ({:.1}, {:.1}, {:.1} m deep) to ({:.1}, {:.1}, {:.1} m deep) by t = {:.1} s",
        if arrived { "reached" } else { "did not reach" },
        world_x,
        17.0,
        6.0,
        start.x(),
        start.y(),
        start.depth(),
        end.x(),
        end.y(),
        end.depth(),
        end.sim_time()
    );
    Ok(())
}
