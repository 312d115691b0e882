"""Official GRAM code: utils/volume.py volume_computation3 forward, B = 1024, k = 3, d = 512 (the score of a
1k test set, evaluation/evaluation_mm.py), under torch.no_grad as the evaluation runs it."""
import sys
import torch
from _official import checkout

sys.path.insert(0, checkout("gram"))
from utils.volume import volume_computation3  # noqa: E402
from _common import run, unit_vectors  # noqa: E402

B, D = 1024, 512
g = torch.Generator().manual_seed(63)
text, video, audio = (unit_vectors(B, D, g) for _ in range(3))


@torch.no_grad()
def step():
    return volume_computation3(text, video, audio)


run("GramVolumeMatrix1024", step, reps=10, warmup=2)
