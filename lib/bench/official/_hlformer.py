"""The official HLFormer code (build/official/hlformer/src, geoopt from build/official/geoopt) at the paper's
Charades configuration (src/Configs/cha.py: d = 384, 4 heads, Lorentz dim 127, 8 attention branches,
dropout 0.25; 1024-d clip/frame/query features, 32 clips, 128 frames, 30 tokens), on the CPU.

What is done around the code (nothing in the checkout is edited):
- torch.Tensor.cuda and torch.nn.Module.cuda are the identity (as lib/crosscheck/official_hlformer.py);
- Configs/cha.py is executed with os.makedirs disabled (at import it creates its /data2/... output
  directories) and yaml stubbed (only get_cfg_defaults, unused here, dumps YAML); cfg['visual_feat_dim'],
  which Datasets/builder.py reads from the feature files, is set to 1024;
- ipdb, seaborn and matplotlib (imported by Utils/utils.py and unused on these paths) are stub modules;
- the model, loss, optimizer and evaluator are the code's builders: Models.builder.get_models,
  Losses.builder.get_losses, Opts.builder.get_opts (BertAdam, warmup_linear, its weight-decay groups) and
  Validations.validations.validations; the data loaders are lists of batches in the loaders' formats.
"""
import os, sys, types
import torch
from _official import checkout

SRC = os.path.join(checkout("hlformer"), "src")
sys.path[:0] = [SRC, checkout("geoopt")]
torch.Tensor.cuda = lambda self, *a, **k: self
torch.nn.Module.cuda = lambda self, *a, **k: self
for name in ("ipdb", "seaborn", "matplotlib", "matplotlib.pyplot", "yaml"):
    sys.modules.setdefault(name, types.ModuleType(name))
sys.modules["matplotlib"].pyplot = sys.modules["matplotlib.pyplot"]

D_IN, CLIPS, FRAMES, TOKENS = 1024, 32, 128, 30


def config():
    """Configs/cha.py's cfg, executed without its directory side effects."""
    ns = {"__name__": "Configs.cha"}
    makedirs, os.makedirs = os.makedirs, lambda *a, **k: None
    try:
        exec(compile(open(os.path.join(SRC, "Configs", "cha.py")).read(), "Configs/cha.py", "exec"), ns)
    finally:
        os.makedirs = makedirs
    cfg = ns["cfg"]
    cfg["visual_feat_dim"] = D_IN
    return cfg


def random_videos(n, gen):
    """n random videos: L2-normalised 1024-d clips [n, 32, D] and frames [n, 128, D] with 64–128 valid
    frames (the rest zero) and their mask, as the official loaders give them."""
    clips = torch.nn.functional.normalize(torch.randn(n, CLIPS, D_IN, generator=gen), dim=-1)
    frames = torch.nn.functional.normalize(torch.randn(n, FRAMES, D_IN, generator=gen), dim=-1)
    nf = torch.randint(FRAMES // 2, FRAMES + 1, (n,), generator=gen)
    fmask = (torch.arange(FRAMES)[None, :] < nf[:, None]).float()
    return clips, frames * fmask.unsqueeze(-1), fmask


def random_queries(n, gen):
    """n random queries: L2-normalised 1024-d tokens [n, 30, D] with 8–30 valid tokens, and the mask."""
    tokens = torch.nn.functional.normalize(torch.randn(n, TOKENS, D_IN, generator=gen), dim=-1)
    nt = torch.randint(8, TOKENS + 1, (n,), generator=gen)
    tmask = (torch.arange(TOKENS)[None, :] < nt[:, None]).float()
    return tokens * tmask.unsqueeze(-1), tmask
