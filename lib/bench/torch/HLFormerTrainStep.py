"""Twin of lib/models/hlformer BenchmarkPairedHLFormerTrainStep: one training step (forward, backward,
BertAdam update) of the paper-sized HLFormer on a batch of 128 videos (or $HLFORMER_BENCH_VIDEOS; 32
clips, 128 padded frames, 1024-d) and 2.5 queries per video (30 padded tokens, 1024-d), float32, dropout on.

The model is written from docs/official-code.md §3 (not copied from the official code): d = 384,
4 heads, Lorentz space L^127 (4 heads × 32), 4 Euclidean + 4 Lorentz Gaussian attention branches (widths
None/2/4/8) fused by MAIM (τ = 0.6), multi-positive NCE, triplet with random negatives, query diversity
and the POP entailment loss with the Charades weights; BertAdam without bias correction and with
per-tensor clipping. HLFormerEval.py imports the model from here.
"""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

D_IN, D, HEADS, N_LOR, DROP, TAU = 1024, 384, 4, 127, 0.25, 0.6
CLIPS, FRAMES, TOKENS = 32, 128, 30
WIDTHS = [None, 2, 4, 8]


def gauss_mask(length, width):
    """The code's Gaussian mask: centres i/L, positions linspace(0, 1, L), σ = max(w, 0.01)/9, row-max normalised."""
    centre = torch.arange(length, dtype=torch.float32).unsqueeze(1) / length
    pos = torch.linspace(0, 1, length).unsqueeze(0)
    sigma = max(width, 0.01) / 9
    w = torch.exp(-(pos - centre) ** 2 / (2 * sigma ** 2)) / (sigma * math.sqrt(2 * math.pi))
    return w / w.max(dim=-1, keepdim=True)[0]


class LinearLayer(nn.Module):
    def __init__(self, i, o, drop):
        super().__init__()
        self.ln, self.drop, self.lin = nn.LayerNorm(i), nn.Dropout(drop), nn.Linear(i, o)

    def forward(self, x):
        return F.relu(self.lin(self.drop(self.ln(x))))


class PosEnc(nn.Module):
    def __init__(self, n, d, drop):
        super().__init__()
        self.emb, self.ln, self.drop = nn.Embedding(n, d), nn.LayerNorm(d), nn.Dropout(drop)

    def forward(self, x):
        return self.drop(self.ln(x + self.emb.weight[: x.shape[1]].unsqueeze(0)))


class EucAttention(nn.Module):
    def __init__(self, width=None):
        super().__init__()
        self.q, self.k, self.v = nn.Linear(D, D), nn.Linear(D, D), nn.Linear(D, D)
        self.width, self.drop = width, nn.Dropout(DROP)

    def forward(self, q, kv, mask):
        n, lq, lk, dh = q.shape[0], q.shape[1], kv.shape[1], D // HEADS
        Q = self.q(q).view(n, lq, HEADS, dh).transpose(1, 2)
        K = self.k(kv).view(n, lk, HEADS, dh).transpose(1, 2)
        V = self.v(kv).view(n, lk, HEADS, dh).transpose(1, 2)
        logits = Q @ K.transpose(-1, -2) / math.sqrt(dh)
        if self.width is not None:
            logits = logits * gauss_mask(lk, self.width)
        if mask is not None:
            logits = logits + (1 - mask[:, None, None, :]) * -10000.0
        out = self.drop(logits.softmax(-1)) @ V
        return out.transpose(1, 2).reshape(n, lq, D)


class Wrapper(nn.Module):
    """LN(x + drop(att)), then LN(h + drop(FFN(h)))."""

    def __init__(self, hidden):
        super().__init__()
        self.n1, self.n2, self.d1, self.d2 = nn.LayerNorm(D), nn.LayerNorm(D), nn.Dropout(DROP), nn.Dropout(DROP)
        self.f1, self.f2, self.fd = nn.Linear(D, hidden), nn.Linear(hidden, D), nn.Dropout(DROP)

    def forward(self, x, att):
        h = self.n1(x + self.d1(att))
        return self.n2(h + self.d2(self.f2(self.fd(F.relu(self.f1(h))))))


