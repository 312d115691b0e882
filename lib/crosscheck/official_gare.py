#!/usr/bin/python3
"""The official GARE code's side of the GARE cross-check (lib/crosscheck/gare.py), on features fed as
tensors.

The official GARE model (tvr/models/modeling.py) starts from CLIP ViT-B/32 on raw video frames and
token ids. Here the features are given (Charades, label-derived frames and GloVe text), so this
script builds the official GARE object without its CLIP (GARE.__init__ needs the CLIP checkpoint
file) and runs every part of the official code that comes after CLIP on them: agg_video_feat
("seqTransf": frame position embeddings, module_cross.Transformer, residual), get_similarity_logits /
similarity (text-conditioned pooling, ψ = psi_module.Psi, the IB, L_ε and L_dir terms),
until_module.CrossEn, init_weights, main_retrieval.prep_optimizer and optimization.BertAdam, and
the training step of main_retrieval.train_epoch (backward, clip_grad_norm_ 1.0, optimizer step).
What the harness supplies instead of CLIP is listed in PATCHES and in lib/crosscheck/README.md.

    official_gare.py --official build/official/gare --config CFG --data DIR --mode step --ours DIR --out DIR
    official_gare.py --official build/official/gare --config CFG --data DIR --mode train --init DIR --seed S --out DIR

step: loads our initial weights (ourgare -mode step's init/), computes the official loss terms and
gradients on the same batch, and STEPS official optimizer steps, writing step.json with the
differences to ours (grad/, step<k>/). train: trains from our initial weights of the seed (init/),
keeps the epoch with the best val t2v SumR, writes result.json and the selected model's
val_scores.npy and test_scores.npy.
"""
import argparse, ast, copy, json, math, os, sys, time, types
from types import SimpleNamespace

import numpy as np
import torch
from torch import nn

# What the harness does instead of, or around, the official code (listed in the table's provenance).
PATCHES = [
    "GARE.__init__ is not run (it loads the CLIP ViT-B/32 checkpoint): the GARE object is created with "
    "GARE.__new__ and given the modules __init__ would build after CLIP — frame_position_embeddings "
    "(nn.Embedding, F rows instead of CLIP's 77), transformerClip (module_cross.Transformer of the "
    "configured width, depth and heads), psi (psi_module.Psi(D, 1): Agent() hard-codes D = 512), loss_fct "
    "(until_module.CrossEn) — then init_weights is applied as __init__ does",
    "CLIP's encoders are replaced by two learned linear maps (text 100 → D, frames 257 → D, N(0, 0.4²) "
    "weights, zero bias) — ours have the same (gare.ProjectionInitStd)",
    "the logit scale is the constant 100 (the code's exp(clip.logit_scale) starts at 100, is clamped to ≤ 100 "
    "after every step and learns at 1e-7; there is no CLIP here)",
    "timm (imported by module_cross and module_transformer for drop_path, which is used only with "
    "drop_path > 0, never in GARE) is a stub module when not installed",
    "prep_optimizer is taken from main_retrieval.py by its source (the module imports the video data "
    "loaders: decord, cv2, pandas); torch.cuda.is_available() is False, so no DistributedDataParallel",
    "the training step is main_retrieval.train_epoch's body on a batch of tensors: loss.backward(), "
    "clip_grad_norm_(model.parameters(), 1.0), optimizer.step(), optimizer.zero_grad()",
]


def import_official(path):
    """The official modules, imported from a checkout at path."""
    try:
        import timm.models.layers  # noqa: F401
    except ImportError:
        timm = types.ModuleType("timm")
        timm.models = types.ModuleType("timm.models")
        timm.models.layers = types.ModuleType("timm.models.layers")

        def drop_path(x, drop_prob=0.0, training=False):
            if drop_prob > 0 and training:
                raise RuntimeError("timm stub: drop_path > 0 is not used by GARE")
            return x
        timm.models.layers.drop_path = drop_path
        sys.modules.update({"timm": timm, "timm.models": timm.models, "timm.models.layers": timm.models.layers})
    sys.path.insert(0, path)
    from tvr.models import modeling, module_cross, optimization, psi_module, until_module
    from tvr.utils import metrics
    # main_retrieval.prep_optimizer by its source: the module itself imports the video data loaders.
    src = open(os.path.join(path, "main_retrieval.py"), encoding="utf-8").read()
    fn = next(n for n in ast.parse(src).body if isinstance(n, ast.FunctionDef) and n.name == "prep_optimizer")
    ns = {"torch": torch, "BertAdam": optimization.BertAdam}
    exec(compile(ast.Module(body=[fn], type_ignores=[]), "main_retrieval.py", "exec"), ns)
    return SimpleNamespace(modeling=modeling, module_cross=module_cross, optimization=optimization, psi_module=psi_module,
                           until_module=until_module, metrics=metrics, prep_optimizer=ns["prep_optimizer"])


