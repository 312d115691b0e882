"""Shared harness of the PyTorch twins of geoalign's paired benchmarks.

Each twin does the same computation as its Go benchmark, on CPU, with torch.set_num_threads
set to the same thread count (default 2, the machine's cores), and prints ONE line in go-bench
format so that lib/bench/run.py parses both sides alike:
    BenchmarkPaired<Name> <iterations> <median ns per op> ns/op
"""
import os, statistics, sys, time
import torch

THREADS = int(os.environ.get("BENCH_THREADS", "2"))
torch.set_num_threads(THREADS)


def run(name, fn, reps=5, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    print(f"BenchmarkPaired{name} {reps} {med * 1e9:.0f} ns/op")
    sys.stdout.flush()


def unit_vectors(n, d, generator):
    """n random L2-normalised float32 vectors of dimension d."""
    return torch.nn.functional.normalize(torch.randn(n, d, generator=generator), dim=-1)


def gram_tensor_volume(ll, lv, la, vv, va, aa):
    """sqrt(|det G|) of the B1 x B2 x 3 x 3 Gram tensor given its six [B1, B2] entries, as GRAM's
    utils/volume.py does it: torch.linalg.det in float32."""
    G = torch.stack([torch.stack([ll, lv, la], -1),
                     torch.stack([lv, vv, va], -1),
                     torch.stack([la, va, aa], -1)], -2)
    return torch.linalg.det(G.float()).abs().sqrt()


def volume_matrix(l, v, a):
    """GRAM's B1 x B2 volume matrix of anchors l against (v_j, a_j) pairs: the Gram tensor from
    matmuls and per-sample dot products (GRAM utils/volume.py, docs/official-code.md section 1.2)."""
    ll = (l * l).sum(-1).unsqueeze(1).expand(-1, v.shape[0])
    lv, la = l @ v.T, l @ a.T
    row = lambda x: x.unsqueeze(0).expand(l.shape[0], -1)
    vv, va, aa = row((v * v).sum(-1)), row((v * a).sum(-1)), row((a * a).sum(-1))
    return gram_tensor_volume(ll, lv, la, vv, va, aa)


# GARE's psi (docs/official-code.md section 4.2), shared by the GARE twins: parameters as [weight, bias] pairs built with
# the caller's constructors (plain tensors for inference, leaf tensors with gradients for training).
def gare_psi_params(linear, norm, d):
    return dict(ln1=norm(), ln2=norm(), ln3=norm(), q=linear(d, d), k=linear(d, d), v=linear(d, d),
                o=linear(d, d), lin1=linear(d, d), mean=linear(d, d))


def lin(x, p):
    return torch.nn.functional.linear(x, p[0], p[1])


def ln(x, p):
    return torch.nn.functional.layer_norm(x, (p[0].shape[0],), p[0], p[1], 1e-5)
