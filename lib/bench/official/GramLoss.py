"""Official GRAM code: the volume-contrastive loss of model/gram.py forward_ret, forward + backward, B = 256,
k = 3 (text, video, audio), d = 512, L2-normalised float32 features, on one process.

The volumes come from the checkout's utils/volume.py volume_computation3; the loss lines are forward_ret's
(volume / contra_temp, cross-entropy of the negated volumes with label smoothing 0.1 both ways, halved);
concat_all_gather of one process is a no-grad copy (utils/distributed.py), written here as .detach().
The model's encoders and its DAM/ITM term are not part of this row (issue 11's GRAM loss row).
"""
import os, sys
import torch
import torch.nn.functional as F
from _official import checkout

sys.path.insert(0, checkout("gram"))
from utils.volume import volume_computation3  # noqa: E402
from _common import run, unit_vectors  # noqa: E402

B, D = 256, 512
g = torch.Generator().manual_seed(61)
text0, video0, audio0 = (unit_vectors(B, D, g) for _ in range(3))
contra_temp = torch.nn.Parameter(torch.tensor(0.07))


def step():
    feat_t, feat_v, feat_a = (x.clone().requires_grad_(True) for x in (text0, video0, audio0))
    feat_t_all, feat_v_all, feat_a_all = feat_t.detach(), feat_v.detach(), feat_a.detach()
    volume = volume_computation3(feat_t, feat_v_all, feat_a_all) / contra_temp
    volumeT = volume_computation3(feat_t_all, feat_v, feat_a).T / contra_temp
    targets = torch.linspace(0, B - 1, B, dtype=int)
    loss = (F.cross_entropy(-volume, targets, label_smoothing=0.1) + F.cross_entropy(-volumeT, targets, label_smoothing=0.1)) / 2
    loss.backward()
    return loss


run("GramLoss", step, reps=10, warmup=2)
