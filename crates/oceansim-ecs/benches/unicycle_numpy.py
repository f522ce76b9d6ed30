"""The unicycle workload in numpy, for the side-by-side ECS benchmark.

Same math and initial conditions as benches/support/unicycle.rs:
omega = amp * sin(FREQ t); p += dt * speed * [cos th, sin th]; th += dt * omega.
Usage: python3 unicycle_numpy.py N STEPS REPS   -> one JSON line.
"""
import json
import sys
import time

import numpy as np

DT = 0.01
FREQ = 0.5


def main():
    n, steps, reps = (int(a) for a in sys.argv[1:4])
    i = np.arange(n, dtype=np.float64)
    theta = 2.0 * np.pi * i / n
    speed = 1.0 + 0.5 * (np.arange(n) % 7) / 7.0
    amp = 0.1 + 0.9 * i / n
    p = np.zeros((n, 2))
    p_dot = np.empty((n, 2))
    omega = np.empty(n)
    k = 0
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(steps):
            np.multiply(amp, np.sin(FREQ * (k * DT)), out=omega)
            np.cos(theta, out=p_dot[:, 0])
            np.sin(theta, out=p_dot[:, 1])
            p_dot *= speed[:, None]
            p_dot *= DT
            p += p_dot
            theta += DT * omega
            k += 1
        best = min(best, time.perf_counter() - start)
    print(json.dumps({
        "n": n,
        "steps": steps,
        "best_seconds": best,
        "checksum_first_rep": None,
        "checksum": float(p.sum() + theta.sum()),
        "numpy": np.__version__,
    }))


if __name__ == "__main__":
    main()
