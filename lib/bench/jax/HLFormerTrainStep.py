"""JAX twin of lib/models/hlformer BenchmarkPairedHLFormerTrainStep (lib/bench/torch/HLFormerTrainStep.py,
whose doc gives the model; this file follows it function for function): one training step (forward,
backward, BertAdam update) of the paper-sized HLFormer on a batch of 128 videos (or $HLFORMER_BENCH_VIDEOS;
32 clips, 128 padded frames, 1024-d) and 2.5 queries per video (30 padded tokens, 1024-d), float32, dropout
on, as one jit-compiled function of (parameters, optimizer state, batch, PRNG key). HLFormerEval.py imports
the model from here. The torch twin's in-place clamps of the learned scalars (curvature, alphas) are
applied to the values used in the forward pass (jnp.clip / minimum; gradients pass as if unclamped, as
a clamp_ under no_grad does)."""
import math
import numpy as np
import jax
import jax.numpy as jnp

D_IN, D, HEADS, N_LOR, DROP, TAU = 1024, 384, 4, 127, 0.25, 0.6
CLIPS, FRAMES, TOKENS = 32, 128, 30
WIDTHS = [None, 2, 4, 8]


class Keys:
    """Fresh PRNG keys for dropout, split off one key while tracing (training), or None (evaluation)."""
    def __init__(self, key):
        self.key = key

    def __call__(self):
        self.key, k = jax.random.split(self.key)
        return k


def dropout(x, keys):
    if keys is None:
        return x
    return jnp.where(jax.random.bernoulli(keys(), 1 - DROP, x.shape), x / (1 - DROP), 0.0)


def gauss_mask(length, width):
    centre = jnp.arange(length, dtype=jnp.float32)[:, None] / length
    pos = jnp.linspace(0, 1, length)[None, :]
    sigma = max(width, 0.01) / 9
    w = jnp.exp(-(pos - centre) ** 2 / (2 * sigma ** 2)) / (sigma * math.sqrt(2 * math.pi))
    return w / w.max(-1, keepdims=True)


# --- parameters (torch's initialisation: Linear/Embedding N(0, 0.02), zero biases, LayerNorm 1/0) ---
class Init:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def linear(self, i, o, bias=True):
        w = jnp.asarray(0.02 * self.rng.standard_normal((o, i), dtype=np.float32))
        return {"w": w, "b": jnp.zeros(o, jnp.float32)} if bias else {"w": w}

    def norm(self, d):
        return {"g": jnp.ones(d, jnp.float32), "b": jnp.zeros(d, jnp.float32)}

    def emb(self, n, d):
        return jnp.asarray(0.02 * self.rng.standard_normal((n, d), dtype=np.float32))


def linear(p, x):
    y = x @ p["w"].T
    return y + p["b"] if "b" in p else y


