"""Twin of lib/models/gare BenchmarkPairedGareInference1k: GARE scores of 1,000 texts x 1,000
videos with Delta computed for every pair (the official evaluation,
docs/official-code.md §4.5), from given 512-d features as the official block loop
receives them (text [CLS] features; video frame features after the temporal transformer),
written from that document (not copied from the GARE repository).

Default: psi exactly as the official code computes it, per pair (query = mean_f(h_j) - t_i,
shared LayerNorm, one-head cross-attention over the 12 frames, LN2, x + linear1(x), LN3,
mean_proj), S = cos(t_i + Delta_ij, text-conditioned pooled video), in blocks of GARE_BLOCK texts
x GARE_BLOCK videos (default 128: the same arithmetic as the official 16 x 16 loop, 64 times fewer
Python calls; GARE_BLOCK=16 reproduces the official loop, ~3 minutes here).

GARE_FACTORED=1 runs instead the exact factored form geoalign uses (lib/models/gare psi.go and
scores.go: per-video bases and F x F Gram matrices, no per-pair D x D products), to separate the
algorithmic gain from the implementation.
"""
import math
import os
import torch
import torch.nn.functional as F
from _common import gare_psi_params, lin, ln, run

N, NF, D = 1000, 12, 512
BLOCK = int(os.environ.get("GARE_BLOCK", "128"))
FACTORED = os.environ.get("GARE_FACTORED", "") == "1"
g = torch.Generator().manual_seed(11)


def linear(i, o):
    return [0.02 * torch.randn(o, i, generator=g), torch.zeros(o)]


def norm():
    return [torch.ones(D), torch.zeros(D)]


psi = gare_psi_params(linear, norm, D)
text = 0.4 * torch.randn(N, D, generator=g)
frames = 0.4 * torch.randn(N, NF, D, generator=g)
mask = torch.ones(N, NF)


def block_scores(t, h, m):
    """Official per-pair computation for texts t [a, D] x videos h [b, F, D]."""
    w = torch.softmax(torch.einsum("ad,bfd->abf", t, h) / 3.0, -1) * m[None]
    pooled = torch.einsum("abf,bfd->abd", w, h)
    gap = h.mean(1)[None] - t[:, None]
    q = lin(ln(gap, psi["ln1"]), psi["q"])
    c = ln(h, psi["ln1"])
    k, v = lin(c, psi["k"]), lin(c, psi["v"])
    att = torch.softmax(torch.einsum("abd,bfd->abf", q, k) / math.sqrt(D), -1)
    x = ln(lin(torch.einsum("abf,bfd->abd", att, v), psi["o"]), psi["ln2"])
    delta = lin(ln(x + lin(x, psi["lin1"]), psi["ln3"]), psi["mean"])
    tn = t[:, None] + delta
    return (F.normalize(tn, dim=-1, eps=0) * F.normalize(pooled, dim=-1, eps=0)).sum(-1)


def centered(x):
    return x - x.mean(-1, keepdim=True)


def video_side(h):
    """Text-independent part of the factored scores for videos h [b, F, D]."""
    eps = 1e-5
    mean = h.mean(1)
    cm = centered(mean)
    g1 = psi["ln1"][0]
    Wq, bq = psi["q"][0].t(), psi["q"][1]
    keys = lin(ln(h, psi["ln1"]), psi["k"])
    mq = (cm * g1) @ Wq
    key_mean = torch.einsum("bd,bfd->bf", mq, keys) / math.sqrt(D)
    q0 = psi["ln1"][1] @ Wq + bq
    key_off = torch.einsum("d,bfd->bf", q0, keys) / math.sqrt(D)
    values = lin(lin(ln(h, psi["ln1"]), psi["v"]), psi["o"])
    u = centered(values)
    ugram = torch.einsum("bfd,bgd->bfg", u, u)
    W1 = psi["lin1"][0].t()
    xb = u * psi["ln2"][0]
    z = xb + xb @ W1
    z0 = psi["ln2"][1] + psi["ln2"][1] @ W1 + psi["lin1"][1]
    cz, cz0 = centered(z), centered(z0)
    Wm = psi["mean"][0].t()
    basis = (cz * psi["ln3"][0]) @ Wm
    extra = (cz0 * psi["ln3"][0]) @ Wm
    offset = (psi["ln3"][1] @ Wm + psi["mean"][1]).expand(h.shape[0], D)
    return dict(h=h, fgram=torch.einsum("bfd,bgd->bfg", h, h), cm=cm, cm2=(cm * cm).sum(-1), keys=keys,
                key_mean=key_mean, key_off=key_off, ugram=ugram, zgram=torch.einsum("bfd,bgd->bfg", cz, cz),
                zcross=torch.einsum("bfd,d->bf", cz, cz0), z2=(cz0 * cz0).sum(), basis=basis, extra=extra,
                offset=offset, bh=torch.einsum("bfd,bgd->bfg", basis, h), eh=torch.einsum("bfd,d->bf", h, extra),
                oh=torch.einsum("bfd,bd->bf", h, offset), bgram=torch.einsum("bfd,bgd->bfg", basis, basis),
                be=torch.einsum("bfd,d->bf", basis, extra), bo=torch.einsum("bfd,bd->bf", basis, offset),
                e2=(extra * extra).sum(), o2=(offset * offset).sum(-1), eo=offset @ extra)


