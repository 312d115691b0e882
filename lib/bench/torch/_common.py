"""Shared harness of the PyTorch twins of geoalign's paired benchmarks.

Each twin does the same computation as its Go benchmark, on CPU, with torch.set_num_threads
set to the same thread count (default 2, the machine's cores), and prints ONE line in go-bench
format so that lib/bench/run.py parses both sides alike:
    BenchmarkPaired<Name> <iterations> <median ns per op> ns/op
The same files run on Debian's python3-torch 1.13 and on PyTorch 2 (make bench's build/bench-venv).

Check pass (run.py, $BENCH_CHECK_DIR set): geoalign's benchmark has written its inputs and one output
as .npy files under $BENCH_CHECK_DIR/<Name>/; the twin takes its inputs from there (`inputs`), computes
once, and prints one CHECK line per compared output instead of timing (`run`, `check_lines`).
"""
import os, statistics, sys, time
import numpy as np
import torch

THREADS = int(os.environ.get("BENCH_THREADS", "2"))
torch.set_num_threads(THREADS)
CHECK_DIR = os.environ.get("BENCH_CHECK_DIR", "")
QUICK = os.environ.get("BENCH_QUICK", "") == "1"  # run.py --quick: one warm-up, one timed repetition


def check_array(name):
    """geoalign's array `name` of this check pass (numpy, read-only memory map)."""
    return np.load(os.path.join(CHECK_DIR, name + ".npy"), mmap_mode="r")


def inputs(bench, **defaults):
    """The twin's inputs by name: its own random tensors, or in a check pass geoalign's arrays of the
    same names from $BENCH_CHECK_DIR/<bench>/ (float32 tensors, shapes checked)."""
    if not CHECK_DIR:
        return list(defaults.values())
    out = []
    for name, t in defaults.items():
        a = torch.from_numpy(np.array(check_array(os.path.join(bench, name))))
        if tuple(a.shape) != tuple(t.shape):
            sys.exit(f"check {bench}: {name} has shape {tuple(a.shape)} in geoalign's dump, the twin's is {tuple(t.shape)}")
        out.append(a.to(t.dtype))
    return out


def check_lines(bench, outputs):
    """One line per output compared with geoalign's dump: `CHECK <bench> <output> <measure> <value>`;
    measure rel = max|twin - geoalign| / max|geoalign| for floats, equal = fraction of equal entries
    for integers (ranks). run.py judges them against its tolerances."""
    for name, mine in outputs.items():
        ref = np.array(check_array(os.path.join(bench, name)))
        mine = np.asarray(mine.detach().cpu().numpy() if hasattr(mine, "detach") else mine).reshape(ref.shape)
        if ref.dtype.kind in "iu":
            print(f"CHECK {bench} {name} equal {np.mean(mine.astype(np.int64) == ref):.6f}")
        else:
            scale = max(float(np.max(np.abs(ref))), np.finfo(np.float32).tiny)
            print(f"CHECK {bench} {name} rel {float(np.max(np.abs(mine.astype(np.float64) - ref))) / scale:.3e}")
    sys.stdout.flush()


def run(name, fn, reps=5, warmup=1, check=None):
    """Time fn: warm-up runs, then the median of reps runs; in a check pass, compare check(fn()) instead."""
    if CHECK_DIR:
        if check is None:
            print(f"CHECK {name} - none 0")
        else:
            check_lines(name, check(fn()))
        return
    if QUICK:
        reps, warmup = 1, min(warmup, 1)
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
