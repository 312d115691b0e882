"""Twin of lib/models/gram BenchmarkPairedGramLoss: GRAM's volume-contrastive loss, forward + backward.

As GRAM's code computes it (utils/volume.py, model/gram.py; docs/official-code.md sections 1.2-1.3): the B x B x 3 x 3 Gram
tensor from matmuls and per-sample dot products, torch.linalg.det in float32, sqrt(|det|); logits
-volume / tau with a raw learnable tau = 0.07; cross-entropy with label smoothing 0.1 in both
directions, each direction with the other side detached (the code's no-grad all_gather, world size 1).
B = 256, k = 3, d = 512, L2-normalised float32 inputs; gradients to text, video, audio and tau.
"""
import torch
import torch.nn.functional as F
from _common import inputs, run, unit_vectors, volume_matrix

B, D = 256, 512
g = torch.Generator().manual_seed(61)
unit = lambda n: unit_vectors(n, D, g)
text0, video0, audio0, tau0 = inputs("GramLoss", text=unit(B), video=unit(B), audio=unit(B), tau=torch.tensor(0.07))


def step():
    t, v, a = (x.clone().requires_grad_(True) for x in (text0, video0, audio0))
    tau = tau0.clone().requires_grad_(True)
    targets = torch.arange(B)
    vol = volume_matrix(t, v.detach(), a.detach())           # text -> data, gradient to text
    volT = volume_matrix(t.detach(), v, a).T                  # data -> text, gradient to data
    loss = 0.5 * (F.cross_entropy(-vol / tau, targets, label_smoothing=0.1)
                  + F.cross_entropy(-volT / tau, targets, label_smoothing=0.1))
    loss.backward()
    return loss, t.grad


run("GramLoss", step, reps=10, warmup=2, check=lambda out: {"loss": out[0], "grad_text": out[1]})
