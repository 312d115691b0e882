"""JAX twin of lib/models/hlformer BenchmarkPairedHLFormerEval (lib/bench/torch/HLFormerEval.py, whose doc
gives the workload): PRVR evaluation of the paper-sized HLFormer (model of HLFormerTrainStep.py, no
dropout) at Charades-STA test size (1,334 videos, 3,720 queries; or $HLFORMER_BENCH_EVAL_VIDEOS videos
and 2.79 queries each): queries encoded 256 at a time, videos 128 at a time, each video chunk scored against
every query (S = 0.7 S_c + 0.3 S_f) as soon as it is encoded and then dropped; features written to files
before timing and read one chunk at a time, as the torch twin does. The encoders and the scoring are
jit-compiled once each; a last partial chunk is padded to the chunk size (the padding is computed and
dropped)."""
import os
import tempfile
import numpy as np
import jax
import jax.numpy as jnp
from _common import run
from HLFormerTrainStep import CLIPS, D_IN, FRAMES, TOKENS, encode_query, encode_video, init_model, normalize

VIDEOS, QUERIES, VCHUNK, QCHUNK = 1334, 3720, 128, 256
if os.environ.get("HLFORMER_BENCH_EVAL_VIDEOS"):  # the Go benchmark reads the same variable
    VIDEOS = int(os.environ["HLFORMER_BENCH_EVAL_VIDEOS"])
    QUERIES = VIDEOS * 3720 // 1334
params = init_model()
labels = np.arange(QUERIES) * VIDEOS // QUERIES
tmp = tempfile.TemporaryDirectory()
path = lambda name: os.path.join(tmp.name, name)
rng = np.random.default_rng(8)


def unit(*shape):
    x = rng.standard_normal(shape, dtype=np.float32)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def write_features(name, n, length):
    """n random padded sequences (64…length or 8…length valid rows), written chunk by chunk; the [n, length] mask."""
    lo = FRAMES // 2 if length == FRAMES else min(8, length)
    masks = []
    with open(path(name), "wb") as f:
        for i in range(0, n, VCHUNK):
            m = min(VCHUNK, n - i)
            mask = (np.arange(length)[None, :] < rng.integers(lo, length + 1, m)[:, None]).astype(np.float32)
            (unit(m, length, D_IN) * mask[..., None]).tofile(f)
            masks.append(mask)
    return np.concatenate(masks)


with open(path("clips.bin"), "wb") as f:
    for i in range(0, VIDEOS, VCHUNK):
        unit(min(VCHUNK, VIDEOS - i), CLIPS, D_IN).tofile(f)
fmask = write_features("frames.bin", VIDEOS, FRAMES)
tmask = write_features("tokens.bin", QUERIES, TOKENS)


def read(name, start, count, length, pad_to):
    """Rows start…start+count−1 of a [n, length, D_IN] float32 file, zero-padded to pad_to rows."""
    x = np.fromfile(path(name), dtype=np.float32, count=count * length * D_IN, offset=start * length * D_IN * 4)
    return np.pad(x.reshape(count, length, D_IN), ((0, pad_to - count), (0, 0), (0, 0)))


def pad(x, n):
    return np.pad(x, ((0, n - len(x)),) + ((0, 0),) * (x.ndim - 1), constant_values=1)


enc_q = jax.jit(lambda p, t, m: normalize(encode_query(p, t, m, None)))
enc_v = jax.jit(lambda p, c, f, m: tuple(normalize(x) for x in encode_video(p, c, f, m, None)))
score = jax.jit(lambda q, c, f: 0.7 * jnp.einsum("qd,vtd->qvt", q, c).max(-1) + 0.3 * jnp.einsum("qd,vtd->qvt", q, f).max(-1))


def evaluate():
    qs = []
    for i in range(0, QUERIES, QCHUNK):
        n = min(QCHUNK, QUERIES - i)
        qs.append(enc_q(params, read("tokens.bin", i, n, TOKENS, QCHUNK), pad(tmask[i:i + n], QCHUNK))[:n])
    q = jnp.concatenate(qs)
    q = jnp.pad(q, ((0, -QUERIES % QCHUNK), (0, 0)))
    scores = np.empty((QUERIES, VIDEOS), np.float32)
    for j in range(0, VIDEOS, VCHUNK):
        n = min(VCHUNK, VIDEOS - j)
        c, f = enc_v(params, read("clips.bin", j, n, CLIPS, VCHUNK), read("frames.bin", j, n, FRAMES, VCHUNK),
                     pad(fmask[j:j + n], VCHUNK))
        for i in range(0, QUERIES, QCHUNK):
            m = min(QCHUNK, QUERIES - i)
            scores[i:i + m, j:j + n] = np.asarray(score(q[i:i + QCHUNK], c, f))[:m, :n]
    gt = scores[np.arange(QUERIES), labels]
    return 1 + (scores > gt[:, None]).sum(1)


def compile_all():
    """Every jit-compiled function once, on the first chunks."""
    q = enc_q(params, read("tokens.bin", 0, min(QCHUNK, QUERIES), TOKENS, QCHUNK), pad(tmask[:QCHUNK], QCHUNK))
    c, f = enc_v(params, read("clips.bin", 0, min(VCHUNK, VIDEOS), CLIPS, VCHUNK),
                 read("frames.bin", 0, min(VCHUNK, VIDEOS), FRAMES, VCHUNK), pad(fmask[:VCHUNK], VCHUNK))
    return score(q, c, f)


run("HLFormerEval", evaluate, reps=1, compile_fn=compile_all)