def quad(x, m, y):
    return (torch.einsum("abf,bfg->abg", x, m) * y).sum(-1)


def factored_scores(t, vs):
    eps = 1e-5
    a = t.shape[0]
    b = vs["h"].shape[0]
    dots = torch.einsum("ad,bfd->abf", t, vs["h"])
    pool = torch.softmax(dots / 3.0, -1)
    tv = (pool * dots).sum(-1)
    vv = quad(pool, vs["fgram"], pool)
    tt = (t * t).sum(-1, keepdim=True)
    ct = centered(t)
    pt = (ct * psi["ln1"][0]) @ psi["q"][0].t()
    qvar = (ct * ct).sum(-1, keepdim=True) + vs["cm2"][None] - 2 * ct @ vs["cm"].t()
    s1 = torch.sqrt(qvar / D + eps)
    tk = torch.einsum("ad,bfd->abf", pt, vs["keys"]) / math.sqrt(D)
    logits = (vs["key_mean"][None] - tk) / s1[..., None] + vs["key_off"][None]
    att = torch.softmax(logits, -1)
    s2 = torch.sqrt(quad(att, vs["ugram"], att) / D + eps)
    c = att / s2[..., None]
    zvar = quad(c, vs["zgram"], c) + 2 * (c * vs["zcross"][None]).sum(-1) + vs["z2"]
    r = 1 / torch.sqrt(zvar / D + eps)
    e = c * r[..., None]
    dv = quad(e, vs["bh"], pool) + r * (pool * vs["eh"][None]).sum(-1) + (pool * vs["oh"][None]).sum(-1)
    tx = torch.einsum("ad,bfd->abf", t, vs["basis"])
    td = (e * tx).sum(-1) + r * (t @ vs["extra"])[:, None] + t @ vs["offset"].t()
    dd = (quad(e, vs["bgram"], e) + r * r * vs["e2"] + vs["o2"][None] + 2 * r * (e * vs["be"][None]).sum(-1)
          + 2 * (e * vs["bo"][None]).sum(-1) + 2 * r * vs["eo"][None])
    return (tv + dv) / torch.sqrt((tt + 2 * td + dd) * vv)


def scores():
    out = torch.empty(N, N)
    with torch.no_grad():
        if FACTORED:
            for v0 in range(0, N, 256):
                vs = video_side(frames[v0:v0 + 256])
                for t0 in range(0, N, 256):
                    out[t0:t0 + 256, v0:v0 + 256] = factored_scores(text[t0:t0 + 256], vs)
        else:
            for t0 in range(0, N, BLOCK):
                for v0 in range(0, N, BLOCK):
                    out[t0:t0 + BLOCK, v0:v0 + BLOCK] = block_scores(text[t0:t0 + BLOCK], frames[v0:v0 + BLOCK],
                                                                     mask[v0:v0 + BLOCK])
    return out


if os.environ.get("GARE_CHECK") == "1":
    # The factored form equals the per-pair one (up to float32 rounding).
    with torch.no_grad():
        ref = block_scores(text[:64], frames[:64], mask[:64])
        fac = factored_scores(text[:64], video_side(frames[:64]))
    print("max |factored - per-pair| =", (ref - fac).abs().max().item())

run("GareInference1k", scores, reps=int(os.environ.get("GARE_REPS", "3")))