def layer_norm(p, x, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / jnp.sqrt(var + eps) * p["g"] + p["b"]


def init_linear_layer(ini, i, o):
    return {"ln": ini.norm(i), "lin": ini.linear(i, o)}


def linear_layer(p, x, keys):
    return jax.nn.relu(linear(p["lin"], dropout(layer_norm(p["ln"], x), keys)))


def init_pos(ini, n, d):
    return {"emb": ini.emb(n, d), "ln": ini.norm(d)}


def pos_enc(p, x, keys):
    return dropout(layer_norm(p["ln"], x + p["emb"][None, :x.shape[1]]), keys)


def init_euc_block(ini, hidden=4 * D):
    return {"q": ini.linear(D, D), "k": ini.linear(D, D), "v": ini.linear(D, D),
            "n1": ini.norm(D), "n2": ini.norm(D), "f1": ini.linear(D, hidden), "f2": ini.linear(hidden, D)}


def wrapper(p, x, att, keys):
    h = layer_norm(p["n1"], x + dropout(att, keys))
    return layer_norm(p["n2"], h + dropout(linear(p["f2"], dropout(jax.nn.relu(linear(p["f1"], h)), keys)), keys))


def euc_attention(p, q, kv, mask, width, keys):
    n, lq, lk, dh = q.shape[0], q.shape[1], kv.shape[1], D // HEADS
    Q = linear(p["q"], q).reshape(n, lq, HEADS, dh).transpose(0, 2, 1, 3)
    K = linear(p["k"], kv).reshape(n, lk, HEADS, dh).transpose(0, 2, 1, 3)
    V = linear(p["v"], kv).reshape(n, lk, HEADS, dh).transpose(0, 2, 1, 3)
    logits = Q @ K.transpose(0, 1, 3, 2) / math.sqrt(dh)
    if width is not None:
        logits = logits * gauss_mask(lk, width)
    if mask is not None:
        logits = logits + (1 - mask[:, None, None, :]) * -10000.0
    out = dropout(jax.nn.softmax(logits, -1), keys) @ V
    return out.transpose(0, 2, 1, 3).reshape(n, lq, D)


def euc_block(p, x, mask, width, keys, query=None):
    q = x if query is None else query
    return wrapper(p, q, euc_attention(p, q, x, mask, width, keys), keys)


def minkowski(x, y):
    return (x * y).sum(-1) - 2 * x[..., 0] * y[..., 0]


def expmap0_full(u):
    n = jnp.sqrt(jnp.maximum(minkowski(u, u), 1e-9))[..., None]
    space = jnp.sinh(jnp.minimum(n, 10)) * u[..., 1:] / n
    return jnp.concatenate([jnp.sqrt(1 + (space * space).sum(-1, keepdims=True)), space], -1)


def logmap0_full(y):
    t = y[..., :1]
    s = jnp.sqrt(jnp.maximum(t * t - 1, 1e-9))
    return jnp.concatenate([jnp.zeros_like(t), jnp.log(t + s) / s * y[..., 1:]], -1)


def clamped(x, lo=-jnp.inf, hi=jnp.inf):
    """x clipped to [lo, hi] in value, with x's gradient (a clamp_ under torch.no_grad)."""
    return x + jax.lax.stop_gradient(jnp.clip(x, lo, hi) - x)


def init_lorentz_linear(ini, dim):
    return {"w": ini.linear(dim, dim, bias=False), "scale": jnp.float32(2.3)}


def lorentz_linear(p, x, keys):
    y = linear(p["w"], dropout(x, keys))
    y = y.reshape(*y.shape[:-1], HEADS, -1)
    time = jax.nn.sigmoid(y[..., :1]) * jnp.exp(p["scale"]) + 1.1
    ys = y[..., 1:]
    f = jnp.sqrt((time * time - 1) / (ys * ys).sum(-1, keepdims=True))
    return jnp.concatenate([time, ys * f], -1)


def init_lor_block(ini):
    full = N_LOR + 1
    return {"inp": init_linear_layer(ini, D, N_LOR), "out": init_linear_layer(ini, N_LOR, D),
            "alpha": jnp.float32(math.log(N_LOR ** -0.5)), "kl": init_lorentz_linear(ini, full),
            "vl": init_lorentz_linear(ini, full), "ql": init_lorentz_linear(ini, full),
            "s": jnp.float32(math.sqrt(full)), "b": jnp.float32(0.0), "wrap": init_euc_block(ini)}


def lorentz_attention(p, x, mask, width, keys):
    alpha = jnp.exp(clamped(p["alpha"], hi=0.0))
    u = linear_layer(p["inp"], x, keys) * alpha
    pt = expmap0_full(jnp.pad(u, ((0, 0), (0, 0), (1, 0))))
    n, length = pt.shape[:2]
    K, V, Q = [lorentz_linear(p[k], pt, keys).transpose(0, 2, 1, 3) for k in ("kl", "vl", "ql")]
    Qs = jnp.concatenate([-Q[..., :1], Q[..., 1:]], -1)
    logits = (2 + 2 * (Qs @ K.transpose(0, 1, 3, 2))) / p["s"] + p["b"]
    if width is not None:
        logits = logits * gauss_mask(length, width)
    if mask is not None:
        logits = jnp.where(mask[:, None, None, :] == 0, -1e18, logits)
    a = jax.nn.softmax(logits, -1) @ V
    a = a / jnp.sqrt(jnp.maximum(jnp.abs(minkowski(a, a)), 1e-8))[..., None]
    y = a.transpose(0, 2, 1, 3).reshape(n, length, -1)
    return linear_layer(p["out"], logmap0_full(y)[..., 1:] / alpha, keys)


def lor_block(p, x, mask, width, keys):
    return wrapper(p["wrap"], x, lorentz_attention(p, x, mask, width, keys), keys)


def init_hlformer_block(ini, length):
    return {"euc": [init_euc_block(ini) for _ in WIDTHS], "lor": [init_lor_block(ini) for _ in WIDTHS],
            "ca": init_euc_block(ini, hidden=D), "l1": ini.linear(D, D), "l2": ini.linear(D, length)}


def hlformer_block(p, x, mask, keys):
    oo = jnp.stack([euc_block(b, x, mask, w, keys) for b, w in zip(p["euc"], WIDTHS)] +
                   [lor_block(b, x, mask, w, keys) for b, w in zip(p["lor"], WIDTHS)], 0)  # [B, N, L, d]
    nb, n, length, d = oo.shape
    phi = jnp.tile(oo.mean(axis=(0, 2)).reshape(n, 1, d), (nb, 1, 1))
    m = None if mask is None else jnp.tile(mask, (nb, 1))
    tok = euc_block(p["ca"], oo.reshape(nb * n, length, d), m, None, keys, query=phi).reshape(nb, n, d).transpose(1, 0, 2)
    w = linear(p["l2"], dropout(jax.nn.relu(linear(p["l1"], tok)), keys))  # [N, B, L]
    w = jax.nn.softmax(w.transpose(0, 2, 1) / TAU, -1)  # [N, L, B]
    return (oo * w.transpose(2, 0, 1)[..., None]).sum(0)


def init_model(seed=1):
    ini = Init(seed)
    return {"q_in": init_linear_layer(ini, D_IN, D), "q_pos": init_pos(ini, TOKENS, D), "q_enc": init_euc_block(ini),
            "q_pool": ini.linear(D, 1, bias=False),
            "c_in": init_linear_layer(ini, D_IN, D), "c_pos": init_pos(ini, max(FRAMES, CLIPS), D),
            "c_enc": init_hlformer_block(ini, CLIPS),
            "f_in": init_linear_layer(ini, D_IN, D), "f_pos": init_pos(ini, FRAMES, D), "f_enc": init_hlformer_block(ini, FRAMES),
            "pool_f": ini.linear(D, 1, bias=False), "pool_c": ini.linear(D, 1, bias=False),
            "video_alpha": jnp.float32(math.log(D ** -0.5)), "text_alpha": jnp.float32(math.log(D ** -0.5)),
            "curv": jnp.float32(0.0)}


def encode_query(p, tokens, mask, keys):
    x = euc_block(p["q_enc"], pos_enc(p["q_pos"], linear_layer(p["q_in"], tokens, keys), keys), mask, None, keys)
    s = linear(p["q_pool"], x)[..., 0] * mask + (1 - mask) * -1e10
    return (jax.nn.softmax(s, -1)[..., None] * x).sum(1)


def encode_video(p, clips, frames, fmask, keys):
    c = hlformer_block(p["c_enc"], pos_enc(p["c_pos"], linear_layer(p["c_in"], clips, keys), keys), None, keys)
    f = hlformer_block(p["f_enc"], pos_enc(p["f_pos"], linear_layer(p["f_in"], frames, keys), keys), fmask, keys)
    return c, f * fmask[..., None]


def normalize(x):
    return x / jnp.maximum(jnp.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def max_scores(q, ctx, normalise):
    if normalise:
        q, ctx = normalize(q), normalize(ctx)
    return jnp.einsum("qd,vtd->qvt", q, ctx).max(-1)


def nce(s, labels):
    pos = jax.nn.one_hot(labels, s.shape[1], dtype=bool)
    t2v = (jax.nn.logsumexp(s, 1) - s[jnp.arange(s.shape[0]), labels]).mean()
    v2t = jax.nn.logsumexp(s, 0) - jax.nn.logsumexp(jnp.where(pos, s, -jnp.inf), 0)
    return t2v + v2t.mean()


def triplet(s, labels, key, margin=0.2):
    q, v = s.shape
    pos = jax.nn.one_hot(labels, v, dtype=bool)
    k1, k2 = jax.random.split(key)
    neg_v = jnp.where(pos, -1.0, jax.random.uniform(k1, (q, v))).argmax(1)
    t2v = jax.nn.relu(margin + s[jnp.arange(q), neg_v] - s[jnp.arange(q), labels]).mean()
    neg_q = jnp.where(pos, -1.0, jax.random.uniform(k2, (q, v))).argmax(0)
    v_pos = (s * pos).sum(0) / pos.sum(0)
    v2t = jax.nn.relu(margin + s[neg_q, jnp.arange(v)] - v_pos).mean()
    return t2v + v2t


def diversity(q, labels, margin=0.2, scale=32.0):
    qn = normalize(q)
    cos = qn @ qn.T
    same = (labels[:, None] == labels[None, :]) & ~jnp.eye(len(labels), dtype=bool)
    return jnp.where(same, (1 + cos) * jax.nn.softplus(scale * (cos + margin)), 0.0).sum() / len(labels)


def exp_map0(u, c):
    r = jnp.sqrt(c) * jnp.maximum(jnp.linalg.norm(u, axis=-1, keepdims=True), 1e-8)
    return jnp.sinh(jnp.minimum(r, math.asinh(2 ** 15))) * u / r


def pop(v, t, c, K=0.1):
    tv = jnp.sqrt(1 / c + (v * v).sum(-1))
    tt = jnp.sqrt(1 / c + (t * t).sum(-1))
    vn = jnp.linalg.norm(v, axis=-1)
    ha = jnp.arcsin(jnp.clip(2 * K / (vn * jnp.sqrt(c) + 1e-8), -1 + 1e-8, 1 - 1e-8))
    g = c * ((v * t).sum(-1) - tv * tt)
    num = tt + g * tv
    den = vn * jnp.sqrt(jnp.maximum(g * g - 1, 1e-8)) + 1e-8
    ea = jnp.arccos(jnp.clip(num / den, -1 + 1e-8, 1 - 1e-8))
    return jax.nn.relu(ea - ha).mean()


def loss_fn(p, batch, key):
    clips, frames, fmask, tokens, tmask, labels = batch
    keys = Keys(key)
    q = encode_query(p, tokens, tmask, keys)
    c, f = encode_video(p, clips, frames, fmask, keys)
    loss = 0.02 * nce(max_scores(q, c, False), labels) + triplet(max_scores(q, c, True), labels, keys())
    loss = loss + 0.04 * nce(max_scores(q, f, False), labels) + triplet(max_scores(q, f, True), labels, keys())
    q2 = encode_query(p, tokens, tmask, keys)
    loss = loss + 3e-3 * diversity(q2, labels)
    cc = jnp.exp(clamped(p["curv"], math.log(0.1), math.log(10)))
    pool = lambda w, x: (jax.nn.softmax(linear(w, x)[..., 0], -1)[..., None] * x).sum(1)
    pf, pc = pool(p["pool_f"], f), pool(p["pool_c"], c)
    vid = exp_map0((pf + pc) / 2 * jnp.exp(clamped(p["video_alpha"], hi=0.0)), cc)
    txt = exp_map0(q2 * jnp.exp(clamped(p["text_alpha"], hi=0.0)), cc)
    return loss + 1e-3 * pop(vid[labels], txt, cc)


def bert_adam(params, grads, m, v, lr=2e-4):
    """Adam without bias correction, per-tensor grad-norm clipping at 1, decoupled weight decay 0.01 on
    tensors of rank > 1 (the torch twin's BertAdam)."""
    def one(p, g, m, v):
        g = g * jnp.minimum(1.0, 1.0 / (jnp.linalg.norm(g) + 1e-6))
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        u = m / (jnp.sqrt(v) + 1e-6)
        if p.ndim > 1:
            u = u + 0.01 * p
        return p - lr * u, m, v
    out = jax.tree_util.tree_map(one, params, grads, m, v)
    pick = lambda i: jax.tree_util.tree_map(lambda t: t[i], out, is_leaf=lambda t: isinstance(t, tuple))
    return pick(0), pick(1), pick(2)


def random_batch(videos, queries, rng):
    """Random inputs of the benchmark's shapes: 64–128 valid frames per video, 8–30 tokens per query."""
    unit = lambda *s: (lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True))(rng.standard_normal(s, dtype=np.float32))
    clips, frames = unit(videos, CLIPS, D_IN), unit(videos, FRAMES, D_IN)
    fmask = (np.arange(FRAMES)[None, :] < rng.integers(FRAMES // 2, FRAMES + 1, videos)[:, None]).astype(np.float32)
    tokens = unit(queries, TOKENS, D_IN)
    tmask = (np.arange(TOKENS)[None, :] < rng.integers(8, TOKENS + 1, queries)[:, None]).astype(np.float32)
    labels = np.arange(queries) * videos // queries
    return tuple(jnp.asarray(x) for x in (clips, frames * fmask[..., None], fmask, tokens * tmask[..., None], tmask, labels))


if __name__ == "__main__":
    import os
    from _common import run

    videos = int(os.environ.get("HLFORMER_BENCH_VIDEOS", "128"))  # the Go benchmark reads the same variable
    params = init_model()
    zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
    state = {"p": params, "m": zeros, "v": jax.tree_util.tree_map(jnp.zeros_like, params)}
    batch = random_batch(videos, videos * 5 // 2, np.random.default_rng(7))

    @jax.jit
    def train_step(p, m, v, batch, key):
        loss, grads = jax.value_and_grad(loss_fn)(p, batch, key)
        p, m, v = bert_adam(p, grads, m, v)
        return loss, p, m, v

    key = jax.random.key(0)
    counter = iter(range(1 << 30))

    def step():
        loss, state["p"], state["m"], state["v"] = train_step(state["p"], state["m"], state["v"], batch,
                                                              jax.random.fold_in(key, next(counter)))
        return loss

    run("HLFormerTrainStep", step, reps=3)
