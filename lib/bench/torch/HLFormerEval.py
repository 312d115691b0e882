"""Twin of lib/models/hlformer BenchmarkPairedHLFormerEval: PRVR evaluation of the paper-sized HLFormer
(model of HLFormerTrainStep.py, eval mode, no grad) on Charades-STA test shapes (or
$HLFORMER_BENCH_EVAL_VIDEOS videos with 2.79 queries each): encode 1,334 videos
(32 clips + 128 frames of 1024-d) in chunks of 128 (close to the code's eval_context_bsz 100; on this CPU torch took
270 s with 128 and 538 s with 16 on 334 videos, the Go evaluator's chunk) and 3,720 queries (30 tokens of 1024-d) in chunks of
256, score S = 0.7 S_c + 0.3 S_f for every query–video pair, and rank the ground truth of every query.
"""
import os
import torch
import torch.nn.functional as F
from _common import run
from HLFormerTrainStep import HLFormer, random_batch

VIDEOS, QUERIES, VCHUNK, QCHUNK = 1334, 3720, 128, 256
if os.environ.get("HLFORMER_BENCH_EVAL_VIDEOS"):  # the Go benchmark reads the same variable
    VIDEOS = int(os.environ["HLFORMER_BENCH_EVAL_VIDEOS"])
    QUERIES = VIDEOS * 3720 // 1334

torch.manual_seed(1)
model = HLFormer().eval()
clips, frames, fmask, tokens, tmask, labels = random_batch(VIDEOS, QUERIES, torch.Generator().manual_seed(8))


@torch.no_grad()
def evaluate():
    cs, fs, qs = [], [], []
    for i in range(0, VIDEOS, VCHUNK):
        c, f = model.encode_video(clips[i:i + VCHUNK], frames[i:i + VCHUNK], fmask[i:i + VCHUNK])
        cs.append(F.normalize(c, dim=-1))
        fs.append(F.normalize(f, dim=-1))
    for i in range(0, QUERIES, QCHUNK):
        qs.append(F.normalize(model.encode_query(tokens[i:i + QCHUNK], tmask[i:i + QCHUNK]), dim=-1))
    c, f, q = torch.cat(cs), torch.cat(fs), torch.cat(qs)
    scores = torch.empty(QUERIES, VIDEOS)
    for i in range(0, QUERIES, QCHUNK):
        qq = q[i:i + QCHUNK]
        for j in range(0, VIDEOS, VCHUNK):
            sc = torch.einsum("qd,vtd->qvt", qq, c[j:j + VCHUNK]).max(-1)[0]
            sf = torch.einsum("qd,vtd->qvt", qq, f[j:j + VCHUNK]).max(-1)[0]
            scores[i:i + QCHUNK, j:j + VCHUNK] = 0.7 * sc + 0.3 * sf
    gt = scores[torch.arange(QUERIES), labels]
    ranks = 1 + (scores > gt[:, None]).sum(1)
    return ranks


run("HLFormerEval", evaluate, reps=1, warmup=0)
