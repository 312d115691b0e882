"""Official GARE code: one training forward + backward (the gradients of every parameter, no optimizer
step) at the official shapes: 128 texts x 128 videos, 12 frames, 512-d given features, the "seqTransf"
temporal transformer (4 layers, 8 heads), psi with dropout 0.3, L_info + the official regularisers
(train_msrvtt.sh's settings), through lib/crosscheck/official_gare.py (build, forward): the official GARE
object without its CLIP, as the GARE cross-check runs it (its PATCHES). The two linear maps that stand in
for CLIP's encoders in the cross-check are identities here: the features are given at 512-d, as in the
Go benchmark and the twins.
"""
import sys
import torch
from torch import nn
from _official import checkout
import official_gare  # lib/crosscheck
from _common import run  # noqa: E402

off = official_gare.import_official(checkout("gare"))
A, NF, D = 128, 12, 512
CFG = {"dim": D, "temporal_layers": 4, "temporal_heads": 8, "psi_dropout": 0.3, "lr": 1e-4}
torch.manual_seed(0)
m = official_gare.build(off, CFG, D, D, NF, official_gare.code_args(CFG, 1))
m.text_projection, m.video_projection = nn.Identity(), nn.Identity()
m.train()
g = torch.Generator().manual_seed(7)
text = 0.4 * torch.randn(A, D, generator=g)
frames = 0.4 * torch.randn(A, NF, D, generator=g)
mask = torch.ones(A, NF)


def step():
    m.zero_grad(set_to_none=True)
    loss = official_gare.forward(m, text, frames, mask)[0]
    loss.backward()
    return loss


run("GareTrainStep", step, reps=3)