def code_args(cfg, steps):
    """The argparse namespace of main_retrieval.py at the cross-check's configuration (train_msrvtt.sh's
    loss settings)."""
    return SimpleNamespace(temp=3.0, alpha=2.0, beta=1e-4, lambda_dir=0.01, lambda_epsilon=0.01, lambda_lower=0.5,
                           local_rank=0, agg_module="seqTransf", num_hidden_layers=cfg["temporal_layers"], center=8,
                           interaction="wti", lr=cfg["lr"], coef_lr=1e-3, weight_decay=0.2, warmup_proportion=0.1,
                           datatype="charades")


def build(off, cfg, text_dim, video_dim, frames, args):
    """The official GARE object on given features (PATCHES 1–2)."""
    d = cfg["dim"]
    m = off.modeling.GARE.__new__(off.modeling.GARE)
    nn.Module.__init__(m)
    m.config, m.interaction, m.agg_module = args, args.interaction, args.agg_module
    m.text_projection = nn.Linear(text_dim, d)
    m.video_projection = nn.Linear(video_dim, d)
    m.psi = off.psi_module.Psi(d, 1)
    m.frame_position_embeddings = nn.Embedding(frames, d)
    m.transformerClip = off.module_cross.Transformer(width=d, layers=cfg["temporal_layers"], heads=cfg["temporal_heads"])
    m.loss_fct = off.until_module.CrossEn(args)
    m.apply(m.init_weights)
    for p in (m.psi.layers[0].dropout,):
        p.p = cfg["psi_dropout"]
    return m


LOGIT_SCALE = 100.0  # PATCHES 3


def forward(m, text, frames, mask):
    """GARE.forward after CLIP: (loss, L_info, reg) and the similarity's extra outputs (delta)."""
    cls = m.text_projection(text)
    video_feat = m.agg_video_feat(m.video_projection(frames), mask, m.agg_module)
    t2v, v2t, reg, _, delta, _, _, _ = m.similarity(None, cls, video_feat, None, mask, global_step=1, old_policy=None)
    info = (m.loss_fct(t2v * LOGIT_SCALE) + m.loss_fct(v2t * LOGIT_SCALE)) / 2
    return info + reg, info, reg, delta


@torch.no_grad()
def scores(m, text, frames, mask, block=100):
    """The official similarity in eval mode (Δ for every pair) for every text × video, block by block."""
    m.eval()
    cls = m.text_projection(text)
    video_feat = m.agg_video_feat(m.video_projection(frames), mask, m.agg_module)
    rows = []
    for i in range(0, len(cls), block):
        s = m.similarity(None, cls[i:i + block], video_feat, None, mask, global_step=1, old_policy=None)[0]
        rows.append(s)
    m.train()
    return torch.cat(rows).numpy()


# --- our weights ↔ the official modules ---------------------------------------------------------

