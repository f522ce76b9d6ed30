#!/usr/bin/env python3
"""Test vectors for oceansim-vehicles from Fossen's Python Vehicle Simulator.

Writes crates/oceansim-vehicles/tests/data/fossen_remus100_reference.json:
Fossen's gnc.py blocks (ssa, Hoerner, crossFlowDrag, forceLiftDrag,
attitudeEuler, the 3-DOF branch of m2c) on chosen inputs, the parameters of
his remus100 class, single remus100.dynamics steps, 10 s mainLoop runs and
the steady-state figures (surge speed, yaw rate, turning diameter) his code
gives.

Run (numpy is the only dependency):

    git -C /work/.mirror/cybergalactic+PythonVehicleSimulator/repo archive HEAD \
        | tar -x -C /tmp/pvs
    python3 -m venv /tmp/fossen-venv && /tmp/fossen-venv/bin/pip install numpy
    /tmp/fossen-venv/bin/python tools/fossen/generate_vectors.py /tmp/pvs/src \
        [output.json]

The first argument is the directory holding the package
`python_vehicle_simulator` (commit c717e07 of cybergalactic/PythonVehicleSimulator).
Floats are written with Python's repr, which round-trips exactly.
"""

import json
import math
import os
import sys

if len(sys.argv) < 2:
    sys.exit(__doc__)
sys.path.insert(0, sys.argv[1])
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = (
    sys.argv[2]
    if len(sys.argv) > 2
    else os.path.join(
        HERE, "..", "..", "crates", "oceansim-vehicles", "tests", "data",
        "fossen_remus100_reference.json",
    )
)

import types  # noqa: E402

import numpy as np  # noqa: E402

# The package's lib/__init__.py imports its plotting module; plotting is not
# needed here, so matplotlib is stubbed rather than installed.
for _name in ["matplotlib", "matplotlib.pyplot", "matplotlib.animation",
              "mpl_toolkits", "mpl_toolkits.mplot3d", "mpl_toolkits.mplot3d.axes3d"]:
    sys.modules.setdefault(_name, types.ModuleType(_name))
from python_vehicle_simulator.lib import gnc  # noqa: E402
from python_vehicle_simulator.vehicles.remus100 import remus100  # noqa: E402

D2R = math.pi / 180


def fl(x):
    """Plain Python floats (json writes them with repr)."""
    if isinstance(x, np.ndarray):
        return [fl(v) for v in x.tolist()]
    if isinstance(x, (list, tuple)):
        return [fl(v) for v in x]
    return float(x)


def blocks():
    out = {}
    angles = [0.0, 1.0, -1.0, math.pi, -math.pi, math.pi - 1e-12, -math.pi + 1e-12,
              math.pi + 1e-12, -math.pi - 1e-12, 2 * math.pi, -2 * math.pi,
              4 * math.pi, -6 * math.pi, 3 * math.pi, -3 * math.pi, 7.5, -7.5,
              100.0, -100.0, 1e-17, -1e-17, 12345.678]
    out["ssa"] = [{"angle": a, "ssa": fl(gnc.ssa(a))} for a in angles]

    hb = [(0.19, 0.19), (0.001, 1.0), (1.0, 10.0), (2.0, 1.0), (10.0, 1.0),
          (0.4929 * 2, 1.0), (0.0109 * 2, 1.0), (4.0031 * 2, 1.0), (3.0, 0.7),
          (1.2, 0.5), (0.7, 0.5)]
    out["hoerner"] = [{"B": b, "T": t, "CY_2D": fl(gnc.Hoerner(b, t))} for b, t in hb]

    nus = [[0, 0, 0, 0, 0, 0], [1.5, 0.2, -0.1, 0.05, 0.02, 0.1],
           [2.0, -0.3, 0.1, 0, 0, -0.25], [0, 0.5, 0, 0, 0, 0],
           [0, 0, 0, 0, 0, 0.7], [-1.0, -0.05, 0.3, 0.1, -0.2, 0.9]]
    cf = []
    for L, B, T in [(1.6, 0.19, 0.19), (5.0, 1.0, 0.5), (100.0, 15.0, 5.0)]:
        for nu in nus:
            nu = np.array(nu, float)
            cf.append({"L": L, "B": B, "T": T, "nu_r": fl(nu),
                       "tau": fl(gnc.crossFlowDrag(L, B, T, nu))})
    out["cross_flow_drag"] = cf

    r = remus100()
    ld = []
    for b, S, CD_0 in [(r.diam, r.S, r.CD_0), (0.2, 0.36, 0.3)]:
        for alpha in [0.0, 0.05, -0.05, 0.3, -1.2, math.pi / 2, 3.0]:
            for U_r in [0.0, 0.5, 2.5, -1.5]:
                ld.append({"b": b, "S": S, "CD_0": CD_0, "alpha": alpha, "U_r": U_r,
                           "tau": fl(gnc.forceLiftDrag(b, S, CD_0, alpha, U_r))})
    out["force_lift_drag"] = ld

    ae = []
    for eta, nu, dt in [
        ([0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], 0.02),
        ([0, 0, 0, 0, 0, 0], [1.5, 0.1, -0.2, 0.01, 0.02, 0.03], 0.02),
        ([10.0, -5.0, 3.0, 0.2, -0.3, 2.5], [2.0, -0.3, 0.4, 0.1, -0.05, 0.2], 0.1),
        ([-1.0, 2.0, 30.0, -0.6, 1.2, -3.0], [0.5, 0.5, -0.1, -0.3, 0.4, -0.7], 0.01),
        ([0, 0, 0, math.pi, 0, -math.pi], [1, 0, 0, 0, 0, 1], 1.0),
    ]:
        eta0 = np.array(eta, float)
        new = gnc.attitudeEuler(eta0.copy(), np.array(nu, float), dt)
        ae.append({"eta": fl(eta0), "nu": fl(nu), "dt": dt, "eta_next": fl(new)})
    out["attitude_euler"] = ae

    mc = []
    for M in [[[31.0, 0, 0], [0, 46.0, 2.0], [0, 2.0, 7.0]],
              [[5.0, 0.3, -0.1], [1.0, 8.0, 0.6], [0.4, -2.0, 3.0]]]:
        for nu in [[0, 0, 0], [1.0, 0.2, -0.1], [-2.0, 0.5, 0.7]]:
            mc.append({"M": fl(M), "nu": fl(nu),
                       "C": fl(gnc.m2c(np.array(M, float), np.array(nu, float)))})
    out["m2c_3dof"] = mc
    return out


