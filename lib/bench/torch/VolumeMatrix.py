"""Twin of lib/geom BenchmarkPairedVolumeMatrix: GRAM's B1xB2 volume matrix, forward + backward.

As GRAM's utils/volume.py does it: build the B1xB2x3x3 Gram tensor from matmuls and per-sample dot
products, take torch.linalg.det in float32, then sqrt(|det|). Objective: mean volume; backward to the
anchor and both data modalities. B1 = B2 = 256, k = 3, d = 512, L2-normalised float32 inputs.
"""
import torch
from _common import inputs, run, unit_vectors, volume_matrix

B1, B2, D = 256, 256, 512
g = torch.Generator().manual_seed(5)
unit = lambda n: unit_vectors(n, D, g)
anchor, video, audio = inputs("VolumeMatrix", anchor=unit(B1), video=unit(B2), audio=unit(B2))


def step():
    l, v, a = (t.clone().requires_grad_(True) for t in (anchor, video, audio))
    loss = volume_matrix(l, v, a).mean()
    loss.backward()
    return loss, l.grad


run("VolumeMatrix", step, reps=10, warmup=2, check=lambda out: {"loss": out[0], "grad_anchor": out[1]})
