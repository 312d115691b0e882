"""Twin of lib/bench BenchmarkPairedMatMul1024: one 1024^3 float32 matmul."""
import torch
from _common import inputs, run

n = 1024
g = torch.Generator().manual_seed(1)
x = torch.randn(n, n, generator=g)
y = torch.randn(n, n, generator=g)
x, y = inputs("MatMul1024", x=x, y=y)
run("MatMul1024", lambda: x @ y, reps=20, check=lambda out: {"out": out})