def mapping(cfg):
    """(our variable name, official parameter name, kind) for every parameter both sides have; kind
    'T' transposes our [in, out] into torch's [out, in], 'q'/'k'/'v' are the thirds of
    nn.MultiheadAttention's in_proj (weight 'T', bias 'b'), '=' is as is."""
    out = [("gare.text_projection.weights", "text_projection.weight", "T"), ("gare.text_projection.bias", "text_projection.bias", "="),
           ("gare.video_projection.weights", "video_projection.weight", "T"), ("gare.video_projection.bias", "video_projection.bias", "="),
           ("gare.frame_position_embeddings.weights", "frame_position_embeddings.weight", "=")]
    for l in range(cfg["temporal_layers"]):
        o, t = f"gare.temporal.layer_{l}.", f"transformerClip.resblocks.{l}."
        out += [(o + "layer_norm1.gain", t + "ln_1.weight", "="), (o + "layer_norm1.bias", t + "ln_1.bias", "="),
                (o + "layer_norm2.gain", t + "ln_2.weight", "="), (o + "layer_norm2.bias", t + "ln_2.bias", "="),
                (o + "out_proj.weights", t + "attn.out_proj.weight", "T"), (o + "out_proj.bias", t + "attn.out_proj.bias", "="),
                (o + "c_fc.weights", t + "mlp.c_fc.weight", "T"), (o + "c_fc.bias", t + "mlp.c_fc.bias", "="),
                (o + "c_proj.weights", t + "mlp.c_proj.weight", "T"), (o + "c_proj.bias", t + "mlp.c_proj.bias", "=")]
        for i, x in enumerate("qkv"):
            out += [(o + f"{x}_proj.weights", t + "attn.in_proj_weight", f"T{i}"), (o + f"{x}_proj.bias", t + "attn.in_proj_bias", f"={i}")]
    p = "psi.layers.0."
    for n in ("layer_norm1", "layer_norm2", "layer_norm3"):
        out += [(f"gare.psi.{n}.gain", p + n + ".weight", "="), (f"gare.psi.{n}.bias", p + n + ".bias", "=")]
    for n in ("q_proj", "k_proj", "v_proj", "out_proj"):
        out += [(f"gare.psi.{n}.weights", p + "cross_attn." + n + ".weight", "T"), (f"gare.psi.{n}.bias", p + "cross_attn." + n + ".bias", "=")]
    out += [("gare.psi.linear1.weights", p + "linear1.weight", "T"), ("gare.psi.linear1.bias", p + "linear1.bias", "="),
            ("gare.psi.mean_proj.weights", "psi.mean_proj.weight", "T"), ("gare.psi.mean_proj.bias", "psi.mean_proj.bias", "=")]
    return out


def third(x, i):
    n = x.shape[0] // 3
    return x[i * n:(i + 1) * n]


def to_ours(kind, x):
    """The official tensor x (or its third) in our layout."""
    x = x.detach().numpy()
    if len(kind) == 2:
        x = third(x, int(kind[1]))
    return x.T if kind[0] == "T" else x


def load_ours(m, cfg, d):
    """Set the official parameters from our .npy files in directory d."""
    params = dict(m.named_parameters())
    names = set()
    with torch.no_grad():
        for ours, theirs, kind in mapping(cfg):
            v = np.load(os.path.join(d, ours + ".npy"))
            v = v.T if kind[0] == "T" else v
            p = params[theirs]
            if len(kind) == 2:
                n = p.shape[0] // 3
                i = int(kind[1])
                p[i * n:(i + 1) * n].copy_(torch.from_numpy(np.ascontiguousarray(v)))
            else:
                if tuple(p.shape) != v.shape:
                    sys.exit(f"official_gare: {d}/{ours}.npy has shape {v.shape}, {theirs} {tuple(p.shape)}")
                p.copy_(torch.from_numpy(np.ascontiguousarray(v)))
            names.add(theirs)
    unused = [n for n in params if n not in names]
    return unused  # parameters the official forward never uses (ψ's linear2, mlp, log_std_proj)


def grads_ours_layout(m, cfg, grads=True):
    """The official parameters (or their .grad) in our layout, by our variable name."""
    params = dict(m.named_parameters())
    out = {}
    for ours, theirs, kind in mapping(cfg):
        x = params[theirs].grad if grads else params[theirs]
        out[ours] = None if x is None else to_ours(kind, x.double()).astype(np.float64)
    return out


def differences(a, ref):
    """Per tensor, max |a − ref| / max |ref|, with max |ref| floored at 1e-4 of the largest over all
    tensors: some gradients are zero analytically (the key biases of a softmax attention shift
    every logit of a query equally), and their float32 values are rounding noise. Returns the
    per-tensor values and the worst tensor."""
    scale = max(float(np.abs(v).max()) for v in ref.values() if v is not None)
    out = {}
    for k, r in ref.items():
        if a.get(k) is None or r is None:
            out[k] = float("inf")
            continue
        out[k] = float(np.abs(a[k] - r).max()) / max(float(np.abs(r).max()), 1e-4 * scale)
    worst = max(out, key=out.get)
    return out, worst


def read_ours(d, names):
    return {k: np.load(os.path.join(d, k + ".npy")).astype(np.float64) for k in names}


def load_split(data, name):
    f = lambda k: torch.from_numpy(np.load(os.path.join(data, f"{name}_{k}.npy")))
    return f("text"), f("frames"), f("mask")