def params(r):
    return {
        "rho": r.rho, "L": r.L, "diam": r.diam, "S": r.S, "CD_0": r.CD_0,
        "r_bg": fl(r.r_bg), "r_bb": fl(r.r_bb), "MRB": fl(r.MRB), "MA": fl(r.MA),
        "M": fl(r.M), "Minv": fl(r.Minv), "W": r.W, "B": r.B,
        "w_roll": r.w_roll, "w_pitch": r.w_pitch, "A_r": r.A_r, "A_s": r.A_s,
        "x_r": r.x_r, "x_s": r.x_s, "CL_delta_r": r.CL_delta_r,
        "CL_delta_s": r.CL_delta_s, "deltaMax_r": r.deltaMax_r,
        "deltaMax_s": r.deltaMax_s, "nMax": r.nMax, "T_delta": r.T_delta,
        "T_n": r.T_n, "T_surge": r.T_surge, "T_sway": r.T_sway,
        "T_heave": r.T_heave, "zeta_roll": r.zeta_roll,
        "zeta_pitch": r.zeta_pitch, "T_yaw": r.T_yaw,
    }


def vehicle(V_c=0.0, beta_c=0.0):
    return remus100("stepInput", 0, 0, 0, V_c, beta_c)


def steps():
    d = D2R
    cases = [
        ("rest", 0, 0, [0] * 6, [0] * 6, [0, 0, 0], [0, 0, 0]),
        ("cruise", 0, 0, [5, 1, 2, 0.01, -0.02, 0.3],
         [2.3, 0.05, -0.02, 0.01, -0.01, 0.04], [5 * d, -5 * d, 1400], [5 * d, -5 * d, 1525]),
        ("rudder_saturated", 0, 0, [0, 0, 0, 0, 0, 0],
         [1.5, 0, 0, 0, 0, 0], [20 * d, 15 * d, 1000], [30 * d, -30 * d, 1525]),
        ("rudder_saturated_negative", 0, 0, [0, 0, 3, 0.1, 0.05, -1.0],
         [1.0, 0.1, 0.1, 0.05, 0.02, -0.1], [-16 * d, -15 * d, 800], [-20 * d, 0, 800]),
        ("rpm_saturated", 0, 0, [0, 0, 0, 0, 0, 0],
         [2.0, 0, 0, 0, 0, 0], [0, 0, 1600], [0, 0, 2000]),
        ("rpm_negative", 0, 0, [0, 0, 0, 0, 0, 0],
         [1.0, 0.1, 0, 0, 0, 0.05], [0, 0, -600], [0, 0, -1000]),
        ("rpm_negative_saturated", 0, 0, [0, 0, 0, 0, 0, 0],
         [0.5, 0, 0, 0, 0, 0], [0, 0, -1700], [0, 0, -1525]),
        ("reversing_with_rpm", 0, 0, [0, 0, 0, 0, 0, 0],
         [-0.8, 0.2, 0.1, 0, 0, 0], [3 * d, 2 * d, 1200], [3 * d, 2 * d, 1200]),
        ("current", 0.5, 30, [1, 2, 3, 0.05, 0.1, 0.7],
         [1.8, 0.1, -0.05, 0.02, 0.01, 0.08], [5 * d, -5 * d, 1525], [5 * d, -5 * d, 1525]),
        ("current_at_rest", 0.5, 30, [0] * 6, [0] * 6, [0, 0, 0], [0, 0, 0]),
        ("current_strong", 1.2, -135, [0, 0, 10, -0.2, 0.3, -2.0],
         [1.0, -0.3, 0.2, 0.1, -0.1, -0.2], [-10 * d, 8 * d, 900], [-12 * d, 10 * d, 1100]),
        ("pitched_rolled", 0, 0, [0, 0, 5, 0.6, -0.7, 0.2],
         [1.2, 0.3, -0.4, 0.5, -0.3, 0.4], [0, 0, 500], [15 * d, 15 * d, 1525]),
    ]
    out = []
    for name, V_c, beta_c, eta, nu, ua, uc in cases:
        r = vehicle(V_c, beta_c)
        eta = np.array(eta, float)
        nu = np.array(nu, float)
        ua = np.array(ua, float)
        uc = np.array(uc, float)
        nu_next, ua_next = r.dynamics(eta.copy(), nu.copy(), ua.copy(), uc.copy(), 0.02)
        out.append({"name": name, "V_c": V_c, "beta_c_deg": beta_c, "dt": 0.02,
                    "eta": fl(eta), "nu": fl(nu), "u_actual": fl(ua),
                    "u_control": fl(uc), "nu_next": fl(nu_next),
                    "u_actual_next": fl(ua_next)})
    return out


