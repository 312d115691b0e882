"""Official GARE code: evaluation scores with Delta for every pair, 1,000 texts x 1,000 videos, from given
512-d features (text [CLS]; per-frame features after the temporal transformer, which the official evaluation
computes once before this loop and is not timed here, as in the Go benchmark and the twins).

The loop is main_retrieval.py's _run_on_single_gpu itself (taken from the file by its source, as
official_gare.py takes prep_optimizer: the module imports the video loaders), with its default
mini_batch = 16: 16 texts x 16 videos per get_similarity_logits call, keeping the scores and, as the
official code does, every pair's t + Delta, Delta and pooled video (the memory of this row). The
model is the official GARE object without CLIP (lib/crosscheck/official_gare.py build), in eval mode.
"""
import ast, logging, os, sys
import numpy as np
import torch
from torch import nn
from _official import checkout
import official_gare  # lib/crosscheck
from _common import run  # noqa: E402

path = checkout("gare")
off = official_gare.import_official(path)
N, NF, D = int(os.environ.get("OFFICIAL_GARE_ITEMS", "1000")), 12, 512  # run.py --quick: fewer
CFG = {"dim": D, "temporal_layers": 4, "temporal_heads": 8, "psi_dropout": 0.3, "lr": 1e-4}
torch.manual_seed(0)
m = official_gare.build(off, CFG, D, D, NF, official_gare.code_args(CFG, 1))
m.eval()
src = open(os.path.join(path, "main_retrieval.py"), encoding="utf-8").read()
fn = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == "_run_on_single_gpu")
ns = {"torch": torch, "np": np, "logger": logging.getLogger("gare")}
exec(compile(ast.Module(body=[fn], type_ignores=[]), "main_retrieval.py", "exec"), ns)

g = torch.Generator().manual_seed(11)
cls = 0.4 * torch.randn(N, D, generator=g)
frames = 0.4 * torch.randn(N, NF, D, generator=g)
t_mask, v_mask = torch.ones(N, 1), torch.ones(N, NF)


def scores():
    # text_feat (token features) is not read by GARE's similarity; the [CLS] features stand in for it.
    return ns["_run_on_single_gpu"](None, m, t_mask, v_mask, cls, frames, cls, t_mask, v_mask, cls, frames, cls)[0]


run("GareInference1k", scores, reps=int(os.environ.get("GARE_REPS", "1")), warmup=0)
