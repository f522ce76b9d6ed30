"""The consensus step in scipy, for the side-by-side consensus benchmark.

Same graph and initial state as examples/consensus_bench.rs: the ring as
ssl_simulator lists it (each edge in both directions), L = B B^T sparse
(CSR), x (N, 2). Times the bare product L @ x and the whole step
u = -k L x; x += dt u, each best of REPS runs of STEPS steps.
Usage: python3 consensus_scipy.py N STEPS REPS   -> one JSON line.
"""
import json
import sys
import time

import numpy as np
import scipy
import scipy.sparse as sp

K = 0.5
DT = 0.01


def ring_edges(n):
    z = [(i, i + 1) for i in range(n - 1)]
    z += [(i + 1, i) for i in range(n - 1)]
    z += [(n - 1, 0), (0, n - 1)]
    return np.array(z)


def main():
    n, steps, reps = (int(a) for a in sys.argv[1:4])
    z = ring_edges(n)
    e = len(z)
    cols = np.arange(e)
    b = sp.csr_matrix(
        (np.r_[np.ones(e), -np.ones(e)], (np.r_[z[:, 0], z[:, 1]], np.r_[cols, cols])),
        shape=(n, e),
    )
    lap = (b @ b.T).tocsr()
    i = np.arange(2 * n)
    x0 = (((i * 7919) % 1000) * 0.01).reshape(n, 2)

    x = x0.copy()
    best_product = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(steps):
            u = lap @ x
        best_product = min(best_product, time.perf_counter() - start)

    best_step = float("inf")
    for _ in range(reps):
        x = x0.copy()
        start = time.perf_counter()
        for _ in range(steps):
            u = lap @ x
            u *= -K * DT
            x += u
        best_step = min(best_step, time.perf_counter() - start)
    print(json.dumps({
        "n": n,
        "steps": steps,
        "product_seconds": best_product,
        "step_seconds": best_step,
        "checksum": float(x.sum()),
        "scipy": scipy.__version__,
    }))


if __name__ == "__main__":
    main()
