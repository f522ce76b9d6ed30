//! Drives the main AUV of a running simulator (the README's first command)
//! 2 m deeper while it surges, then stops it. Rerunnable: each run starts
//! from wherever the AUV is.
//!
//! ```sh
//! cargo run --release -p oceansim-server -- serve      # terminal 1
//! cargo run -p oceansim-client --example drive         # terminal 2
//! cargo run -p oceansim-client --example drive -- 127.0.0.1:9876
//! ```

use oceansim_client::blocking::Auv;
use oceansim_client::{ClientError, DepthHold};

fn main() -> Result<(), ClientError> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9876".into());
    let auv = Auv::connect(&addr)?; // retries for 10 s while the server starts
    let start = auv.get_state()?;
    let hold = DepthHold {
        forward_force: 60.0,
        ..DepthHold::new(start.depth() + 2.0)
    };
    for _ in 0..300 {
        auv.hold_depth_step(hold)?; // PD on depth, 60 N forward (user frame)
        auv.advance()?; // one 0.1 s control period
    }
    let end = auv.stop().and_then(|_| auv.get_state())?;
    println!(
        "depth {:.2} -> {:.2} m (target {:.2}), moved {:.1} m north, heading {:.0} deg, t = {:.1} s",
        start.depth(),
        end.depth(),
        hold.target_depth,
        end.y() - start.y(),
        end.heading(),
        end.sim_time()
    );
    Ok(())
}
