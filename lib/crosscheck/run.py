#!/usr/bin/python3
"""make crosscheck: train the official HLFormer code and ours at one identical reduced configuration
on the same Charades-STA files, seed by seed, and write the side-by-side table (figures/crosscheck/).

Needs (see lib/crosscheck/README.md): build/official/hlformer and build/official/geoopt checked out
at the pinned commits below, the Charades cache of `make data`, Debian python3-torch, -h5py, -tqdm,
-ipdb, -easydict, -seaborn, -matplotlib and -scipy.
Usage: run.py [--out figures/crosscheck] [--seeds 0,1,2,3] [--only official|ours] [--jobs N] [--render-only]
Every seed's result is kept under build/crosscheck/<side>/seed<N>/ and reused by a later run with
the same configuration and, for our side, the same source (delete the directory to retrain);
--render-only only re-renders the table.
"""
import argparse, datetime, importlib.util, json, math, os, random, subprocess, sys, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
_bench = importlib.util.spec_from_file_location("bench_run", os.path.join(ROOT, "lib", "bench", "run.py"))
bench_run = importlib.util.module_from_spec(_bench)
_bench.loader.exec_module(bench_run)
machine = bench_run.machine  # make bench's machine line

# The official code and the one library it imports that Debian does not package, pinned.
OFFICIAL = {
    "hlformer": ("https://github.com/lijun2005/ICCV25-HLFormer", "332a0245e712ed59e2da172440b09d54fd4d5a5a"),
    "geoopt": ("https://github.com/geoopt/geoopt", "8af79c13f765035887eee5288153bffee1d262b6"),  # v0.5.1
}
BUILD = os.path.join(ROOT, "build", "crosscheck")
CACHE = os.path.join(ROOT, "datasets", "cache", "charades", "charades")

# The one configuration both sides train at (names of src/Configs/cha.py where they exist).
CONFIG = {
    "visual_feature": "label_multihot_glove100", "video_dim": 257, "query_dim": 100,
    # not L^15 (our CI/ablation scales): there the official code's loss is NaN from the first step (README)
    "dim": 32, "lorentz_dim": 31, "heads": 4, "branches": 8, "branch_temperature": 0.6,
    "dropout": 0.25, "input_dropout": 0.25, "clip_len": 32, "frame_len": 128, "query_len": 30,
    "batch_videos": 64, "lr": 1e-3, "epochs": 4, "hard_negative_start": 1,
    # no early stopping: every epoch runs, the best on val is kept (official max_es_cnt -1, our patience 0)
    "official_max_es_cnt": -1, "patience": 0,
    # train and validation videos drawn (disjoint, whole videos with all their captions) from the
    # official train captions with this seed; the test split is the official one, whole
    "train_videos": 512, "val_videos": 128, "split_seed": 0,
    # score fusion at inference and loss weights: the Charades defaults of both codes
    "clip_score_weight": 0.7, "frame_score_weight": 0.3,
}


