#!/usr/bin/python3
"""Train and test the official HLFormer code (lijun2005/ICCV25-HLFormer, src/main.py) on one seed.

The official main.py runs as it is: this driver imports it, sets its configuration dictionary
(src/Configs/cha.py's `cfg`) in memory, calls main.main() to train (model selection on the val
caption file, as the code does) and main.main() again with --eval --resume best.ckpt to test. No
file of the checkout is modified. Run-time patches, all for a CPU without CUDA (see CPU_PATCHES):

* torch.Tensor.cuda and torch.nn.Module.cuda become the identity (the code calls .cuda() in main.py
  `model.cuda()`, Utils/utils.py `gpu()`, Models/HLFormer/model_components.py and
  Models/onmt/hyper_nets.py `generate_gauss_weight`, Losses/loss.py `query_diverse_loss`,
  Validations/validations.py `eval_q2m`);
* Validations.validations.cal_perf is wrapped to keep the score matrix and ground truth it is given
  (the official metrics are returned unchanged), so that run.py can compute both sides' metrics with
  one evaluator, and main.train_one_epoch is wrapped to time each epoch and keep its mean loss.

Writes <out>/result.json (per-epoch loss, val metrics and time; the test metrics as the code logs them;
wall times) and <out>/test_scores.npz (scores [Q, V] in the code's query order, gt [Q]).
"""
import argparse, json, os, sys, time


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--official", required=True, help="checkout of lijun2005/ICCV25-HLFormer")
    p.add_argument("--geoopt", required=True, help="checkout of geoopt/geoopt (imported by src/Models/onmt)")
    p.add_argument("--data", required=True, help="data_root holding charades/{FeatureData,TextData}")
    p.add_argument("--out", required=True)
    p.add_argument("--config", required=True, help="JSON of the cross-check configuration (run.py CONFIG)")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--epochs", type=int, help="override the configuration's epochs (timing runs)")
    return p.parse_args()


# CPU_PATCHES lists the official code's CUDA calls that the identity .cuda() makes run on a CPU.
CPU_PATCHES = [
    "src/main.py main(): model = model.cuda()",
    "src/Utils/utils.py gpu(): data.contiguous().cuda(non_blocking=True) (every batch)",
    "src/Models/HLFormer/model_components.py EuclideanGaussianAttention.generate_gauss_weight: torch.arange(...).cuda(), torch.ones(...).cuda()",
    "src/Models/onmt/hyper_nets.py LorentzMultiHeadedAttention.generate_gauss_weight: torch.arange(...).cuda(), torch.ones(...).cuda()",
    "src/Losses/loss.py query_diverse_loss.forward: N_one_hot.cuda()",
    "src/Validations/validations.py eval_q2m: torch.zeros(...).cuda() (twice)",
]


def main():
    a = parse()
    cfgx = json.load(open(a.config))
    src = os.path.join(os.path.abspath(a.official), "src")
    sys.path[:0] = [src, os.path.abspath(a.geoopt)]
    os.makedirs(a.out, exist_ok=True)

    import numpy as np
    import torch
    torch.set_num_threads(int(os.environ.get("CROSSCHECK_THREADS", "2")))
    torch.Tensor.cuda = lambda self, *args, **kw: self
    torch.nn.Module.cuda = lambda self, *args, **kw: self

    sys.argv = ["main.py", "-d", "cha"]
    import Configs.cha as cha
    import Validations.validations as V

    c = cha.cfg
    model_root = os.path.join(os.path.abspath(a.out), "model")
    c.update({
        "seed": a.seed, "root": os.path.abspath(a.out), "data_root": os.path.abspath(a.data),
        "model_root": model_root, "ckpt_path": os.path.join(model_root, "ckpt"),
        "visual_feature": cfgx["visual_feature"], "q_feat_size": cfgx["query_dim"],
        "hidden_size": cfgx["dim"], "lorentz_dim": cfgx["lorentz_dim"], "n_heads": cfgx["heads"],
        "attention_num": cfgx["branches"], "sft_factor": cfgx["branch_temperature"],
        "drop": cfgx["dropout"], "input_drop": cfgx["input_dropout"],
        "max_ctx_l": cfgx["frame_len"], "max_desc_l": cfgx["query_len"], "map_size": cfgx["clip_len"],
        "batchsize": cfgx["batch_videos"], "lr": cfgx["lr"], "n_epoch": a.epochs or cfgx["epochs"],
        "hard_negative_start_epoch": cfgx["hard_negative_start"],
        "max_es_cnt": cfgx["official_max_es_cnt"],
        # one process: no DataLoader workers, no pinned memory (no CUDA)
        "num_workers": 0, "no_core_driver": True, "pin_memory": False, "no_pin_memory": True,
    })
    os.makedirs(c["ckpt_path"], exist_ok=True)

    captured = {}
    orig_cal_perf = V.cal_perf

    def cal_perf(t2v_all_errors, t2v_gt):
        captured["scores"] = (-t2v_all_errors).detach().cpu().numpy().astype(np.float32)
        captured["gt"] = np.array([t2v_gt[i][0] for i in range(len(t2v_gt))], dtype=np.int64)
        captured["code"] = [float(x) for x in orig_cal_perf(t2v_all_errors, t2v_gt)]
        return tuple(captured["code"])
    V.cal_perf = cal_perf

    import main as M
    history = []
    orig_train = M.train_one_epoch

    def train_one_epoch(epoch, *args, **kw):
        t0 = time.time()
        loss = orig_train(epoch, *args, **kw)
        history.append({"epoch": epoch, "loss": float(loss), "train_seconds": time.time() - t0})
        return loss
    M.train_one_epoch = train_one_epoch

    orig_val = M.val_one_epoch

    def val_one_epoch(*args, **kw):
        t0 = time.time()
        val_meter, best_val, es = orig_val(*args, **kw)
        history[-1].update(val=[float(x) for x in val_meter], val_seconds=time.time() - t0)
        return val_meter, best_val, es
    M.val_one_epoch = val_one_epoch

    t0 = time.time()
    stopped = "completed"
    try:
        M.main()
    except SystemExit as e:  # main.py calls exit(0) on early stop
        if e.code not in (0, None):
            raise
        stopped = "early stop"
    train_wall = time.time() - t0

    best = os.path.join(model_root, "best.ckpt")
    M.args.eval, M.args.resume = True, best
    t1 = time.time()
    try:
        M.main()
    except SystemExit as e:  # main.py exits after --eval
        if e.code not in (0, None):
            raise
    test_wall = time.time() - t1
    ck = torch.load(best, map_location="cpu")
    np.savez(os.path.join(a.out, "test_scores.npz"), scores=captured["scores"], gt=captured["gt"])
    n_params = sum(p.numel() for p in M.get_models(c).parameters())
    res = {
        "side": "official", "seed": a.seed, "history": history, "best_epoch": int(ck["epoch"]),
        "best_val_code": [float(x) for x in ck["model_val"]], "stopped": stopped,
        "test_code": captured["code"] + [sum(captured["code"])],
        "train_wall_seconds": train_wall, "test_wall_seconds": test_wall, "parameters": int(n_params),
        "torch": torch.__version__, "threads": torch.get_num_threads(), "cpu_patches": CPU_PATCHES,
    }
    tmp = os.path.join(a.out, "result.json.tmp")
    with open(tmp, "w") as f:
        json.dump(res, f, indent=1)
    os.replace(tmp, os.path.join(a.out, "result.json"))


if __name__ == "__main__":
    main()
