"""Twin of lib/bench BenchmarkPairedMatMul1024: one 1024^3 float32 matmul."""
import torch
from _common import run

n = 1024
g = torch.Generator().manual_seed(1)
x = torch.randn(n, n, generator=g)
y = torch.randn(n, n, generator=g)
run("MatMul1024", lambda: x @ y, reps=20)