def read_captions(path):
    """Lines of an MS-SL caption file and the video id of each (the cap_id part before '#')."""
    lines = [l for l in open(path, encoding="utf-8").read().splitlines() if l.strip()]
    return lines, [l.split(" ", 1)[0].split("#", 1)[0] for l in lines]


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def prepare_data(cfg):
    """The data_root both sides read: build/crosscheck/data/charades, in the official layout, with
    links to the cache's features, the token HDF5 under the official name, the official test captions,
    and the cache's train captions cut into train and a validation split of whole videos."""
    root = os.path.join(BUILD, "data")
    col = os.path.join(root, "charades")
    for d in ("FeatureData", "TextData"):
        os.makedirs(os.path.join(col, d), exist_ok=True)
    links = {
        os.path.join(col, "FeatureData", cfg["visual_feature"]): os.path.join(CACHE, "FeatureData", cfg["visual_feature"]),
        os.path.join(col, "TextData", "roberta_charades_query_feat.hdf5"): os.path.join(CACHE, "TextData", "glove100_charades_query_feat.hdf5"),
        os.path.join(col, "TextData", "charadestest.caption.txt"): os.path.join(CACHE, "TextData", "charadestest.caption.txt"),
    }
    for link, target in links.items():
        if not os.path.exists(target):
            sys.exit(f"crosscheck: {target} is missing: run `make data` first")
        if os.path.islink(link) or os.path.exists(link):
            os.remove(link)
        os.symlink(target, link)
    lines, vids = read_captions(os.path.join(CACHE, "TextData", "charadestrain.caption.txt"))
    drawn = random.Random(cfg["split_seed"]).sample(sorted(set(vids)), cfg["train_videos"] + cfg["val_videos"])
    train, val = set(drawn[:cfg["train_videos"]]), set(drawn[cfg["train_videos"]:])
    write_atomic(os.path.join(col, "TextData", "charadestrain.caption.txt"),
                 "".join(l + "\n" for l, v in zip(lines, vids) if v in train))
    write_atomic(os.path.join(col, "TextData", "charadesval.caption.txt"),
                 "".join(l + "\n" for l, v in zip(lines, vids) if v in val))
    _, test_vids = read_captions(os.path.join(CACHE, "TextData", "charadestest.caption.txt"))
    return root, {"train_videos": len(train), "train_queries": sum(v in train for v in vids),
                  "val_videos": len(val), "val_queries": sum(v in val for v in vids),
                  "test_videos": len(set(test_vids)), "test_queries": len(test_vids)}


