"""Twin of lib/models/gram BenchmarkPairedGramVolumeMatrix1024: GRAM's volume matrix, forward only.

As GRAM's utils/volume.py does it: the B x B x 3 x 3 Gram tensor from matmuls and per-sample dot
products, torch.linalg.det in float32, sqrt(|det|). B = 1024, k = 3, d = 512, L2-normalised
float32 inputs, no gradient.
"""
import torch
import torch.nn.functional as F
from _common import run

B, D = 1024, 512
g = torch.Generator().manual_seed(63)
unit = lambda n: F.normalize(torch.randn(n, D, generator=g), dim=-1)
text, video, audio = unit(B), unit(B), unit(B)


def volume_matrix(l, v, a):
    ll = (l * l).sum(-1).unsqueeze(1).expand(-1, v.shape[0])
    lv, la = l @ v.T, l @ a.T
    row = lambda x: x.unsqueeze(0).expand(l.shape[0], -1)
    vv, va, aa = row((v * v).sum(-1)), row((v * a).sum(-1)), row((a * a).sum(-1))
    G = torch.stack([torch.stack([ll, lv, la], -1),
                     torch.stack([lv, vv, va], -1),
                     torch.stack([la, va, aa], -1)], -2)
    return torch.linalg.det(G.float()).abs().sqrt()


@torch.no_grad()
def step():
    return volume_matrix(text, video, audio)


run("GramVolumeMatrix1024", step, reps=10, warmup=2)
