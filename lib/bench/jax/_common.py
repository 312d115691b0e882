"""Shared harness of the JAX twins of geoalign's paired benchmarks (issue 32).

Each twin computes what its Go benchmark and its PyTorch twin (lib/bench/torch/<Name>.py) compute, at
the same shapes in float32, as one jax.jit-compiled function; a repetition ends with
jax.block_until_ready on its outputs. Warm-up runs (the first one compiles) come before the timed
repetitions, and the median is printed as ONE go-bench line for lib/bench/run.py:
    BenchmarkPaired<Name> <iterations> <median ns per op> ns/op

Threads: $BENCH_THREADS (default 2). XLA's CPU client sizes its thread pools from the CPUs the process
may run on, so this module restricts the process's CPU affinity to BENCH_THREADS CPUs before jax is
imported (run.py also starts every process, Go and PyTorch too, on that many CPUs); with one thread it
also sets XLA_FLAGS=--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1, the documented
single-thread setting. Check pass ($BENCH_CHECK_DIR): as lib/bench/torch/_common.py.
"""
import os, statistics, sys, time

THREADS = int(os.environ.get("BENCH_THREADS", "2"))
_cpus = sorted(os.sched_getaffinity(0))
if len(_cpus) > THREADS:
    os.sched_setaffinity(0, _cpus[:THREADS])
if THREADS == 1:
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1").strip()
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np
import jax
import jax.numpy as jnp

CHECK_DIR = os.environ.get("BENCH_CHECK_DIR", "")
QUICK = os.environ.get("BENCH_QUICK", "") == "1"


def check_array(name):
    return np.load(os.path.join(CHECK_DIR, name + ".npy"), mmap_mode="r")


def inputs(bench, **defaults):
    """The twin's inputs by name (numpy or jax arrays): its own, or in a check pass geoalign's arrays of
    the same names from $BENCH_CHECK_DIR/<bench>/, as float32 jax arrays."""
    if not CHECK_DIR:
        return [jnp.asarray(v) for v in defaults.values()]
    out = []
    for name, v in defaults.items():
        a = np.array(check_array(os.path.join(bench, name)))
        if tuple(a.shape) != tuple(np.shape(v)):
            sys.exit(f"check {bench}: {name} has shape {a.shape} in geoalign's dump, the twin's is {np.shape(v)}")
        out.append(jnp.asarray(a, dtype=jnp.asarray(v).dtype))
    return out


def check_lines(bench, outputs):
    """As lib/bench/torch/_common.py check_lines."""
    for name, mine in outputs.items():
        ref = np.array(check_array(os.path.join(bench, name)))
        mine = np.asarray(mine).reshape(ref.shape)
        if ref.dtype.kind in "iu":
            print(f"CHECK {bench} {name} equal {np.mean(mine.astype(np.int64) == ref):.6f}")
        else:
            scale = max(float(np.max(np.abs(ref))), np.finfo(np.float32).tiny)
            print(f"CHECK {bench} {name} rel {float(np.max(np.abs(mine.astype(np.float64) - ref))) / scale:.3e}")
    sys.stdout.flush()


def run(name, fn, reps=5, warmup=1, check=None, compile_fn=None):
    """Time fn (its outputs waited for with block_until_ready): warm-up runs, then the median of reps.
    compile_fn, when given, replaces the warm-up: it calls every jit-compiled function of fn once at fn's
    shapes on part of the data (for the long workloads that run once: a full warm-up would double them)."""
    call = lambda: jax.block_until_ready(fn())
    if CHECK_DIR:
        if check is None:
            print(f"CHECK {name} - none 0")
        else:
            check_lines(name, check(call()))
        return
    if QUICK:
        reps, warmup = 1, 1
    if compile_fn is not None:
        jax.block_until_ready(compile_fn())
    else:
        for _ in range(max(warmup, 1)):  # the first call compiles: never timed
            call()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    print(f"BenchmarkPaired{name} {reps} {statistics.median(times) * 1e9:.0f} ns/op")
    sys.stdout.flush()


def unit_vectors(rng, n, d):
    """n random L2-normalised float32 vectors of dimension d (numpy)."""
    x = rng.standard_normal((n, d), dtype=np.float32)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def gram_tensor_volume(ll, lv, la, vv, va, aa):
    """sqrt(|det G|) of the B1 x B2 x 3 x 3 Gram tensor given its six [B1, B2] entries (GRAM's
    utils/volume.py: the determinant in float32), as lib/bench/torch/_common.py."""
    G = jnp.stack([jnp.stack([ll, lv, la], -1), jnp.stack([lv, vv, va], -1), jnp.stack([la, va, aa], -1)], -2)
    return jnp.sqrt(jnp.abs(jnp.linalg.det(G)))


def volume_matrix(l, v, a):
    """GRAM's B1 x B2 volume matrix of anchors l against (v_j, a_j) pairs."""
    b1, b2 = l.shape[0], v.shape[0]
    ll = jnp.broadcast_to((l * l).sum(-1)[:, None], (b1, b2))
    row = lambda x: jnp.broadcast_to(x[None, :], (b1, b2))
    return gram_tensor_volume(ll, l @ v.T, l @ a.T, row((v * v).sum(-1)), row((v * a).sum(-1)), row((a * a).sum(-1)))


# GARE's psi (spec section 4.2) and its parts, shared by the GARE twins (as lib/bench/torch/_common.py):
# parameters as (weight [out, in], bias) pairs, torch's Linear layout.
def gare_psi_params(linear, norm, d):
    return dict(ln1=norm(), ln2=norm(), ln3=norm(), q=linear(d, d), k=linear(d, d), v=linear(d, d),
                o=linear(d, d), lin1=linear(d, d), mean=linear(d, d))


def lin(x, p):
    return x @ p[0].T + p[1]


def ln(x, p, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps) * p[0] + p[1]
