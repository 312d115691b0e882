"""JAX twin of lib/geom BenchmarkPairedVolumeMatrix (lib/bench/torch/VolumeMatrix.py): GRAM's volume
matrix, mean volume and its gradient to the anchor and both data modalities; B1 = B2 = 256, k = 3, d = 512."""
import numpy as np
import jax
from _common import inputs, run, unit_vectors, volume_matrix

B1, B2, D = 256, 256, 512
rng = np.random.default_rng(5)
anchor, video, audio = inputs("VolumeMatrix", anchor=unit_vectors(rng, B1, D), video=unit_vectors(rng, B2, D),
                              audio=unit_vectors(rng, B2, D))
step = jax.jit(jax.value_and_grad(lambda l, v, a: volume_matrix(l, v, a).mean(), argnums=(0, 1, 2)))
run("VolumeMatrix", lambda: step(anchor, video, audio), reps=10, warmup=2,
    check=lambda out: {"loss": out[0], "grad_anchor": out[1][0]})
