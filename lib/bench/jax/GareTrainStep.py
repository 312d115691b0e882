"""JAX twin of lib/models/gare BenchmarkPairedGareTrainStep (lib/bench/torch/GareTrainStep.py, whose doc
gives the model): one GARE training forward + backward (the gradient of every parameter, no optimizer
step), 128 texts x 128 videos, 12 frames, 512-d given features, 4 CLIP residual attention blocks, psi with
dropout 0.3 (a fresh mask per step), L_info + 1e-4 KL + 0.01 L_eps + 0.01 L_dir; one jit-compiled
function. Linear weights N(0, 0.02), zero biases, LayerNorm 1/0, as the official init."""
import math
import numpy as np
import jax
import jax.numpy as jnp
from _common import gare_psi_params, lin, ln, run

A = B = 128
NF, D, H, L = 12, 512, 8, 4
rng = np.random.default_rng(7)
normal = lambda *shape, std=0.02: jnp.asarray(std * rng.standard_normal(shape, dtype=np.float32))
linear = lambda i, o: (normal(o, i), jnp.zeros(o, jnp.float32))
norm = lambda: (jnp.ones(D, jnp.float32), jnp.zeros(D, jnp.float32))
params = dict(pos=normal(NF, D),
              layers=[dict(ln1=norm(), ln2=norm(), q=linear(D, D), k=linear(D, D), v=linear(D, D), o=linear(D, D),
                           fc=linear(D, 4 * D), proj=linear(4 * D, D)) for _ in range(L)],
              psi=gare_psi_params(linear, norm, D))
text = normal(A, D, std=0.4)
frames = normal(B, NF, D, std=0.4)
mask = jnp.ones((B, NF), jnp.float32)


def temporal(p, x):
    orig = x
    x = x + p["pos"][None]
    bias = (1.0 - mask)[:, None, None, :] * -1e6
    hd = D // H
    for lay in p["layers"]:
        h = ln(x, lay["ln1"])
        q, k, v = [lin(h, lay[n]).reshape(B, NF, H, hd).transpose(0, 2, 1, 3) for n in ("q", "k", "v")]
        att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd) + bias, -1) @ v
        x = x + lin(att.transpose(0, 2, 1, 3).reshape(B, NF, D), lay["o"])
        m = lin(ln(x, lay["ln2"]), lay["fc"])
        x = x + lin(m * jax.nn.sigmoid(1.702 * m), lay["proj"])
    return x + orig


def psi_forward(psi, query, context, key):
    q = lin(ln(query, psi["ln1"]), psi["q"])
    c = ln(context, psi["ln1"])
    k, v = lin(c, psi["k"]), lin(c, psi["v"])
    logits = jnp.einsum("abd,bfd->abf", q, k) / math.sqrt(D)
    att = jnp.einsum("abf,bfd->abd", jax.nn.softmax(logits, -1), v)
    x = ln(lin(att, psi["o"]), psi["ln2"])
    keep = jax.random.bernoulli(key, 0.7, x.shape)
    z = x + jnp.where(keep, lin(x, psi["lin1"]) / 0.7, 0.0)
    return lin(ln(z, psi["ln3"]), psi["mean"])


def cross_entropy(logits):
    return -jnp.diagonal(jax.nn.log_softmax(logits, -1)).mean()


def loss(p, key):
    h = temporal(p, frames)
    w = jax.nn.softmax(jnp.einsum("ad,bfd->abf", text, h) / 3.0, -1) * mask[None]
    pooled = jnp.einsum("abf,bfd->abd", w, h)
    gap = h.mean(1)[None] - text[:, None]
    delta = psi_forward(p["psi"], gap, h, key)
    t_new = text[:, None] + delta
    unit = lambda x: x / jnp.linalg.norm(x, axis=-1, keepdims=True)
    sim = (unit(t_new) * unit(pooled)).sum(-1)
    info = 0.5 * (cross_entropy(100 * sim) + cross_entropy(100 * sim.T))
    mu, sigma = delta.mean(0), jnp.std(delta, axis=0, ddof=1) + 1e-6
    kl = (jnp.log(1 / sigma) + (sigma ** 2 + mu ** 2) / 2 - 0.5).sum(-1).mean()
    z = delta / jnp.maximum(jnp.linalg.norm(delta, axis=2, keepdims=True), 1e-12)  # F.normalize's eps
    cos = jnp.einsum("ajd,akd->ajk", z, z)
    ldir = jnp.log(jnp.exp(-2.0 * (1 - cos)).mean(axis=(1, 2)) + 1e-8).mean()
    leps = -jnp.var(jnp.linalg.norm(delta, axis=2), axis=1, ddof=1).mean()
    leps = jnp.where(leps >= -0.5, leps, 0.0)
    return info + 1e-4 * kl + 0.01 * ldir + 0.01 * leps


grad_step = jax.jit(jax.value_and_grad(loss))
key = jax.random.key(0)
counter = iter(range(1 << 30))
run("GareTrainStep", lambda: grad_step(params, jax.random.fold_in(key, next(counter))), reps=3)
