"""JAX twin of lib/models/gram BenchmarkPairedGramVolumeMatrix1024: GRAM's volume matrix, forward only,
B = 1024, k = 3, d = 512 (lib/bench/torch/GramVolumeMatrix1024.py)."""
import numpy as np
import jax
from _common import inputs, run, unit_vectors, volume_matrix

B, D = 1024, 512
rng = np.random.default_rng(63)
text, video, audio = inputs("GramVolumeMatrix1024", text=unit_vectors(rng, B, D), video=unit_vectors(rng, B, D),
                            audio=unit_vectors(rng, B, D))
fwd = jax.jit(volume_matrix)
run("GramVolumeMatrix1024", lambda: fwd(text, video, audio), reps=10, warmup=2, check=lambda out: {"volume": out})