class EucBlock(nn.Module):
    def __init__(self, width=None, hidden=4 * D):
        super().__init__()
        self.att, self.wrap = EucAttention(width), Wrapper(hidden)

    def forward(self, x, mask, query=None):
        q = x if query is None else query
        return self.wrap(q, self.att(q, x, mask))


def minkowski(x, y):
    return (x * y).sum(-1) - 2 * x[..., 0] * y[..., 0]


def expmap0_full(u):
    n = torch.sqrt(torch.clamp(minkowski(u, u), min=1e-9)).unsqueeze(-1)
    space = torch.sinh(torch.clamp(n, max=10)) * u[..., 1:] / n
    return torch.cat([torch.sqrt(1 + (space * space).sum(-1, keepdim=True)), space], -1)


def logmap0_full(y):
    t = y[..., :1]
    s = torch.sqrt(torch.clamp(t * t - 1, min=1e-9))
    f = torch.log(t + s) / s
    return torch.cat([torch.zeros_like(t), f * y[..., 1:]], -1)


class LorentzLinear(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w, self.drop = nn.Linear(dim, dim, bias=False), nn.Dropout(DROP)
        self.scale = nn.Parameter(torch.tensor(2.3))

    def forward(self, x):
        y = self.w(self.drop(x))
        y = y.view(*y.shape[:-1], HEADS, -1)
        time = torch.sigmoid(y[..., :1]) * self.scale.exp() + 1.1
        ys = y[..., 1:]
        f = torch.sqrt((time * time - 1) / (ys * ys).sum(-1, keepdim=True))
        return torch.cat([time, ys * f], -1)


class LorentzSelfAttention(nn.Module):
    def __init__(self, width=None):
        super().__init__()
        full = N_LOR + 1
        self.inp, self.out = LinearLayer(D, N_LOR, DROP), LinearLayer(N_LOR, D, DROP)
        self.alpha = nn.Parameter(torch.tensor(N_LOR ** -0.5).log())
        self.kl, self.vl, self.ql = LorentzLinear(full), LorentzLinear(full), LorentzLinear(full)
        self.s, self.b = nn.Parameter(torch.tensor(math.sqrt(full))), nn.Parameter(torch.zeros(()))
        self.width = width

    def forward(self, x, mask):
        with torch.no_grad():
            self.alpha.clamp_(max=0)
        u = self.inp(x) * self.alpha.exp()
        p = expmap0_full(F.pad(u, (1, 0)))
        n, length = p.shape[:2]
        K, V, Q = [l(p).transpose(1, 2) for l in (self.kl, self.vl, self.ql)]  # [N, h, L, m]
        Qs = torch.cat([-Q[..., :1], Q[..., 1:]], -1)
        logits = (2 + 2 * (Qs @ K.transpose(-1, -2))) / self.s + self.b
        if self.width is not None:
            logits = logits * gauss_mask(length, self.width)
        if mask is not None:
            logits = logits.masked_fill(mask[:, None, None, :] == 0, -1e18)
        a = logits.softmax(-1) @ V
        a = a / torch.sqrt(torch.clamp(minkowski(a, a).abs(), min=1e-8)).unsqueeze(-1)
        y = a.transpose(1, 2).reshape(n, length, -1)
        z = logmap0_full(y)[..., 1:] / self.alpha.exp()
        return self.out(z)


class LorBlock(nn.Module):
    def __init__(self, width=None):
        super().__init__()
        self.att, self.wrap = LorentzSelfAttention(width), Wrapper(4 * D)

    def forward(self, x, mask):
        return self.wrap(x, self.att(x, mask))


class HLFormerBlock(nn.Module):
    def __init__(self, length):
        super().__init__()
        self.branches = nn.ModuleList([EucBlock(w) for w in WIDTHS] + [LorBlock(w) for w in WIDTHS])
        self.ca = EucBlock(None, hidden=D)
        self.l1, self.l2, self.drop = nn.Linear(D, D), nn.Linear(D, length), nn.Dropout(DROP)

    def forward(self, x, mask):
        oo = torch.stack([b(x, mask) for b in self.branches], 0)  # [B, N, L, d]
        nb, n, length, d = oo.shape
        phi = oo.mean(dim=(0, 2)).view(n, 1, d).repeat(nb, 1, 1)
        m = None if mask is None else mask.repeat(nb, 1)
        tok = self.ca(oo.reshape(nb * n, length, d), m, query=phi).view(nb, n, d).transpose(0, 1)
        w = self.l2(self.drop(F.relu(self.l1(tok))))  # [N, B, L]
        w = (w.transpose(1, 2) / TAU).softmax(-1)  # [N, L, B]
        return (oo * w.permute(2, 0, 1).unsqueeze(-1)).sum(0)


class HLFormer(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_in, self.q_pos, self.q_enc = LinearLayer(D_IN, D, DROP), PosEnc(TOKENS, D, DROP), EucBlock(None)
        self.q_pool = nn.Linear(D, 1, bias=False)
        self.c_in, self.c_pos, self.c_enc = LinearLayer(D_IN, D, DROP), PosEnc(max(FRAMES, CLIPS), D, DROP), HLFormerBlock(CLIPS)
        self.f_in, self.f_pos, self.f_enc = LinearLayer(D_IN, D, DROP), PosEnc(FRAMES, D, DROP), HLFormerBlock(FRAMES)
        self.pool_f, self.pool_c = nn.Linear(D, 1, bias=False), nn.Linear(D, 1, bias=False)
        self.video_alpha = nn.Parameter(torch.tensor(D ** -0.5).log())
        self.text_alpha = nn.Parameter(torch.tensor(D ** -0.5).log())
        self.curv = nn.Parameter(torch.tensor(1.0).log())
        for mod in self.modules():
            if isinstance(mod, (nn.Linear, nn.Embedding)):
                mod.weight.data.normal_(0, 0.02)
            if isinstance(mod, nn.Linear) and mod.bias is not None:
                mod.bias.data.zero_()

    def encode_query(self, tokens, mask):
        x = self.q_enc(self.q_pos(self.q_in(tokens)), mask)
        s = self.q_pool(x).squeeze(-1) * mask + (1 - mask) * -1e10
        return (s.softmax(-1).unsqueeze(-1) * x).sum(1)

    def encode_video(self, clips, frames, fmask):
        c = self.c_enc(self.c_pos(self.c_in(clips)), None)
        f = self.f_enc(self.f_pos(self.f_in(frames)), fmask) * fmask.unsqueeze(-1)
        return c, f


def max_scores(q, ctx, normalise):
    if normalise:
        q, ctx = F.normalize(q, dim=-1), F.normalize(ctx, dim=-1)
    return torch.einsum("qd,vtd->qvt", q, ctx).max(-1)[0]


def nce(s, labels):
    pos = F.one_hot(labels, s.shape[1]).bool()
    t2v = (torch.logsumexp(s, 1) - s[pos]).mean()
    v2t = torch.logsumexp(s, 0) - torch.logsumexp(s.masked_fill(~pos, float("-inf")), 0)
    return t2v + v2t.mean()


def triplet(s, labels, margin=0.2):
    q, v = s.shape
    pos = F.one_hot(labels, v).bool()
    neg_v = torch.where(pos, -1.0, torch.rand(q, v)).argmax(1)
    t2v = F.relu(margin + s[torch.arange(q), neg_v] - s[pos]).mean()
    neg_q = torch.where(pos, -1.0, torch.rand(q, v)).argmax(0)
    v_pos = (s * pos).sum(0) / pos.sum(0)
    v2t = F.relu(margin + s[neg_q, torch.arange(v)] - v_pos).mean()
    return t2v + v2t


def diversity(q, labels, margin=0.2, scale=32.0):
    qn = F.normalize(q, dim=-1)
    cos = qn @ qn.t()
    same = (labels[:, None] == labels[None, :]) & ~torch.eye(len(labels), dtype=torch.bool)
    return ((1 + cos) * F.softplus(scale * (cos + margin)))[same].sum() / len(labels)


def exp_map0(u, c):
    r = math.sqrt(c) * u.norm(dim=-1, keepdim=True).clamp(min=1e-8)
    return torch.sinh(torch.clamp(r, max=math.asinh(2 ** 15))) * u / r


def pop(v, t, c, K=0.1):
    tv = torch.sqrt(1 / c + (v * v).sum(-1))
    tt = torch.sqrt(1 / c + (t * t).sum(-1))
    ha = torch.asin(torch.clamp(2 * K / (v.norm(dim=-1) * math.sqrt(c) + 1e-8), -1 + 1e-8, 1 - 1e-8))
    g = c * ((v * t).sum(-1) - tv * tt)
    num = tt + g * tv
    den = v.norm(dim=-1) * torch.sqrt(torch.clamp(g * g - 1, min=1e-8)) + 1e-8
    ea = torch.acos(torch.clamp(num / den, -1 + 1e-8, 1 - 1e-8))
    return F.relu(ea - ha).mean()


def loss_fn(model, clips, frames, fmask, tokens, tmask, labels):
    q = model.encode_query(tokens, tmask)
    c, f = model.encode_video(clips, frames, fmask)
    loss = 0.02 * nce(max_scores(q, c, False), labels) + triplet(max_scores(q, c, True), labels)
    loss = loss + 0.04 * nce(max_scores(q, f, False), labels) + triplet(max_scores(q, f, True), labels)
    q2 = model.encode_query(tokens, tmask)
    loss = loss + 3e-3 * diversity(q2, labels)
    with torch.no_grad():
        model.curv.clamp_(math.log(0.1), math.log(10))
        model.video_alpha.clamp_(max=0)
        model.text_alpha.clamp_(max=0)
    cc = model.curv.exp()
    pf = (model.pool_f(f).squeeze(-1).softmax(-1).unsqueeze(-1) * f).sum(1)
    pc = (model.pool_c(c).squeeze(-1).softmax(-1).unsqueeze(-1) * c).sum(1)
    vid = exp_map0((pf + pc) / 2 * model.video_alpha.exp(), cc)
    txt = exp_map0(q2 * model.text_alpha.exp(), cc)
    return loss + 1e-3 * pop(vid[labels], txt, cc)


class BertAdam:
    """Adam without bias correction, per-tensor grad-norm clipping at 1, decoupled weight decay 0.01."""

    def __init__(self, params, lr=2e-4):
        self.params, self.lr = [p for p in params if p.requires_grad], lr
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]

    @torch.no_grad()
    def step(self):
        for p, m, v in zip(self.params, self.m, self.v):
            if p.grad is None:
                continue
            g = p.grad
            g = g * min(1.0, 1.0 / (g.norm().item() + 1e-6))
            m.mul_(0.9).add_(g, alpha=0.1)
            v.mul_(0.999).addcmul_(g, g, value=0.001)
            u = m / (v.sqrt() + 1e-6)
            if p.dim() > 1:
                u = u + 0.01 * p
            p.add_(u, alpha=-self.lr)


def random_batch(videos, queries, gen):
    """Random inputs of the benchmark's shapes: 64–128 valid frames per video, 8–30 tokens per query."""
    clips = F.normalize(torch.randn(videos, CLIPS, D_IN, generator=gen), dim=-1)
    frames = F.normalize(torch.randn(videos, FRAMES, D_IN, generator=gen), dim=-1)
    nf = torch.randint(FRAMES // 2, FRAMES + 1, (videos,), generator=gen)
    fmask = (torch.arange(FRAMES)[None, :] < nf[:, None]).float()
    frames = frames * fmask.unsqueeze(-1)
    tokens = F.normalize(torch.randn(queries, TOKENS, D_IN, generator=gen), dim=-1)
    nt = torch.randint(min(8, TOKENS), TOKENS + 1, (queries,), generator=gen)
    tmask = (torch.arange(TOKENS)[None, :] < nt[:, None]).float()
    tokens = tokens * tmask.unsqueeze(-1)
    labels = torch.arange(queries) * videos // queries
    return clips, frames, fmask, tokens, tmask, labels


if __name__ == "__main__":
    import os
    from _common import run

    videos = int(os.environ.get("HLFORMER_BENCH_VIDEOS", "128"))  # the Go benchmark reads the same variable
    torch.manual_seed(1)
    model = HLFormer()
    model.train()
    opt = BertAdam(model.parameters())
    batch = random_batch(videos, videos * 5 // 2, torch.Generator().manual_seed(7))

    def step():
        model.zero_grad(set_to_none=True)
        loss = loss_fn(model, *batch)
        loss.backward()
        opt.step()
        return loss

    run("HLFormerTrainStep", step, reps=3)
