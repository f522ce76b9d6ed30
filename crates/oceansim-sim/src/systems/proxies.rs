//! Kinematic proxies: each moves at the velocity its mode gives (an
//! external command, or a patrol circle), kept within its depth limits.
//! Integration is explicit Euler, p += v·dt; where each started the tick
//! is kept for `contacts` to sweep it across the tick.

use crate::components::ProxyMode;
use crate::components::{names, Handles, Kind};
use crate::frames::{Ned, User};
use oceansim_ecs::{Access, Step, System, World};

/// `proxy_motion`.
pub struct ProxyMotionSystem(pub Handles);

impl System for ProxyMotionSystem {
    fn name(&self) -> &str {
        "proxy_motion"
    }
    fn access(&self) -> Access {
        Access::new().reads([names::KIND, names::PROXY]).writes([
            names::POSITION,
            names::POSITION_START,
            names::VELOCITY,
        ])
    }
    fn run(&mut self, w: &World, step: &Step) {
        let h = &self.0;
        let (kind, proxies) = (w.read(h.kind), w.objects(h.proxy));
        let (mut p, mut v) = (w.write(h.position), w.write(h.velocity));
        let mut start = w.write(h.position_start);
        for row in 0..kind.len() {
            if kind[row] != Kind::Proxy.code() {
                continue;
            }
            // Every proxy row, moved or not: contacts sweep from here.
            start[3 * row..3 * row + 3].copy_from_slice(&p[3 * row..3 * row + 3]);
            let Some(m) = &proxies[row] else { continue };
            let ned = crate::components::vec3_at(&p, row);
            let pos = User::from(Ned(ned)).0;
            let mut vel = match m.mode {
                ProxyMode::Idle => [0.0; 3],
                ProxyMode::ExternalVelocity(u) => u,
                ProxyMode::Patrol {
                    anchor,
                    radius,
                    speed,
                } => {
                    let (dx, dy) = (pos[0] - anchor[0], pos[1] - anchor[1]);
                    let r = dx.hypot(dy).max(1e-9);
                    // Counter-clockwise tangent plus a pull back to the circle.
                    let (tx, ty) = (-dy / r, dx / r);
                    let k = (radius - r) * 0.5;
                    [
                        speed * tx + k * dx / r,
                        speed * ty + k * dy / r,
                        (anchor[2] - pos[2]) * 0.5,
                    ]
                }
            };
            let z_next = pos[2] + vel[2] * step.dt;
            if let Some(dmin) = m.depth_min {
                if z_next > -dmin {
                    vel[2] = (-dmin - pos[2]).min(0.0) / step.dt;
                }
            }
            if let Some(dmax) = m.depth_max {
                if z_next < -dmax {
                    vel[2] = (-dmax - pos[2]).max(0.0) / step.dt;
                }
            }
            let v_ned = Ned::from(User(vel)).0;
            v[3 * row..3 * row + 3].copy_from_slice(v_ned.as_slice());
            for k in 0..3 {
                p[3 * row + k] += v_ned[k] * step.dt;
            }
        }
    }
}
