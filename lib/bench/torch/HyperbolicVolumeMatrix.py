"""Twin of lib/geom BenchmarkPairedHyperbolicVolumeMatrix: HyperGRAM's hyperbolic volume matrix,
forward + backward.

Each vector is lifted to the hyperboloid, pi(x) = [sqrt(1 + |x|^2), x] (curvature -1); the B1xB2x3x3
Lorentzian Gram tensor <pi(x_p), pi(x_q)>_L = x_p.x_q - t_p t_q is built GRAM-style, then
torch.linalg.det in float32 and sqrt(|det|). Objective: mean volume; backward to all three inputs.
B1 = B2 = 256, k = 3, d = 512, L2-normalised float32 inputs.
"""
import torch
from _common import gram_tensor_volume, inputs, run, unit_vectors

B1, B2, D = 256, 256, 512
g = torch.Generator().manual_seed(6)
unit = lambda n: unit_vectors(n, D, g)
anchor, video, audio = inputs("HyperbolicVolumeMatrix", anchor=unit(B1), video=unit(B2), audio=unit(B2))


def hyperbolic_volume_matrix(l, v, a):
    t = lambda x: torch.sqrt(1 + (x * x).sum(-1))
    tl, tv, ta = t(l), t(v), t(a)
    ll = ((l * l).sum(-1) - tl * tl).unsqueeze(1).expand(-1, v.shape[0])
    lv = l @ v.T - tl.unsqueeze(1) * tv.unsqueeze(0)
    la = l @ a.T - tl.unsqueeze(1) * ta.unsqueeze(0)
    row = lambda x: x.unsqueeze(0).expand(l.shape[0], -1)
    vv = row((v * v).sum(-1) - tv * tv)
    va = row((v * a).sum(-1) - tv * ta)
    aa = row((a * a).sum(-1) - ta * ta)
    return gram_tensor_volume(ll, lv, la, vv, va, aa)


def step():
    l, v, a = (t.clone().requires_grad_(True) for t in (anchor, video, audio))
    loss = hyperbolic_volume_matrix(l, v, a).mean()
    loss.backward()
    return loss, l.grad


run("HyperbolicVolumeMatrix", step, reps=10, warmup=2,
    check=lambda out: {"loss": out[0], "grad_anchor": out[1]})
