//! Stand-ins for Fossen's blocks until `fossen` has them (removed on merge).
#![allow(dead_code)]

const RHO: f64 = 1026.0;

pub fn hoerner(b: f64, t: f64) -> f64 {
    const X: [f64; 20] = [
        0.0109, 0.1766, 0.3530, 0.4519, 0.4728, 0.4929, 0.4933, 0.5585, 0.6464, 0.8336, 0.9880,
        1.3081, 1.6392, 1.8600, 2.3129, 2.6000, 3.0088, 3.4508, 3.7379, 4.0031,
    ];
    const Y: [f64; 20] = [
        1.9661, 1.9657, 1.8976, 1.7872, 1.5837, 1.2786, 1.2108, 1.0836, 0.9986, 0.8796, 0.8284,
        0.7599, 0.6914, 0.6571, 0.6307, 0.5962, 0.5868, 0.5859, 0.5599, 0.5593,
    ];
    let x = b / (2.0 * t);
    if x <= X[0] {
        return Y[0];
    }
    for i in 1..20 {
        if x <= X[i] {
            return Y[i - 1] + (x - X[i - 1]) * (Y[i] - Y[i - 1]) / (X[i] - X[i - 1]);
        }
    }
    Y[19]
}

pub fn cross_flow_drag(l: f64, b: f64, t: f64, nu_r: &[f64; 6]) -> [f64; 6] {
    let n = 20;
    let dx = l / 20.0;
    let cd = hoerner(b, t);
    let (mut yh, mut nh, mut xl) = (0.0, 0.0, -l / 2.0);
    for _ in 0..=n {
        let s = nu_r[1] + xl * nu_r[5];
        let ucf = s.abs() * s;
        yh -= 0.5 * RHO * t * cd * ucf * dx;
        nh -= 0.5 * RHO * t * cd * xl * ucf * dx;
        xl += dx;
    }
    [0.0, yh, 0.0, 0.0, 0.0, nh]
}

pub fn force_lift_drag(b: f64, s: f64, cd_0: f64, alpha: f64, u_r: f64) -> [f64; 6] {
    let e = 0.7;
    let ar = b * b / s;
    let cl_alpha = std::f64::consts::PI * ar / (1.0 + (1.0 + (ar / 2.0).powi(2)).sqrt());
    let cl = cl_alpha * alpha;
    let cd = cd_0 + cl * cl / (std::f64::consts::PI * e * ar);
    let f_drag = 0.5 * RHO * u_r * u_r * s * cd;
    let f_lift = 0.5 * RHO * u_r * u_r * s * cl;
    [
        alpha.cos() * (-f_drag) - alpha.sin() * (-f_lift),
        0.0,
        alpha.sin() * (-f_drag) + alpha.cos() * (-f_lift),
        0.0,
        0.0,
        0.0,
    ]
}

pub fn attitude_euler(eta: &[f64; 6], nu: &[f64; 6], dt: f64) -> [f64; 6] {
    use nalgebra::Vector3;
    let r = crate::fossen::rzyx(eta[3], eta[4], eta[5]);
    let t = crate::fossen::tzyx(eta[3], eta[4]);
    let p = r * Vector3::new(nu[0], nu[1], nu[2]);
    let a = t * Vector3::new(nu[3], nu[4], nu[5]);
    [
        eta[0] + dt * p.x,
        eta[1] + dt * p.y,
        eta[2] + dt * p.z,
        eta[3] + dt * a.x,
        eta[4] + dt * a.y,
        eta[5] + dt * a.z,
    ]
}