F64_REF = "official in float64"
NO_IB = ("official, beta 0", "official in float64, beta 0")
VARIANTS = {
    # name: (dtype, β of L_IB or None for the code's 1e-4); the code itself otherwise (temporal
    # LayerNorm eps 1e-12, its weight-decay grouping)
    "official code": (torch.float32, None),
    F64_REF: (torch.float64, None),
    # without L_IB: how far float32 rounding alone moves the official gradients
    NO_IB[0]: (torch.float32, 0.0),
    NO_IB[1]: (torch.float64, 0.0),
}


def run_variant(off, cfg, a, batch, dtype, beta=None):
    """The official loss terms, gradients and optimizer steps of one variant, from our init/."""
    args = code_args(cfg, cfg["step_total_steps"])
    if beta is not None:
        args.beta = beta
    text, frames, mask = (x.to(dtype) for x in batch)
    m = build(off, dict(cfg, psi_dropout=0.0), text.shape[1], frames.shape[2], frames.shape[1], args)  # ours: PsiDropout 0
    unused = load_ours(m, cfg, os.path.join(a.ours, "init"))
    m.to(dtype)
    m.train()
    # unweighted terms from the official code: the IB term is reg with beta = 1 and the other
    # weights 0; L_dir and L_ε are the official methods on the same Δ
    with torch.no_grad():
        m.config = SimpleNamespace(**dict(vars(args), beta=1.0, lambda_dir=0.0, lambda_epsilon=0.0))
        _, _, ib, _ = forward(m, text, frames, mask)
        m.config = args
    total, info, reg, delta = forward(m, text, frames, mask)
    # how much Δ_ij (texts i, videos j) depends on the text: its spread over texts (the σ of L_IB,
    # modeling.py similarity: delta.std(dim=0)) relative to its size, both averaged over j and the features
    d = delta.detach().double()
    spread = float(d.std(dim=0).mean() / d.mean(dim=0).abs().mean())
    terms = {"total": float(total), "info": float(info), "ib": float(ib),
             "norm": float(m.norm_based_epsilon_regularization_loss(delta.detach(), args.lambda_lower)),
             "dir": float(m.direction_diversity_loss(delta.detach(), args.alpha))}
    total.backward()
    grads = grads_ours_layout(m, cfg)
    m.zero_grad()
    optimizer, _, _ = off.prep_optimizer(args, m, cfg["step_total_steps"], 0)
    in_decayed = {id(p) for g in optimizer.param_groups if g["weight_decay"] > 0 for p in g["params"]}
    params = dict(m.named_parameters())
    decayed = {ours: id(params[theirs]) in in_decayed for ours, theirs, _ in mapping(cfg)}
    steps = []
    for k in range(1, cfg["step_steps"] + 1):
        total, _, _, _ = forward(m, text, frames, mask)
        total.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
        steps.append({"loss": float(total), "weights": grads_ours_layout(m, cfg, grads=False)})
    return terms, grads, steps, unused, decayed, spread


def step_mode(a, off, cfg):
    """Loss terms, gradients and cfg['step_steps'] optimizer steps on our seed's batch (module doc):
    every variant against ours, and the float32 sides against the float64 reference."""
    b = cfg["batch"]
    batch = tuple(x[:b] for x in load_split(a.data, "train"))
    ours = json.load(open(os.path.join(a.ours, "result.json")))
    runs = {name: run_variant(off, cfg, a, batch, *v) for name, v in VARIANTS.items()}
    names = [o for o, _, _ in mapping(cfg)]
    our_grads = read_ours(os.path.join(a.ours, "grad"), names)
    our_steps = [read_ours(os.path.join(a.ours, f"step{k}"), names) for k in range(1, cfg["step_steps"] + 1)]
    ref_name = F64_REF
    ref = runs[ref_name]
    sides = {"ours": (ours["loss"], our_grads, [{"loss": s["total"], "weights": w} for s, w in zip(ours["steps"], our_steps)])}
    sides.update({n: r[:3] for n, r in runs.items()})

    def versus(x, y):
        gd, gw = differences(x[1], y[1])
        st = []
        for k, (sx, sy) in enumerate(zip(x[2], y[2]), start=1):
            wd, ww = differences(sx["weights"], sy["weights"])
            st.append({"step": k, "loss": [sx["loss"], sy["loss"]], "weights_max_rel": wd[ww], "weights_worst": ww, "per_tensor": wd})
        loss = {k: [x[0][k], y[0][k], abs(x[0][k] - y[0][k]) / max(abs(y[0][k]), 1e-30)] for k in y[0]}
        return {"loss": loss, "grad_max_rel": gd[gw], "grad_worst": gw, "grad": gd, "steps": st}
    pairs = {}
    code_beta = [n for n in runs if n != ref_name and n not in NO_IB]
    for n in code_beta:
        pairs[f"{n} vs ours"] = versus(sides[n], sides["ours"])
    for n in ["ours"] + code_beta:
        pairs[f"{n} vs {ref_name}"] = versus(sides[n], ref[:3])
    pairs[f"{NO_IB[0]} vs {NO_IB[1]}"] = versus(sides[NO_IB[0]], sides[NO_IB[1]])
    res = {"torch": torch.__version__, "cpu_patches": PATCHES, "unused_official_parameters": runs[ref_name][3],
           "delta_text_spread": runs[ref_name][5],
           "official_decayed": runs["official code"][4], "ours_decayed": ours["decayed"],
           "batch": b, "reference": ref_name, "variants": {n: {"dtype": str(v[0]), "beta": v[1]}
                                                          for n, v in VARIANTS.items()}, "comparisons": pairs}
    with open(os.path.join(a.out, "step.json.tmp"), "w") as f:
        json.dump(res, f, indent=1)
    os.replace(os.path.join(a.out, "step.json.tmp"), os.path.join(a.out, "step.json"))


