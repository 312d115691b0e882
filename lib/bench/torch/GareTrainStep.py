"""Twin of lib/models/gare BenchmarkPairedGareTrainStep: one GARE training forward + backward
(gradients of every parameter, no optimizer step) at the official shapes, written from
docs/official-code.md §4 (not copied from the GARE repository):

  128 texts x 128 videos, 12 frames, 512-d given features (text [CLS]/EOT, per-frame CLS);
  video: + frame position embeddings, 4 CLIP residual attention blocks (8 heads, QuickGELU MLP),
         + input (residual) = CLIP4Clip "seqTransf";
  text-conditioned pooled video: softmax over frames of t.h / 3, mask after the softmax;
  psi: gap = mean_f(h_j) - t_i as query [A, B, D], context = video j's frames, one head,
       the same LayerNorm on query and context, softmax over frames, LN2, x + dropout(linear1(x)),
       LN3, mean_proj -> Delta [A, B, D] (materialised per pair, as the official code does);
  S = cos(t_i + Delta_ij, pooled_ij); loss = L_info (scale 100, symmetric CE)
       + 1e-4 KL(N(mu_j, sigma_j^2) || N(0, I)) over the text axis (unbiased std + 1e-6, summed dims)
       + 0.01 L_eps (-mean_i var_j ||Delta_ij||, hard cut-off at -0.5)
       + 0.01 L_dir (mean_i log(mean_jk exp(-2 (1 - z_ij.z_ik)) + 1e-8)).
L_dir is vectorised (the official code loops over the 128 texts in Python: same numbers, slower).
All Linear weights N(0, 0.02), zero biases, LayerNorm 1/0, as the official init.
"""
import math
import torch
import torch.nn.functional as F
from _common import gare_psi_params, lin, ln, run

A = B = 128
NF, D, H, L = 12, 512, 8, 4
g = torch.Generator().manual_seed(7)


def param(*shape, std=0.02):
    return (std * torch.randn(*shape, generator=g)).requires_grad_()


def zeros(*shape):
    return torch.zeros(*shape).requires_grad_()


def ones(*shape):
    return torch.ones(*shape).requires_grad_()


def linear(i, o):
    return [param(o, i), zeros(o)]


def norm():
    return [ones(D), zeros(D)]


params = []
pos = param(NF, D)
params.append(pos)
layers = []
for _ in range(L):
    lay = dict(ln1=norm(), ln2=norm(), q=linear(D, D), k=linear(D, D), v=linear(D, D), o=linear(D, D),
               fc=linear(D, 4 * D), proj=linear(4 * D, D))
    layers.append(lay)
    for p in lay.values():
        params.extend(p)
psi = gare_psi_params(linear, norm, D)
for p in psi.values():
    params.extend(p)

text = 0.4 * torch.randn(A, D, generator=g)
frames = 0.4 * torch.randn(B, NF, D, generator=g)
mask = torch.ones(B, NF)


def temporal(x):
    orig = x
    x = x + pos[None]
    bias = (1.0 - mask)[:, None, None, :] * -1e6
    hd = D // H
    for lay in layers:
        h = ln(x, lay["ln1"])
        q, k, v = [lin(h, lay[n]).view(B, NF, H, hd).transpose(1, 2) for n in ("q", "k", "v")]
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd) + bias, -1) @ v
        x = x + lin(att.transpose(1, 2).reshape(B, NF, D), lay["o"])
        m = lin(ln(x, lay["ln2"]), lay["fc"])
        x = x + lin(m * torch.sigmoid(1.702 * m), lay["proj"])
    return x + orig


def psi_forward(query, context):
    # query [A, B, D], context [B, F, D]
    q = lin(ln(query, psi["ln1"]), psi["q"])
    c = ln(context, psi["ln1"])
    k, v = lin(c, psi["k"]), lin(c, psi["v"])
    logits = torch.einsum("abd,bfd->abf", q, k) / math.sqrt(D)
    att = torch.einsum("abf,bfd->abd", torch.softmax(logits, -1), v)
    x = ln(lin(att, psi["o"]), psi["ln2"])
    z = x + F.dropout(lin(x, psi["lin1"]), 0.3, training=True)
    return lin(ln(z, psi["ln3"]), psi["mean"])


def step():
    h = temporal(frames)
    w = torch.softmax(torch.einsum("ad,bfd->abf", text, h) / 3.0, -1) * mask[None]
    pooled = torch.einsum("abf,bfd->abd", w, h)
    gap = h.mean(1)[None] - text[:, None]
    delta = psi_forward(gap, h)
    t_new = text[:, None] + delta
    sim = ((t_new / t_new.norm(dim=-1, keepdim=True)) * (pooled / pooled.norm(dim=-1, keepdim=True))).sum(-1)
    labels = torch.arange(A)
    info = 0.5 * (F.cross_entropy(100 * sim, labels) + F.cross_entropy(100 * sim.t(), labels))
    mu, sigma = delta.mean(0), delta.std(0) + 1e-6
    kl = (torch.log(1 / sigma) + (sigma ** 2 + mu ** 2) / 2 - 0.5).sum(-1).mean()
    z = F.normalize(delta, dim=2)
    cos = torch.einsum("ajd,akd->ajk", z, z)
    ldir = torch.log(torch.exp(-2.0 * (1 - cos)).mean(dim=(1, 2)) + 1e-8).mean()
    radii = delta.norm(dim=2)
    leps = -radii.var(dim=1).mean()
    leps = leps if leps >= -0.5 else leps * 0
    loss = info + 1e-4 * kl + 0.01 * ldir + 0.01 * leps
    grads = torch.autograd.grad(loss, params)
    return loss, grads


run("GareTrainStep", step, reps=3)
