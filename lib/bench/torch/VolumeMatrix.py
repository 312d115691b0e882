"""Twin of lib/geom BenchmarkPairedVolumeMatrix: GRAM's B1xB2 volume matrix, forward + backward.

As GRAM's utils/volume.py does it: build the B1xB2x3x3 Gram tensor from matmuls and per-sample dot
products, take torch.linalg.det in float32, then sqrt(|det|). Objective: mean volume; backward to the
anchor and both data modalities. B1 = B2 = 256, k = 3, d = 512, L2-normalised float32 inputs.
"""
import torch
from _common import run

B1, B2, D = 256, 256, 512
g = torch.Generator().manual_seed(5)
unit = lambda n: torch.nn.functional.normalize(torch.randn(n, D, generator=g), dim=-1)
anchor, video, audio = unit(B1), unit(B2), unit(B2)


def gram_volume_matrix(l, v, a):
    ll = (l * l).sum(-1).unsqueeze(1).expand(-1, v.shape[0])
    lv, la = l @ v.T, l @ a.T
    row = lambda x: x.unsqueeze(0).expand(l.shape[0], -1)
    vv, va, aa = row((v * v).sum(-1)), row((v * a).sum(-1)), row((a * a).sum(-1))
    G = torch.stack([torch.stack([ll, lv, la], -1),
                     torch.stack([lv, vv, va], -1),
                     torch.stack([la, va, aa], -1)], -2)
    return torch.linalg.det(G.float()).abs().sqrt()


def step():
    l, v, a = (t.clone().requires_grad_(True) for t in (anchor, video, audio))
    loss = gram_volume_matrix(l, v, a).mean()
    loss.backward()
    return loss


run("VolumeMatrix", step, reps=10, warmup=2)