def simulate(r, N, dt, u_control, every=1):
    """mainLoop.simulate with a constant command, records every `every`th step."""
    eta = np.zeros(6)
    nu = r.nu.copy()
    ua = r.u_actual.copy()
    rec = []
    for i in range(N + 1):
        if i % every == 0:
            rec.append((i, eta.copy(), nu.copy(), ua.copy()))
        nu, ua = r.dynamics(eta, nu, ua, u_control, dt)
        eta = gnc.attitudeEuler(eta, nu, dt)
    return rec


def runs():
    out = []
    for name, uc, V_c, beta_c in [
        ("rudder5_rpm1525", [5 * D2R, 0, 1525], 0, 0),
        ("stern_minus5_rpm1000", [0, -5 * D2R, 1000], 0, 0),
        ("rudder5_rpm1525_current", [5 * D2R, 0, 1525], 0.5, 30),
        ("stern_minus5_rpm1000_current", [0, -5 * D2R, 1000], 0.5, 30),
    ]:
        rec = simulate(vehicle(V_c, beta_c), 500, 0.02, np.array(uc, float))
        out.append({"name": name, "dt": 0.02, "N": 500, "every": 1,
                    "V_c": V_c, "beta_c_deg": beta_c, "u_control": fl(uc),
                    "step": [i for i, *_ in rec],
                    "eta": [fl(e) for _, e, _, _ in rec],
                    "nu": [fl(n) for _, _, n, _ in rec],
                    "u_actual": [fl(u) for _, _, _, u in rec]})
    return out


def steady(uc, T=400.0, dt=0.02):
    """Steady-state figures of a constant-command run: final u, r and the
    diameter of the circle over the last 150 s (mean of x and y extents)."""
    N = int(round(T / dt))
    rec = simulate(vehicle(), N, dt, np.array(uc, float))
    tail = [e for i, e, _, _ in rec if i * dt >= T - 150.0]
    xs = [e[0] for e in tail]
    ys = [e[1] for e in tail]
    nu = rec[-1][2]
    return {"u_control": fl(uc), "T": T, "dt": dt, "u": float(nu[0]),
            "r": float(nu[5]), "U": float(math.sqrt(nu[0]**2 + nu[1]**2 + nu[2]**2)),
            "x_extent": float(max(xs) - min(xs)), "y_extent": float(max(ys) - min(ys)),
            "diameter": float(0.5 * ((max(xs) - min(xs)) + (max(ys) - min(ys))))}


def main():
    data = {
        "meta": {
            "source": "cybergalactic/PythonVehicleSimulator",
            "commit": "c717e07",
            "generator": "tools/fossen/generate_vectors.py",
            "numpy": np.__version__,
            "conventions": "NED world; body x forward, y starboard, z down; "
                           "eta = [x, y, z, phi, theta, psi] (m, rad); "
                           "nu = [u, v, w, p, q, r] (m/s, rad/s); "
                           "u = [rudder rad, stern plane rad, propeller rpm]; "
                           "current V_c (m/s) towards beta_c (deg from north); "
                           "runs record, then nu,u = dynamics(eta,nu,u,u_c,dt), "
                           "then eta = attitudeEuler(eta,nu,dt), as mainLoop.simulate",
        },
        "blocks": blocks(),
        "remus100_params": params(vehicle()),
        "dynamics_steps": steps(),
        "runs": runs(),
        "steady": {
            "straight_rpm1525": steady([0, 0, 1525], T=200.0),
            "rudder5_rpm1525": steady([5 * D2R, 0, 1525]),
            "rudder15_rpm1525": steady([15 * D2R, 0, 1525]),
            "rudder_minus5_rpm1525": steady([-5 * D2R, 0, 1525]),
        },
    }
    with open(OUT, "w") as f:
        json.dump(data, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes")
    for k, v in data["steady"].items():
        print(k, {kk: vv for kk, vv in v.items() if kk != "u_control"})


if __name__ == "__main__":
    main()
