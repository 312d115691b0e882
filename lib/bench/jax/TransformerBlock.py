"""JAX twin of lib/bench BenchmarkPairedTransformerBlock (lib/bench/torch/TransformerBlock.py): training
step (loss and the gradient of every weight) of 2 pre-LN transformer layers, B=128, S=32, D=384, 6 heads,
MLP 4x, exact GELU, LayerNorm without affine (eps 1e-5), logits scaled by 1/head_dim, MSE loss."""
import numpy as np
import jax
import jax.numpy as jnp
from _common import inputs, run

B, S, D, H, L = 128, 32, 384, 6, 2
hd = D // H
rng = np.random.default_rng(3)
x0 = rng.standard_normal((B, S, D), dtype=np.float32)
target = rng.standard_normal((B, S, D), dtype=np.float32)
weights = [0.02 * rng.standard_normal(shape, dtype=np.float32)
           for _ in range(L) for shape in [(D, D)] * 4 + [(D, 4 * D), (4 * D, D)]]
x0, target, *weights = inputs("TransformerBlock", x=x0, target=target, **{f"w{i}": w for i, w in enumerate(weights)})


def layer_norm(x):
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / jnp.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-5)


def layer(x, w):
    h = layer_norm(x)
    q, k, v = [(h @ wi).reshape(B, S, H, hd) for wi in w[:3]]
    logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / hd
    att = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(logits, -1), v).reshape(B, S, D)
    x = x + att @ w[3]
    h = layer_norm(x)
    return x + jax.nn.gelu(h @ w[4], approximate=False) @ w[5]


def loss(weights, x, target):
    for l in range(L):
        x = layer(x, weights[6 * l:6 * l + 6])
    return ((x - target) ** 2).mean()


step = jax.jit(jax.value_and_grad(loss))
run("TransformerBlock", lambda: step(weights, x0, target), reps=5,
    check=lambda out: {"loss": out[0], "grad_w0": out[1][0]})
