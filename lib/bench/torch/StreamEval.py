"""Twin of lib/retrieval/graphscore BenchmarkPairedStreamEval: text->video and video->text R@1/5/10,
MdR, MnR of N captions x N videos (d = 256, caption i matches video i; N = $STREAM_EVAL_ITEMS, default
20,000) from their embeddings.

Done the way the official evaluation scripts do it: L2-normalise, build the whole N x N cosine score
matrix with one matmul (GRAM/GARE/CLIP4Clip-style sim_matrix; MS-SL/HLFormer score every query against
every video too), then rank the ground truth by argsort, rows for text->video and columns for
video->text. The argsort is done 2,000 rows at a time (as in Rank20k.py) so its int64 indices stay
bounded; the score matrix itself grows as N^2 (1.6 GB at 20,000).
"""
import os
import torch
from _common import inputs, run

N, D, CHUNK = int(os.environ.get("STREAM_EVAL_ITEMS", "20000")), 256, 2000
g = torch.Generator().manual_seed(4)
txt = torch.randn(N, D, generator=g)
vid = txt + 4 * torch.randn(N, D, generator=g)
txt, vid = inputs("StreamEval", txt=txt, vid=vid)
RANKS = {}


def ranks_of_diagonal(S):
    ranks = torch.empty(S.shape[0], dtype=torch.int64)
    for r0 in range(0, S.shape[0], CHUNK):
        r1 = min(r0 + CHUNK, S.shape[0])
        idx = S[r0:r1].argsort(dim=1, descending=True)
        gt = torch.arange(r0, r1).unsqueeze(1)
        ranks[r0:r1] = (idx == gt).nonzero()[:, 1] + 1
    return ranks.double()


def metrics(r, direction):
    RANKS[direction] = r.long()
    return {f"R@{k}": 100 * (r <= k).double().mean().item() for k in (1, 5, 10)} | {
        "MdR": r.median().item(), "MnR": r.mean().item()}


def evaluate():
    t = torch.nn.functional.normalize(txt, dim=-1)
    v = torch.nn.functional.normalize(vid, dim=-1)
    S = t @ v.T
    t2v = metrics(ranks_of_diagonal(S), "t2v_ranks")
    v2t = metrics(ranks_of_diagonal(S.T), "v2t_ranks")
    return t2v, v2t


run("StreamEval", evaluate, reps=1, warmup=0, check=lambda out: RANKS)
