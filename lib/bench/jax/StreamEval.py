"""JAX twin of lib/retrieval/graphscore BenchmarkPairedStreamEval (lib/bench/torch/StreamEval.py):
text->video and video->text R@1/5/10, MdR, MnR of N captions x N videos (d = 256, caption i matches video
i; N = $STREAM_EVAL_ITEMS, default 20,000) from their embeddings, the way the official scripts do it:
L2-normalise, the whole N x N cosine score matrix by one matmul, then rank the ground truth by argsort,
rows for text->video and columns for video->text, 1,000 rows or columns per jit-compiled call (1,000
divides every corpus size make bench runs; the chunk bounds only the argsort's indices)."""
import os
import numpy as np
import jax
import jax.numpy as jnp
from _common import inputs, run

N, D = int(os.environ.get("STREAM_EVAL_ITEMS", "20000")), 256
CHUNK = 1000 if N % 1000 == 0 else N
rng = np.random.default_rng(4)
txt0 = rng.standard_normal((N, D), dtype=np.float32)
txt, vid = inputs("StreamEval", txt=txt0, vid=txt0 + 4 * rng.standard_normal((N, D), dtype=np.float32))


@jax.jit
def scores(t, v):
    unit = lambda x: x / jnp.linalg.norm(x, axis=-1, keepdims=True)
    return unit(t) @ unit(v).T


def ranks_fn(axis):
    @jax.jit
    def chunk(S, r0):
        block = jax.lax.dynamic_slice_in_dim(S, r0, CHUNK, axis)
        block = block if axis == 0 else block.T
        idx = jnp.argsort(-block, axis=1)
        return jnp.argmax(idx == (r0 + jnp.arange(CHUNK))[:, None], axis=1) + 1
    return chunk


row_ranks, col_ranks = ranks_fn(0), ranks_fn(1)
RANKS = {}


def metrics(r):
    rf = np.asarray(r, dtype=np.float64)
    return {f"R@{k}": 100 * np.mean(rf <= k) for k in (1, 5, 10)} | {"MdR": np.median(rf), "MnR": rf.mean()}


def evaluate():
    S = scores(txt, vid)
    RANKS["t2v_ranks"] = jnp.concatenate([row_ranks(S, r0) for r0 in range(0, N, CHUNK)])
    RANKS["v2t_ranks"] = jnp.concatenate([col_ranks(S, r0) for r0 in range(0, N, CHUNK)])
    return metrics(RANKS["t2v_ranks"]), metrics(RANKS["v2t_ranks"])


def compile_all():
    S = scores(txt, vid)
    return row_ranks(S, 0), col_ranks(S, 0)


run("StreamEval", evaluate, reps=1, check=lambda out: RANKS, compile_fn=compile_all)
