"""JAX twin of lib/bench BenchmarkPairedMatMul1024: one 1024^3 float32 matmul."""
import numpy as np
import jax
from _common import inputs, run

n = 1024
rng = np.random.default_rng(1)
x, y = inputs("MatMul1024", x=rng.standard_normal((n, n), dtype=np.float32), y=rng.standard_normal((n, n), dtype=np.float32))
matmul = jax.jit(lambda a, b: a @ b)
run("MatMul1024", lambda: matmul(x, y), reps=20, check=lambda out: {"out": out})
