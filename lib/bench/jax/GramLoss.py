"""JAX twin of lib/models/gram BenchmarkPairedGramLoss (lib/bench/torch/GramLoss.py): GRAM's
volume-contrastive loss, forward + backward; logits -volume / tau (raw learnable tau = 0.07),
cross-entropy with label smoothing 0.1 in both directions, each direction with the other side held
constant (stop_gradient, the code's no-grad all_gather); gradients to text, video, audio and tau.
B = 256, k = 3, d = 512."""
import numpy as np
import jax
import jax.numpy as jnp
from _common import inputs, run, unit_vectors, volume_matrix

B, D, SMOOTH = 256, 512, 0.1
rng = np.random.default_rng(61)
text, video, audio, tau = inputs("GramLoss", text=unit_vectors(rng, B, D), video=unit_vectors(rng, B, D),
                                 audio=unit_vectors(rng, B, D), tau=np.float32(0.07))


def cross_entropy(logits):
    """torch.nn.functional.cross_entropy(logits, arange(B), label_smoothing=0.1)."""
    logp = jax.nn.log_softmax(logits, -1)
    n = logits.shape[0]
    return -((1 - SMOOTH) * jnp.diagonal(logp) + SMOOTH * logp.mean(-1)).mean()


def loss(t, v, a, tau):
    sg = jax.lax.stop_gradient
    vol = volume_matrix(t, sg(v), sg(a))
    volT = volume_matrix(sg(t), v, a).T
    return 0.5 * (cross_entropy(-vol / tau) + cross_entropy(-volT / tau))


step = jax.jit(jax.value_and_grad(loss, argnums=(0, 1, 2, 3)))
run("GramLoss", lambda: step(text, video, audio, tau), reps=10, warmup=2,
    check=lambda out: {"loss": out[0], "grad_text": out[1][0]})
