#!/usr/bin/python3
"""Golden values for lib/stats (and the claim-rule cases of lib/reproduce).

Independent of the Go code: t-tests are scipy.stats (ttest_rel, ttest_1samp); Holm is written
here from its definition, in a different form from the Go code (no sort: the multiplier of a
p-value is m minus the number of strictly smaller p-values). Run from the repository root:

    /usr/bin/python3 lib/stats/testdata/golden.py

It rewrites lib/stats/testdata/golden.json and lib/reproduce/testdata/rule.json. The Go tests
read those files and never call Python.
"""
import json
import os

import numpy as np
from scipy import stats

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20250118)


def holm(p):
    """Holm–Bonferroni: adj_i = max over p_j <= p_i of min(1, (m - #{l: p_l < p_j}) * p_j)."""
    m = len(p)
    out = []
    for pi in p:
        best = 0.0
        for pj in p:
            if pj <= pi:
                smaller = sum(1 for pl in p if pl < pj)
                best = max(best, min(1.0, (m - smaller) * pj))
        out.append(best)
    return out


def fl(xs):
    return [float(x) for x in xs]


def paired_case(name, a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = a - b
    r = stats.ttest_rel(a, b)
    return {"name": name, "a": fl(a), "b": fl(b), "mean_diff": float(d.mean()),
            "std_err": float(d.std(ddof=1) / np.sqrt(len(d))), "p": float(r.pvalue)}


def one_sample_case(name, x, mu):
    x = np.asarray(x, float)
    r = stats.ttest_1samp(x, mu)
    return {"name": name, "x": fl(x), "mu": float(mu), "mean_diff": float(x.mean() - mu),
            "std_err": float(x.std(ddof=1) / np.sqrt(len(x))), "p": float(r.pvalue)}


def stats_golden():
    paired = []
    paired.append(paired_case("n=2", [1.0, 2.5], [0.5, 1.0]))
    paired.append(paired_case("n=2 opposite signs", [1.0, 0.0], [0.0, 1.5]))
    base = rng.normal(50, 5, 5)
    paired.append(paired_case("n=5 clear gain", base + rng.normal(2, 0.5, 5), base))
    paired.append(paired_case("n=5 noise", base + rng.normal(0, 1, 5), base))
    paired.append(paired_case("n=5 clear loss", base - rng.normal(1, 0.2, 5), base))
    base = rng.normal(0.3, 0.05, 10)
    paired.append(paired_case("n=10 small", base + rng.normal(0.01, 0.02, 10), base))
    base = rng.normal(89, 1, 30)
    paired.append(paired_case("n=30", base + rng.normal(0.2, 1, 30), base))
    # p near 1: the mean difference is tiny against its spread.
    paired.append(paired_case("p near 1", [10.1, 9.9, 10.2, 9.8, 10.001, 10.0], [10.0] * 6))
    # A p-value far in the tail (relative precision of the lower tail of the CDF).
    paired.append(paired_case("tiny p", 10 + rng.normal(0, 0.01, 8), np.zeros(8)))
    # Large magnitudes, small differences (cancellation in a − b).
    base = 1e6 + rng.normal(0, 10, 6)
    paired.append(paired_case("large magnitudes", base + rng.normal(0.5, 0.3, 6), base))
    # Recall-like values with two decimals, as the tables print them.
    paired.append(paired_case("recall-like", [91.39, 90.80, 91.75, 90.95, 91.10],
                              [88.67, 89.40, 88.10, 89.02, 88.75]))

    one = []
    one.append(one_sample_case("n=2", [1.0, 3.0], 0.5))
    one.append(one_sample_case("n=5 above mu", [89.9, 90.4, 89.6, 90.1, 90.3], 89.35))
    one.append(one_sample_case("n=5 below mu", [88.6, 88.9, 88.4, 88.8, 88.7], 89.35))
    one.append(one_sample_case("n=7 near mu", rng.normal(2.28, 0.3, 7), 2.28))

    holms = []
    def h(name, p):
        holms.append({"name": name, "p": fl(p), "adjusted": holm(list(map(float, p)))})
    h("textbook", [0.01, 0.04, 0.03, 0.005])
    h("single", [0.03])
    h("ties", [0.02, 0.02, 0.01, 0.02, 0.5])
    h("all equal", [0.04, 0.04, 0.04])
    h("near 1", [0.999, 0.98, 0.5, 0.9999999])
    h("zeros and ones", [0.0, 1.0, 0.0, 0.2])
    h("capped", [0.3, 0.4, 0.6])
    h("random 20", rng.uniform(0, 0.2, 20))
    h("random 7 with tiny", [1e-12, 3e-7, 0.01, 0.011, 0.2, 0.0049, 0.7])
    return {"paired": paired, "one_sample": one, "holm": holms}


def rule_golden():
    """Hand-made claim-rule cases. For each comparison in the Holm family the paired p of B − A
    (scipy.stats.ttest_rel) and, where a gate applies, the one-sided p of the gate's test;
    the Holm adjustment is per paper over the comparisons marked "family"."""
    seeds5 = [1, 2, 3, 4, 5]
    seeds6 = [1, 2, 3, 4, 5, 6]
    cases = []

    def add(name, paper, a, b, seeds, higher=True, family=True, **kw):
        c = {"name": name, "paper": paper, "a": fl(a), "b": fl(b), "seeds": seeds,
             "higher": higher, "family": family}
        c.update(kw)
        if family:
            c["p"] = float(stats.ttest_rel(b, a).pvalue)
        cases.append(c)

    A = [40.0, 42.0, 41.0, 43.0, 40.5, 41.5]
    # Paper P: a family of four tested claims.
    add("holds", "P", A, [x + d for x, d in zip(A, [2.1, 1.8, 2.4, 1.9, 2.2, 2.0])], seeds6)
    add("contradicted", "P", A, [x - d for x, d in zip(A, [1.1, 0.9, 1.2, 1.0, 0.8, 1.05])], seeds6)
    add("inconclusive", "P", A, [x + d for x, d in zip(A, [0.5, -0.4, 0.3, -0.6, 0.2, 0.1])], seeds6)
    # Raw p < 0.05 but the Holm-adjusted p is not: inconclusive in P.
    borderline = [x + d for x, d in zip(A, [1.0, 0.0, 0.9, 0.1, 1.2, 0.4])]
    add("borderline", "P", A, borderline, seeds6)
    # The same data alone in paper Q: its family has one member, so Holm leaves p as it is.
    add("borderline alone", "Q", A, borderline, seeds6)
    # Lower is better (a mean rank): B lowers it.
    add("lower is better", "R", [12.6, 13.0, 12.2, 12.9, 12.5], [12.0, 12.3, 11.7, 12.1, 12.0], seeds5,
        higher=False)
    # Fewer than five seeds: inconclusive by rule, not tested.
    add("n=3", "P", [40.0, 42.0, 41.0], [45.0, 47.0, 46.5], [1, 2, 3], family=False)
    # Ceiling: identical on every seed; the baseline at the metric's best on every seed.
    add("identical", "P", [15.7] * 5, [15.7] * 5, seeds5, family=False)
    add("at best", "P", [100.0] * 5, [99.8, 100.0, 99.9, 100.0, 100.0], seeds5, family=False, best=100.0)
    # Floor: a deterministic zero-training floor (one value) that B does not beat ...
    fb = [89.1, 89.8, 88.9, 89.6, 89.2]
    add("floor fails", "F", [88.5, 88.9, 88.3, 88.8, 88.6], fb, seeds5, family=False,
        floor=[89.35], floor_p_b=float(stats.ttest_1samp(fb, 89.35, alternative="greater").pvalue),
        floor_p_a=float(stats.ttest_1samp([88.5, 88.9, 88.3, 88.8, 88.6], 89.35, alternative="greater").pvalue))
    # ... and a per-seed floor that both beat: tested, the floor carried into the row.
    fl_seeds = [85.0, 85.4, 84.8, 85.1, 85.2]
    a_ok = [88.5, 88.9, 88.3, 88.8, 88.6]
    b_ok = [91.4, 90.8, 91.8, 91.0, 91.1]
    add("floor passes", "F", a_ok, b_ok, seeds5, floor=fl_seeds,
        floor_p_a=float(stats.ttest_rel(a_ok, fl_seeds, alternative="greater").pvalue),
        floor_p_b=float(stats.ttest_rel(b_ok, fl_seeds, alternative="greater").pvalue))
    # Collapse: within noise of random ranking (one-sided test against the random value).
    rnd = [10.3, 9.6, 10.8, 9.9, 10.1]
    add("collapse random", "C", [20.0, 21.0, 19.5, 20.5, 20.2], rnd, seeds5, family=False, random=10.0,
        random_p_b=float(stats.ttest_1samp(rnd, 10.0, alternative="greater").pvalue))
    # Collapse: best epoch <= 1 on a seed of a learned model.
    add("collapse epoch", "C", [20.0, 21.0, 19.5, 20.5, 20.2], [25.0, 26.0, 24.5, 25.5, 25.2], seeds5,
        family=False, best_epoch_b=[3, 1, 4, 5, 2])

    papers = {}
    for c in cases:
        if c["family"]:
            papers.setdefault(c["paper"], []).append(c)
    for cs in papers.values():
        for c, adj in zip(cs, holm([c["p"] for c in cs])):
            c["p_holm"] = adj
    return cases


def dump(obj, path):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


dump(stats_golden(), os.path.join(HERE, "golden.json"))
os.makedirs(os.path.join(HERE, "..", "..", "reproduce", "testdata"), exist_ok=True)
dump(rule_golden(), os.path.join(HERE, "..", "..", "reproduce", "testdata", "rule.json"))
