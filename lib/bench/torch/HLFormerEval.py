"""Twin of lib/models/hlformer BenchmarkPairedHLFormerEval: PRVR evaluation of the paper-sized HLFormer
(model of HLFormerTrainStep.py, eval mode, no grad) on Charades-STA test shapes (or
$HLFORMER_BENCH_EVAL_VIDEOS videos with 2.79 queries each): encode 3,720 queries (30 tokens of 1024-d) in
chunks of 256, then 1,334 videos (32 clips + 128 frames of 1024-d) in chunks of 128 (close to the code's
eval_context_bsz 100; on this CPU torch took 270 s with 128 and 538 s with 16 on 334 videos), scoring each
video chunk against every query (S = 0.7 S_c + 0.3 S_f, queries 256 at a time) as soon as it is encoded,
and rank the ground truth of every query.

Like the Go benchmark (issue 11), the input features are written to files before timing (raw float32,
clips.bin, frames.bin, tokens.bin; the Go side stores them packed, here padded as the model takes them)
and read one chunk at a time during the evaluation, as the official code's loaders read them per batch
from its feature files; and, like Go's Evaluator.EvaluateStream, a video chunk's embeddings are dropped
once scored, so only the model, the query embeddings, the score matrix and one chunk are held in memory.
"""
import os
import tempfile
import numpy as np
import torch
import torch.nn.functional as F
from _common import run
from HLFormerTrainStep import HLFormer, CLIPS, FRAMES, TOKENS, D_IN

VIDEOS, QUERIES, VCHUNK, QCHUNK = 1334, 3720, 128, 256
if os.environ.get("HLFORMER_BENCH_EVAL_VIDEOS"):  # the Go benchmark reads the same variable
    VIDEOS = int(os.environ["HLFORMER_BENCH_EVAL_VIDEOS"])
    QUERIES = VIDEOS * 3720 // 1334

torch.manual_seed(1)
model = HLFormer().eval()
labels = torch.arange(QUERIES) * VIDEOS // QUERIES
tmp = tempfile.TemporaryDirectory()
path = lambda name: os.path.join(tmp.name, name)


def write_features(name, n, length, gen):
    """n random padded sequences (64…length or 8…length valid rows of unit 1024-d vectors, the rest zero),
    written chunk by chunk to name; returns the [n, length] mask."""
    lo = FRAMES // 2 if length == FRAMES else min(8, length)
    masks = []
    with open(path(name), "wb") as f:
        for i in range(0, n, VCHUNK):
            m = min(VCHUNK, n - i)
            x = F.normalize(torch.randn(m, length, D_IN, generator=gen), dim=-1)
            valid = torch.randint(lo, length + 1, (m,), generator=gen)
            mask = (torch.arange(length)[None, :] < valid[:, None]).float()
            (x * mask.unsqueeze(-1)).numpy().tofile(f)
            masks.append(mask)
    return torch.cat(masks)


def write_clips(n, gen):
    with open(path("clips.bin"), "wb") as f:
        for i in range(0, n, VCHUNK):
            F.normalize(torch.randn(min(VCHUNK, n - i), CLIPS, D_IN, generator=gen), dim=-1).numpy().tofile(f)


def read(name, start, count, length):
    """Rows start…start+count−1 of a [n, length, D_IN] float32 file."""
    x = np.fromfile(path(name), dtype=np.float32, count=count * length * D_IN, offset=start * length * D_IN * 4)
    return torch.from_numpy(x).view(count, length, D_IN)


gen = torch.Generator().manual_seed(8)
write_clips(VIDEOS, gen)
fmask = write_features("frames.bin", VIDEOS, FRAMES, gen)
tmask = write_features("tokens.bin", QUERIES, TOKENS, gen)


@torch.no_grad()
def evaluate():
    qs = []
    for i in range(0, QUERIES, QCHUNK):
        n = min(QCHUNK, QUERIES - i)
        qs.append(F.normalize(model.encode_query(read("tokens.bin", i, n, TOKENS), tmask[i:i + n]), dim=-1))
    q = torch.cat(qs)
    scores = torch.empty(QUERIES, VIDEOS)
    for j in range(0, VIDEOS, VCHUNK):
        n = min(VCHUNK, VIDEOS - j)
        c, f = model.encode_video(read("clips.bin", j, n, CLIPS), read("frames.bin", j, n, FRAMES), fmask[j:j + n])
        c, f = F.normalize(c, dim=-1), F.normalize(f, dim=-1)
        for i in range(0, QUERIES, QCHUNK):
            qq = q[i:i + QCHUNK]
            sc = torch.einsum("qd,vtd->qvt", qq, c).max(-1)[0]
            sf = torch.einsum("qd,vtd->qvt", qq, f).max(-1)[0]
            scores[i:i + QCHUNK, j:j + n] = 0.7 * sc + 0.3 * sf
    gt = scores[torch.arange(QUERIES), labels]
    ranks = 1 + (scores > gt[:, None]).sum(1)
    return ranks


run("HLFormerEval", evaluate, reps=1, warmup=0)