def git_head(path):
    r = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def check_official(official=OFFICIAL):
    """The official checkouts build/official/<name> of official ({name: (url, commit)}), at the pinned
    commits and unmodified; exit 2 with the way to get them."""
    paths = {}
    for name, (url, commit) in official.items():
        path = os.path.join(ROOT, "build", "official", name)
        head = git_head(path)
        dirty = subprocess.run(["git", "-C", path, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip() if head else ""
        if head != commit or dirty:
            why = "is missing" if head is None else (f"is at {head}" if head != commit else "has local changes")
            sys.stderr.write(f"crosscheck: build/official/{name} {why}; it must be a clean checkout of {url} at {commit}:\n"
                             f"  git clone {url} build/official/{name} && git -C build/official/{name} checkout {commit}\n")
            sys.exit(2)
        paths[name] = path
    return paths


def source_hash(exe, env):
    """lib/runcache.SourceHash of our command exe (its -source flag): every package it builds on."""
    r = subprocess.run([exe, "-source"], cwd=ROOT, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"crosscheck: {exe} -source failed:\n{r.stderr}")
    return r.stdout.strip()


def run_record(d):
    """When the finished run in directory d ended (UTC, its result.json's time) and the source hash of
    our command it was keyed by (config.json; None for an official run)."""
    t = datetime.datetime.fromtimestamp(os.path.getmtime(os.path.join(d, "result.json")), datetime.timezone.utc)
    return {"finished_utc": t.strftime("%Y-%m-%d %H:%M"), "ours_source": json.load(open(os.path.join(d, "config.json"))).get("ours_source")}


def runs_line(records):
    """The table note on when the runs finished ({side: [run_record]}) and which source ours ran."""
    src = sorted({r["ours_source"] or "unkeyed" for r in records["ours"]})
    return ("- Runs finished (UTC): " + "; ".join(f"{side} {', '.join(r['finished_utc'] for r in rs)}" for side, rs in records.items()) +
            f". A finished run is reused while its key is unchanged (lib/crosscheck/README.md); ours ran the source "
            f"{', '.join(h[:12] for h in src)} (lib/runcache.SourceHash of our command).")


def task_cmd(side, seed, paths, data, cfg_path, out):
    if side == "official":
        return ["nice", "-n", "10", "/usr/bin/python3", os.path.join(ROOT, "lib", "crosscheck", "official_hlformer.py"),
                "--official", paths["hlformer"], "--geoopt", paths["geoopt"], "--data", data,
                "--config", cfg_path, "--seed", str(seed), "--out", out]
    return ["nice", "-n", "10", os.path.join(BUILD, "bin", "ourhlformer"), "-data", data, "-config", cfg_path,
            "-seed", str(seed), "-out", out]


def run_tasks(tasks, jobs, env):
    """Run (side, seed, cmd, out) tasks, at most jobs at a time; each logs to <out>/log.txt."""
    running, failed = [], []
    pending = list(tasks)
    while pending or running:
        while pending and len(running) < jobs:
            side, seed, cmd, out = pending.pop(0)
            os.makedirs(out, exist_ok=True)
            log = open(os.path.join(out, "log.txt"), "w")
            print(f"== start {side} seed {seed}", flush=True)
            running.append((side, seed, out, subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT), log, time.time()))
        time.sleep(5)
        for t in list(running):
            side, seed, out, proc, log, t0 = t
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == 0:
                continue
            running.remove(t)
            log.close()
            code = os.waitstatus_to_exitcode(status)
            wall, cpu = time.time() - t0, usage.ru_utime + usage.ru_stime
            print(f"== done {side} seed {seed}: exit {code} after {wall:.0f} s ({cpu:.0f} s of CPU)", flush=True)
            if code == 0:
                write_atomic(os.path.join(out, "cpu.json"), json.dumps({"wall_seconds": wall, "cpu_seconds": cpu}))
            else:
                failed.append(f"{side} seed {seed} (see {out}/log.txt)")
    if failed:
        sys.exit("crosscheck: failed: " + ", ".join(failed))


def ranks(scores, gt):
    """1-based text→video ranks with ties counted against the query (lib/retrieval's TiePessimistic)."""
    import numpy as np
    scores = np.nan_to_num(scores, nan=-np.inf)  # a NaN score (a diverged model) ranks last, tied
    s_gt = scores[np.arange(len(gt)), gt][:, None]
    return 1 + (scores > s_gt).sum(1) + (scores == s_gt).sum(1) - 1


def metrics(r):
    import numpy as np
    out = {f"R@{k}": 100.0 * float((r <= k).mean()) for k in (1, 5, 10, 100)}
    out["SumR"] = sum(out[f"R@{k}"] for k in (1, 5, 10, 100))
    out["MdR"], out["MnR"] = float(np.median(r)), float(r.mean())
    return out


def log_nan_epoch(d):
    """The first epoch whose mean loss the official code logged as nan ("Average Loss: nan"), or None."""
    try:
        losses = [l.rsplit(":", 1)[1].strip() for l in open(os.path.join(d, "log.txt"), errors="replace") if "Average Loss:" in l]
    except OSError:
        return None
    return next((i for i, v in enumerate(losses) if v == "nan"), None)


def load_side(side, seeds):
    """The finished runs of side, and {seed: note} for the seeds without a result."""
    import numpy as np
    rows, missing = [], {}
    for seed in seeds:
        d = os.path.join(BUILD, side, f"seed{seed}")
        if not os.path.exists(os.path.join(d, "result.json")):
            e = log_nan_epoch(d) if side == "official" else None
            missing[seed] = "no result" + ("" if e is None else f" (its log has a NaN mean loss from epoch {e}; stopped)")
            continue
        res = json.load(open(os.path.join(d, "result.json")))
        z = np.load(os.path.join(d, "test_scores.npz"))
        res["test_eval"] = metrics(ranks(z["scores"], z["gt"]))
        # the first epoch whose mean training loss is not finite (the official code trains on after a
        # NaN; ours stops with an error), or None
        res["nan_epoch"] = next((h["epoch"] for h in res["history"] if not math.isfinite(h["loss"])), None)
        # the selected model itself is NaN (it was chosen at or after that epoch): no usable model
        res["nan_model"] = bool(np.isnan(z["scores"]).any())
        rows.append(res)
    return rows, missing


def summarize(xs):
    import numpy as np
    xs = np.asarray(xs, dtype=float)
    return {"mean": float(xs.mean()), "se": float(xs.std(ddof=1) / math.sqrt(len(xs))) if len(xs) > 1 else float("nan"),
            "values": [float(x) for x in xs]}


def compare(a, b):
    """Welch's t-test of mean(a) = mean(b) and the 95 % confidence interval of mean(a) − mean(b)
    (Welch–Satterthwaite degrees of freedom), computed with SciPy."""
    import numpy as np
    from scipy import stats
    a, b = np.asarray(a, float), np.asarray(b, float)
    if len(a) < 2 or len(b) < 2:
        nan = float("nan")
        return {"diff": nan, "ci95": [nan, nan], "t": nan, "df": nan, "p": nan, "verdict": "not testable (n < 2)"}
    va, vb = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    half = stats.t.ppf(0.975, df) * math.sqrt(va + vb)
    t, p = stats.ttest_ind(a, b, equal_var=False)
    d = float(a.mean() - b.mean())
    verdict = "same within noise" if p >= 0.05 else "differ"
    return {"diff": d, "ci95": [d - half, d + half], "t": float(t), "df": float(df), "p": float(p), "verdict": verdict}


def finite(x):
    """x with every non-finite float replaced by None (JSON has no NaN)."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    return x


def fmt(ms, digits=2):
    return f"{ms['mean']:.{digits}f} ± {ms['se']:.{digits}f}"


def render(cfg, seeds, out):
    """figures/crosscheck/hlformer.{md,json} from the seeds' results under build/crosscheck."""
    loaded = {side: load_side(side, seeds) for side in ("official", "ours")}
    sides = {side: rows for side, (rows, _) in loaded.items()}
    missing = {side: m for side, (_, m) in loaded.items()}
    for r in sides["ours"]:  # our evaluator here must agree with lib/retrieval's numbers of the Go side
        for k in ("R@1", "R@5", "R@10", "R@100", "SumR", "MdR", "MnR"):
            if abs(r["test_eval"][k] - r["test"][k]) > 1e-6:
                sys.exit(f"crosscheck: seed {r['seed']}: {k} recomputed {r['test_eval'][k]} != lib/retrieval {r['test'][k]}")
    cols = ["R@1", "R@5", "R@10", "R@100", "SumR", "MdR", "MnR"]
    # A run whose selected model scores NaN (its loss became NaN at or before the best val epoch; only
    # the official code trains on after a NaN) has no usable model: the summary and the test use the
    # other runs and the table lists the excluded seeds.
    kept = {side: [r for r in rows if not r["nan_model"]] for side, rows in sides.items()}
    summary = {side: {k: summarize([r["test_eval"][k] for r in rows]) for k in cols} for side, rows in kept.items()}
    tests = {k: compare([r["test_eval"][k] for r in kept["official"]], [r["test_eval"][k] for r in kept["ours"]])
             for k in ("SumR", "R@1")}
    cpu = {}
    for side in sides:
        cpu[side] = []
        for seed in [r["seed"] for r in sides[side]]:
            f = os.path.join(BUILD, side, f"seed{seed}", "cpu.json")
            cpu[side].append(json.load(open(f)) if os.path.exists(f) else None)
    off0 = sides["official"][0]
    counts = json.load(open(os.path.join(BUILD, "data_counts.json")))
    cpu_model, isa = machine()
    ours_commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    prov = {
        "official": {name: {"repository": url, "commit": commit} for name, (url, commit) in OFFICIAL.items()},
        "official_cpu_patches": off0["cpu_patches"], "torch": off0["torch"], "ours_commit": ours_commit + ("+dirty" if dirty else ""),
        "backend": sides["ours"][0]["backend"], "machine": f"{cpu_model} ({isa}), {os.cpu_count()} cores",
        "threads": "one thread per training (torch.set_num_threads(1), OMP_NUM_THREADS=1; GOMAXPROCS=1), run under nice -n 10",
        "config": cfg, "seeds": seeds, "data": counts, "date": datetime.date.today().isoformat(),
        "runs": {side: [run_record(os.path.join(BUILD, side, f"seed{r['seed']}")) for r in rows] for side, rows in sides.items()},
    }
    per_seed = []
    both = [seed for seed in seeds if seed not in missing["official"] and seed not in missing["ours"]]
    for seed in both:
        i, j = [r["seed"] for r in sides["official"]].index(seed), [r["seed"] for r in sides["ours"]].index(seed)
        o, u = sides["official"][i], sides["ours"][j]
        per_seed.append({"seed": seed,
                         "official": {"test": o["test_eval"], "test_code_evaluator": dict(zip(["R@1", "R@5", "R@10", "R@100", "SumR"], o["test_code"])),
                                      "best_epoch": o["best_epoch"], "val_sumr": [h["val"][4] for h in o["history"]],
                                      "nan_loss_from_epoch": o["nan_epoch"], "selected_model_nan": o["nan_model"],
                                      "loss": [h["loss"] for h in o["history"]], "train_wall_seconds": o["train_wall_seconds"],
                                      "test_wall_seconds": o["test_wall_seconds"], "process": cpu["official"][i]},
                         "ours": {"test": u["test_eval"], "best_epoch": u["best_epoch"], "val_sumr": [h["val"]["SumR"] for h in u["history"]],
                                  "loss": [h["loss"] for h in u["history"]], "train_wall_seconds": u["train_wall_seconds"],
                                  "test_wall_seconds": u["test_wall_seconds"], "process": cpu["ours"][j]}})
    excluded = {side: [r["seed"] for r in rows if r["nan_model"]] for side, rows in sides.items()}
    doc = {"title": "HLFormer: official code vs ours, same data, same configuration", "provenance": prov,
           "excluded_seeds_nan_model": excluded, "seeds_without_result": missing,
           "summary": summary, "tests": tests, "per_seed": per_seed}
    os.makedirs(out, exist_ok=True)
    write_atomic(os.path.join(out, "hlformer.json"), json.dumps(finite(doc), indent=1, allow_nan=False))

    def secs(xs):
        xs = [x for x in xs if x is not None]
        return f"{sum(xs) / len(xs) / 60:.1f}" if xs else "—"
    L = [f"### {doc['title']}", "",
         "Text→video on the official Charades-STA test split (label-derived video features, GloVe query tokens), "
         f"mean ± s.e. over the seeds of {seeds} whose selected model is finite (official: "
         f"{[r['seed'] for r in kept['official']]}, ours: {[r['seed'] for r in kept['ours']]}; selected model NaN: official "
         f"{excluded['official'] or 'none'}, ours {excluded['ours'] or 'none'}; without a result: official "
         f"{missing['official'] or 'none'}, ours {missing['ours'] or 'none'}); every metric of both sides computed from the saved "
         "score matrices by one evaluator (ties counted against the query, as lib/retrieval).", "",
         "| implementation | n | " + " | ".join(cols) + " | best epoch | wall / seed (min) | CPU / seed (min) |",
         "|---" * (len(cols) + 5) + "|"]
    for side, label in (("official", "official code (PyTorch, CPU)"), ("ours", "ours (lib/models/hlformer, GoMLX Go backend)")):
        be = [r["best_epoch"] for r in kept[side]]
        L.append(f"| {label} | {len(kept[side])} | " + " | ".join(fmt(summary[side][k]) for k in cols) +
                 f" | {' '.join(str(b) for b in be)} | {secs([r['train_wall_seconds'] + r['test_wall_seconds'] for r in sides[side]])} | "
                 f"{secs([c['cpu_seconds'] if c else None for c in cpu[side]])} |")
    L += ["", "| metric | official − ours | 95 % CI (Welch) | t | df | p | verdict |", "|---|---|---|---|---|---|---|"]
    for k, t in tests.items():
        L.append(f"| {k} | {t['diff']:+.2f} | [{t['ci95'][0]:+.2f}, {t['ci95'][1]:+.2f}] | {t['t']:.2f} | {t['df']:.1f} | {t['p']:.3f} | **{t['verdict']}** |")
    L += ["", "Per seed (test SumR / R@1; the official code's own evaluator, argsort ties, in brackets; val SumR by epoch, "
          "epochs from 0; the official code trains on after a NaN loss, and its model selection keeps an earlier epoch when one "
          "scored better on val; a run whose selected model is NaN is left out of the summary):", "",
          "| seed | official SumR | ours SumR | official R@1 | ours R@1 | official val SumR by epoch | ours val SumR by epoch | official loss NaN from epoch |",
          "|---|---|---|---|---|---|---|---|"]
    for r in per_seed:
        o, u = r["official"], r["ours"]
        L.append(f"| {r['seed']} | {o['test']['SumR']:.2f} ({o['test_code_evaluator']['SumR']:.2f}) | {u['test']['SumR']:.2f} | "
                 f"{o['test']['R@1']:.2f} ({o['test_code_evaluator']['R@1']:.2f}) | {u['test']['R@1']:.2f} | "
                 f"{' '.join(f'{v:.1f}' for v in o['val_sumr'])} | {' '.join(f'{v:.1f}' for v in u['val_sumr'])} | "
                 f"{'—' if o['nan_loss_from_epoch'] is None else o['nan_loss_from_epoch']} |")
    c = cfg
    L += ["", "- Official code: " + "; ".join(f"{v['repository']} @ {v['commit']}" for v in prov["official"].values()) +
          f" (geoopt is the one import Debian does not package); PyTorch {prov['torch']} (Debian python3-torch).",
          "- Run unmodified (clean checkout) with these run-time patches for a CPU (lib/crosscheck/official_hlformer.py): "
          "torch.Tensor.cuda and torch.nn.Module.cuda made the identity, which covers " + "; ".join(prov["official_cpu_patches"]) +
          ". Its configuration dictionary (src/Configs/cha.py) is set in memory; DataLoader workers 0, no pinned memory.",
          f"- Configuration (both sides): d = {c['dim']}, Lorentz L^{c['lorentz_dim']}, {c['heads']} heads, {c['branches']} branches "
          f"({c['branches'] // 2} Euclidean + {c['branches'] // 2} Lorentz, widths None/2/4/8), MAIM τ = {c['branch_temperature']}, "
          f"dropout {c['dropout']} / input {c['input_dropout']}, {c['clip_len']} clips, {c['frame_len']} frames, {c['query_len']} tokens, "
          f"batches of {c['batch_videos']} videos with all their captions, BertAdam lr {c['lr']} warmup_linear over {c['epochs']} epochs, "
          f"hard negatives from epoch {c['hard_negative_start']}, no early stop, best epoch on val SumR; Charades loss weights and "
          f"S = {c['clip_score_weight']} S_c + {c['frame_score_weight']} S_f (the codes' defaults).",
          f"- Data: Charades-STA PRVR cache of `make data` (LABEL-DERIVED video features), official layout; train = {counts['train_videos']} "
          f"videos / {counts['train_queries']} captions and val = {counts['val_videos']} / {counts['val_queries']} drawn disjointly from the "
          f"official train captions (seed {c['split_seed']}); test = the official test split, {counts['test_videos']} videos / "
          f"{counts['test_queries']} captions.",
          f"- Verdict rule: Welch's two-sample t-test of equal means, computed with SciPy (a seed does not pair the two "
          "implementations: they draw different random streams, so lib/stats' paired test does not apply; and this equivalence "
          "check is outside the project's claim rule of lib/reproduce, which decides \"B beats A\" claims on ≥ 5 seeds): "
          "\"same within noise\" when p ≥ 0.05, \"differ\" otherwise; with "
          f"n = {len(kept['official'])} and {len(kept['ours'])} it only excludes differences larger than about the CI half-width.",
          f"- Scale: random ranking has expected SumR 100·(1 + 5 + 10 + 100)/{counts['test_videos']} = "
          f"{100 * 116 / counts['test_videos']:.1f} on this test split; the full-scale results are in figures/hlformer/. This check "
          "compares the two implementations at one small size, not their accuracy.",
          f"- CPU of all {sum(len(r) for r in sides.values())} trainings: {sum(c['cpu_seconds'] for v in cpu.values() for c in v if c) / 60:.1f} min.",
          f"- Machine: {prov['machine']}; {prov['threads']}; our commit {prov['ours_commit']}; backend {prov['backend']}; {prov['date']}.",
          runs_line(prov["runs"]),
          "- Wall times are under the load of the other jobs on the shared machine; CPU is the process's user + system time."]
    write_atomic(os.path.join(out, "hlformer.md"), "\n".join(L) + "\n")
    print("\n".join(L))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.path.join(ROOT, "figures", "crosscheck"))
    p.add_argument("--seeds", default="0,1,2,3")
    p.add_argument("--only", choices=["official", "ours"])
    p.add_argument("--jobs", type=int, default=2, help="trainings at a time (each uses one thread)")
    p.add_argument("--render-only", action="store_true")
    a = p.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    sides = [a.only] if a.only else ["official", "ours"]
    cfg = dict(CONFIG)
    cfg_path = os.path.join(BUILD, "config.json")
    if not a.render_only:
        paths = check_official()
        data, counts = prepare_data(cfg)
        os.makedirs(BUILD, exist_ok=True)
        write_atomic(cfg_path, json.dumps(cfg, indent=1, sort_keys=True))
        write_atomic(os.path.join(BUILD, "data_counts.json"), json.dumps(counts, indent=1))
        env = dict(os.environ, GOMAXPROCS="1", OMP_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE", CROSSCHECK_THREADS="1")
        env.setdefault("GOMLX_BACKEND", "go")
        os.makedirs(os.path.join(BUILD, "bin"), exist_ok=True)
        r = subprocess.run(["go", "build", "-o", os.path.join(BUILD, "bin", "ourhlformer"), "./lib/crosscheck/ourhlformer"],
                           cwd=ROOT, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("crosscheck: go build ./lib/crosscheck/ourhlformer failed:\n" + r.stderr)
        # A finished seed is reused when its key matches: the configuration, and for our side also the
        # source of every package our command builds on (our code changes between runs; the official
        # checkout is pinned and checked above, and the data root is rewritten from the cache each run).
        key = {"official": cfg, "ours": dict(cfg, ours_source=source_hash(os.path.join(BUILD, "bin", "ourhlformer"), env))}
        tasks = []
        for seed in seeds:
            for side in sides:
                out = os.path.join(BUILD, side, f"seed{seed}")
                done = os.path.join(out, "result.json")
                kept = os.path.join(out, "config.json")
                if os.path.exists(done) and os.path.exists(kept) and json.load(open(kept)) == key[side]:
                    print(f"== reuse {side} seed {seed} ({done})")
                    continue
                if os.path.exists(done):
                    os.remove(done)
                os.makedirs(out, exist_ok=True)
                write_atomic(kept, json.dumps(key[side], indent=1, sort_keys=True))
                tasks.append((side, seed, task_cmd(side, seed, paths, data, cfg_path, out), out))
        t0 = time.time()
        run_tasks(tasks, a.jobs, env)
        print(f"== all trainings done in {time.time() - t0:.0f} s")
    render(cfg, seeds, a.out)


if __name__ == "__main__":
    main()
