"""Official HLFormer code: the evaluation of main.py (`with torch.no_grad(): val_criterion(model,
context_dataloader, query_eval_loader)`, Validations/validations.py: encode every video in batches of
eval_context_bsz = 100, score every query in batches of eval_query_bsz = 50 against all of them,
S = 0.7 S_c + 0.3 S_f, rank with eval_q2m) at Charades-STA test size, 1,334 videos and 3,720 queries (or
$HLFORMER_BENCH_EVAL_VIDEOS videos and 2.79 queries each, as the Go benchmark), model of _hlformer.py in
eval mode. The loaders are lists of batches in the official loaders' formats, made before timing (the
features in memory, not read from files: the official loaders' file reading is not timed)."""
import os
import torch
import _hlformer
from Models.builder import get_models  # noqa: E402
from Validations.validations import validations  # noqa: E402
from _common import run  # noqa: E402

cfg = _hlformer.config()
VIDEOS, QUERIES = 1334, 3720
if os.environ.get("HLFORMER_BENCH_EVAL_VIDEOS"):
    VIDEOS = int(os.environ["HLFORMER_BENCH_EVAL_VIDEOS"])
    QUERIES = VIDEOS * 3720 // 1334
torch.manual_seed(1)
model = get_models(cfg)
g = torch.Generator().manual_seed(7)


class Loader(list):
    """A list of batches with the .dataset the evaluator reads (its length)."""
    def __init__(self, batches, n):
        super().__init__(batches)
        self.dataset = range(n)


ctx, bsz = [], cfg["eval_context_bsz"]
for v0 in range(0, VIDEOS, bsz):
    n = min(bsz, VIDEOS - v0)
    clips, frames, fmask = _hlformer.random_videos(n, g)
    ctx.append((clips, frames, fmask, [f"v{v}" for v in range(v0, v0 + n)]))
qry, qbsz = [], cfg["eval_query_bsz"]
for q0 in range(0, QUERIES, qbsz):
    n = min(qbsz, QUERIES - q0)
    tokens, tmask = _hlformer.random_queries(n, g)
    qry.append((tokens, tmask, [f"v{q * VIDEOS // QUERIES}#{q}" for q in range(q0, q0 + n)]))
context_loader, query_loader = Loader(ctx, VIDEOS), Loader(qry, QUERIES)
val_criterion = validations(cfg)


def evaluate():
    with torch.no_grad():
        return val_criterion(model, context_loader, query_loader)


run("HLFormerEval", evaluate, reps=1, warmup=0)
