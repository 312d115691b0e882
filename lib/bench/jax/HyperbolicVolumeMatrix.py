"""JAX twin of lib/geom BenchmarkPairedHyperbolicVolumeMatrix (lib/bench/torch/HyperbolicVolumeMatrix.py):
HyperGRAM's hyperbolic volume matrix (lift pi(x) = [sqrt(1 + |x|^2), x], Lorentzian Gram tensor, det in
float32, sqrt|det|), mean volume and its gradient to all three inputs; B1 = B2 = 256, k = 3, d = 512."""
import numpy as np
import jax
import jax.numpy as jnp
from _common import gram_tensor_volume, inputs, run, unit_vectors

B1, B2, D = 256, 256, 512
rng = np.random.default_rng(6)
anchor, video, audio = inputs("HyperbolicVolumeMatrix", anchor=unit_vectors(rng, B1, D), video=unit_vectors(rng, B2, D),
                              audio=unit_vectors(rng, B2, D))


def hyperbolic_volume_matrix(l, v, a):
    t = lambda x: jnp.sqrt(1 + (x * x).sum(-1))
    tl, tv, ta = t(l), t(v), t(a)
    b1, b2 = l.shape[0], v.shape[0]
    ll = jnp.broadcast_to(((l * l).sum(-1) - tl * tl)[:, None], (b1, b2))
    lv = l @ v.T - tl[:, None] * tv[None]
    la = l @ a.T - tl[:, None] * ta[None]
    row = lambda x: jnp.broadcast_to(x[None], (b1, b2))
    return gram_tensor_volume(ll, lv, la, row((v * v).sum(-1) - tv * tv), row((v * a).sum(-1) - tv * ta),
                              row((a * a).sum(-1) - ta * ta))


step = jax.jit(jax.value_and_grad(lambda l, v, a: hyperbolic_volume_matrix(l, v, a).mean(), argnums=(0, 1, 2)))
run("HyperbolicVolumeMatrix", lambda: step(anchor, video, audio), reps=10, warmup=2,
    check=lambda out: {"loss": out[0], "grad_anchor": out[1][0]})
