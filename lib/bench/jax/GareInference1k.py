"""JAX twin of lib/models/gare BenchmarkPairedGareInference1k (lib/bench/torch/GareInference1k.py, whose
doc gives the computation): GARE scores of 1,000 texts x 1,000 videos with Delta computed for every pair
as the official evaluation does (psi per pair, S = cos(t_i + Delta_ij, text-conditioned pooled video)),
from given 512-d features, in blocks of GARE_BLOCK texts x GARE_BLOCK videos (default 128, as the torch
twin; the block function is jit-compiled once, the last partial blocks pad to the block size).
The torch twin's GARE_FACTORED form (geoalign's algorithm written in torch) has no JAX version."""
import math
import os
import numpy as np
import jax
import jax.numpy as jnp
from _common import gare_psi_params, lin, ln, run

N, NF, D = 1000, 12, 512
BLOCK = int(os.environ.get("GARE_BLOCK", "128"))
rng = np.random.default_rng(11)
normal = lambda *shape, std=0.02: std * rng.standard_normal(shape, dtype=np.float32)
linear = lambda i, o: (jnp.asarray(normal(o, i)), jnp.zeros(o, jnp.float32))
norm = lambda: (jnp.ones(D, jnp.float32), jnp.zeros(D, jnp.float32))
psi = gare_psi_params(linear, norm, D)
NP = -(-N // BLOCK) * BLOCK  # padded to whole blocks: padded rows/columns are computed and dropped
text = jnp.asarray(np.pad(normal(N, D, std=0.4), ((0, NP - N), (0, 0))))
frames = jnp.asarray(np.pad(normal(N, NF, D, std=0.4), ((0, NP - N), (0, 0), (0, 0))))
mask = jnp.ones((NP, NF), jnp.float32)


@jax.jit
def block_scores(psi, t, h, m):
    """Official per-pair computation for texts t [a, D] x videos h [b, F, D]."""
    w = jax.nn.softmax(jnp.einsum("ad,bfd->abf", t, h) / 3.0, -1) * m[None]
    pooled = jnp.einsum("abf,bfd->abd", w, h)
    gap = h.mean(1)[None] - t[:, None]
    q = lin(ln(gap, psi["ln1"]), psi["q"])
    c = ln(h, psi["ln1"])
    k, v = lin(c, psi["k"]), lin(c, psi["v"])
    att = jax.nn.softmax(jnp.einsum("abd,bfd->abf", q, k) / math.sqrt(D), -1)
    x = ln(lin(jnp.einsum("abf,bfd->abd", att, v), psi["o"]), psi["ln2"])
    delta = lin(ln(x + lin(x, psi["lin1"]), psi["ln3"]), psi["mean"])
    tn = t[:, None] + delta
    unit = lambda x: x / jnp.linalg.norm(x, axis=-1, keepdims=True)
    return (unit(tn) * unit(pooled)).sum(-1)


def scores():
    rows = []
    for t0 in range(0, NP, BLOCK):
        rows.append(jnp.concatenate([block_scores(psi, text[t0:t0 + BLOCK], frames[v0:v0 + BLOCK], mask[v0:v0 + BLOCK])
                                     for v0 in range(0, NP, BLOCK)], axis=1))
    return jnp.concatenate(rows, axis=0)[:N, :N]


run("GareInference1k", scores, reps=int(os.environ.get("GARE_REPS", "3")),
    compile_fn=lambda: block_scores(psi, text[:BLOCK], frames[:BLOCK], mask[:BLOCK]))
