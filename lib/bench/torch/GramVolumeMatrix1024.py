"""Twin of lib/models/gram BenchmarkPairedGramVolumeMatrix1024: GRAM's volume matrix, forward only.

As GRAM's utils/volume.py does it: the B x B x 3 x 3 Gram tensor from matmuls and per-sample dot
products, torch.linalg.det in float32, sqrt(|det|). B = 1024, k = 3, d = 512, L2-normalised
float32 inputs, no gradient.
"""
import torch
import torch.nn.functional as F
from _common import inputs, run, unit_vectors, volume_matrix

B, D = 1024, 512
g = torch.Generator().manual_seed(63)
unit = lambda n: unit_vectors(n, D, g)
text, video, audio = inputs("GramVolumeMatrix1024", text=unit(B), video=unit(B), audio=unit(B))


@torch.no_grad()
def step():
    return volume_matrix(text, video, audio)


run("GramVolumeMatrix1024", step, reps=10, warmup=2, check=lambda out: {"volume": out})