def train_mode(a, off, cfg):
    """One training run from our initial weights of the seed (see module doc)."""
    torch.manual_seed(a.seed)
    tr, va, te = (load_split(a.data, s) for s in ("train", "val", "test"))
    n, b = len(tr[0]), cfg["batch"]
    steps_per_epoch = n // b
    total_steps = cfg["epochs"] * steps_per_epoch
    args = code_args(cfg, total_steps)
    m = build(off, cfg, tr[0].shape[1], tr[1].shape[2], tr[1].shape[1], args)
    load_ours(m, cfg, os.path.join(a.init, "init"))
    optimizer, _, m = off.prep_optimizer(args, m, total_steps, 0)
    gen = torch.Generator().manual_seed(a.seed)
    history, best, best_state = [], None, None
    t0 = time.time()
    for epoch in range(1, cfg["epochs"] + 1):
        m.train()
        perm = torch.randperm(n, generator=gen)
        losses = []
        for s in range(steps_per_epoch):
            idx = perm[s * b:(s + 1) * b]
            loss, _, _, _ = forward(m, tr[0][idx], tr[1][idx], tr[2][idx])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
            losses.append(float(loss))
        met = off.metrics.compute_metrics(scores(m, *va))  # the official evaluator
        sumr = met["R1"] + met["R5"] + met["R10"]
        history.append({"epoch": epoch, "loss": float(np.mean(losses)), "val": {"sumr": sumr, "t2v_r1": met["R1"]}})
        if best is None or sumr > best[1]:
            best, best_state = (epoch, sumr), copy.deepcopy(m.state_dict())
        print(f"epoch {epoch}: loss {history[-1]['loss']:.4f} val SumR {sumr:.2f}", flush=True)
    train_wall = time.time() - t0
    m.load_state_dict(best_state)
    np.save(os.path.join(a.out, "val_scores.npy"), scores(m, *va))  # val metrics of both sides by one evaluator
    t1 = time.time()
    s = scores(m, *te)
    met = off.metrics.compute_metrics(s)
    np.save(os.path.join(a.out, "test_scores.npy"), s)
    res = {"seed": a.seed, "torch": torch.__version__, "threads": torch.get_num_threads(), "cpu_patches": PATCHES,
           "history": history, "best_epoch": best[0], "steps": total_steps,
           "test_code": {"R@1": met["R1"], "R@5": met["R5"], "R@10": met["R10"], "MdR": float(met["MR"]), "MnR": float(met["MeanR"])},
           "train_wall_seconds": train_wall, "test_wall_seconds": time.time() - t1}
    with open(os.path.join(a.out, "result.json.tmp"), "w") as f:
        json.dump(res, f, indent=1)
    os.replace(os.path.join(a.out, "result.json.tmp"), os.path.join(a.out, "result.json"))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--official", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--mode", choices=["step", "train"], required=True)
    p.add_argument("--ours", help="step: our step directory")
    p.add_argument("--init", help="train: our directory holding init/ of the seed")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    torch.set_num_threads(int(os.environ.get("CROSSCHECK_THREADS", "1")))
    cfg = json.load(open(a.config))
    os.makedirs(a.out, exist_ok=True)
    off = import_official(a.official)
    (step_mode if a.mode == "step" else train_mode)(a, off, cfg)


if __name__ == "__main__":
    main()
