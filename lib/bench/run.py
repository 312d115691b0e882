#!/usr/bin/python3
"""make bench: run every paired benchmark and write one table (figures/bench.md).

Go side: every `func BenchmarkPaired<Name>` in lib/**/*_test.go, each in its own process
(so /usr/bin/time's peak RSS belongs to that benchmark alone), built with GOEXPERIMENT=simd;
lib/bench's reference workloads are also built and run without SIMD to show what SIMD buys.
PyTorch side: lib/bench/torch/<Name>.py twins (Debian python3-torch + OpenBLAS), same thread
count, run twice: default OpenMP settings and OMP_WAIT_POLICY=PASSIVE.
Usage: run.py [--out figures/bench.md] [--filter REGEX] [--benchtime 3x] [--no-nosimd] [--no-passive] [--render-only]
The measurements of the run are kept beside the table (figures/bench.json); --render-only re-renders
the table from them without measuring (after a change of the table's layout).
"""
import argparse, datetime, json, os, platform, re, subprocess, sys, tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LINE = re.compile(r"^(BenchmarkPaired\w+?)(?:-\d+)?\s+(\d+)\s+([\d.]+) ns/op(.*)$")


def sh(cmd, env=None, check=True):
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


def timed(cmd, env=None, cwd=ROOT):
    """Run cmd under /usr/bin/time; return (parsed go-bench line or None, peak RSS MB, output)."""
    with tempfile.NamedTemporaryFile(mode="r", suffix=".rss") as f:
        r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", f.name] + cmd, cwd=cwd, env=env,
                           capture_output=True, text=True)
        try:
            rss_mb = int(open(f.name).read().strip().splitlines()[-1]) / 1024
        except (ValueError, IndexError):
            rss_mb = float("nan")
    parsed = None
    for line in r.stdout.splitlines():
        m = LINE.match(line.strip())
        if m:
            extra = dict((v, float(k)) for k, v in re.findall(r"([\d.]+) (\S+)", m.group(4)))
            parsed = {"name": m.group(1)[len("BenchmarkPaired"):], "ns": float(m.group(3)), "extra": extra}
    if r.returncode != 0 or parsed is None:
        print(f"  ! {' '.join(cmd[-4:])}: exit {r.returncode}\n{r.stdout[-1500:]}{r.stderr[-1500:]}", file=sys.stderr)
    return parsed, rss_mb, r


# Extra rows: a workload also run at a smaller size (both sides read the same environment
# variable), when its official size does not fit this machine on one side; or our side in a second
# configuration (the twin ignores the variable and is run again as it is): GARE's training step as
# one graph, the step the committed GARE results were trained with (lib/models/gare.SingleGraphStep).
SIZE_VARIANTS = {
    "HLFormerTrainStep": [("64 videos, single graph", {"HLFORMER_BENCH_VIDEOS": "64", "HLFORMER_BENCH_VIDEO_CHUNK": "-1"})],
    "GareTrainStep": [("single graph", {"GARE_BENCH_TEXT_CHUNK": "-1"})],
    # Streaming evaluation as the corpus grows (the default row is 20,000 items).
    "StreamEval": [(f"{n // 1000}k items", {"STREAM_EVAL_ITEMS": str(n)}) for n in (1000, 5000, 10000)],
}


# Issue 11's reference: the papers' official PyTorch code timed on this machine kind (random inputs
# at the papers' shapes, Debian torch 1.13 + OpenBLAS, 2 threads, steady-state medians), as the
# issue gives them: (workload as the issue names it, our benchmark row, seconds, peak memory in GB or
# None where the issue gives none). They are the measurements, not ours, and are printed only
# in columns labelled "official". The goal per row: less time and at most half the memory. GB is read
# as 10^9 bytes (the stricter reading: half of it is fewer MiB than half of a GiB).
OFFICIAL = [
    ("HLFormer training step, 128 videos", "HLFormerTrainStep", 33.0, 16.4),
    ("HLFormer evaluation, 1,334 videos + 3,720 queries", "HLFormerEval", 113.0, 3.5),
    ("GARE training fwd+bwd, 128 × 128", "GareTrainStep", 6.2, 1.0),
    ("GARE inference with Δ, 1,000 × 1,000", "GareInference1k", 161.0, 12.1),
    ("ranks in a 20,000 × 20,000 score matrix", "Rank20k", 18.5, 6.2),
    ("GRAM volume-contrastive loss, B = 256", "GramLoss", 0.32, 0.45),
    ("GRAM volume matrix, B = 1024, forward", "GramVolumeMatrix1024", 0.17, None),
]
MIB_PER_GB = 1e9 / 2 ** 20


def fmt_decimal(mib):
    """MiB as decimal MB/GB (10⁶ / 10⁹ bytes), the units of issue 11's table."""
    if mib != mib:
        return "—"
    b = mib * 2 ** 20
    return f"{b / 1e6:.0f} MB" if b < 1e9 else f"{b / 1e9:.2f} GB"


def official_lines(meta, results):
    """Issue 11's table with our numbers from this run beside the official code's, ratios and the goal."""
    out = ["", "## Against the official code (issue 11's table)", ""]
    if meta.get("isa") and meta["isa"] != "AVX-512":
        out += [f"**Not like for like:** this run's CPU has {meta['isa']} and no AVX-512, unlike the machine kind "
                "the official times were measured on (Zen 4 with AVX-512, ../shared/research/toolchain.md); the "
                "ratios below compare two machines. The PyTorch-twin columns above are the like-for-like comparison.", ""]
    out += [
           "The *official* columns are issue 11's measurements of the papers' official PyTorch code on this "
           "machine kind (not this run); the geoalign columns are this run's default rows. "
           "Goal: less time and at most half the memory. Memory in this table is in decimal units (1 GB = 10⁹ bytes; "
           "the issue's GB read that way, the stricter reading), unlike the binary MB/GB of the table above.", "",
           "| workload (issue 11) | official time | official peak memory | geoalign time | geoalign peak RSS "
           "| speed-up vs official | memory ratio (ours/official) | goal met |",
           "|---|---|---|---|---|---|---|---|"]
    for label, row, secs, gb in OFFICIAL:
        g = results.get(row, {}).get("simd")
        ns, rss = (g[0], g[1]) if g else (float("nan"), float("nan"))
        off_mb = gb * MIB_PER_GB if gb else float("nan")
        speed = secs * 1e9 / ns if ns == ns else float("nan")
        mem = rss / off_mb if rss == rss and off_mb == off_mb else float("nan")
        if ns != ns:
            goal = "no: " + (g[2] if g and g[2] else "not run")
        else:
            faster = speed > 1
            halved = mem <= 0.5 if mem == mem else None
            goal = ("yes" if faster and halved is not False else "no") + (
                "" if halved is not None else " (time only: no official memory)")
        out.append(f"| {label} | {fmt_time(secs * 1e9)} | {fmt_decimal(off_mb)} | {fmt_time(ns)} | {fmt_decimal(rss)} "
                   f"| {'—' if speed != speed else f'{speed:.2f}×'} | {'—' if mem != mem else f'{mem:.2f}'} | {goal} |")
    return out


def curve_lines(results):
    """The streaming-evaluation curve (issue 11: constant memory as corpora grow), one line per side."""
    points = [(1000, "StreamEval (1k items)"), (5000, "StreamEval (5k items)"), (10000, "StreamEval (10k items)"), (20000, "StreamEval")]
    points = [(n, results[row]) for n, row in points if row in results]
    if len(points) < 2:
        return []
    out = ["", "Streaming evaluation from embeddings as the corpus grows (StreamEval rows; items: time, peak RSS):"]
    for label, key in [("geoalign", "simd"), ("PyTorch (official-style: full score matrix + argsort)", "torch")]:
        cells = [f"{n // 1000}k: {fmt_time(r[key][0])}, {fmt_mb(r[key][1])}" for n, r in points if key in r]
        out.append(f"- {label}: " + "; ".join(cells) + ".")
    return out


def outcome(parsed, rss, r):
    """(ns, peak RSS MB, note) of one run; note says why there is no time (out of memory, failure)."""
    if parsed:
        return parsed["ns"], rss, ""
    if r.returncode in (-9, 137):
        return float("nan"), rss, "killed: out of memory"
    return float("nan"), rss, f"failed (exit {r.returncode})"


def go_benchmarks(pattern):
    pkgs = {}
    for dirpath, _, files in os.walk(os.path.join(ROOT, "lib")):
        for fn in files:
            if fn.endswith("_test.go"):
                for m in re.finditer(r"^func (BenchmarkPaired\w+)\(", open(os.path.join(dirpath, fn)).read(), re.M):
                    if re.search(pattern, m.group(1)):
                        pkgs.setdefault("./" + os.path.relpath(dirpath, ROOT), []).append(m.group(1))
    return pkgs


def fmt_time(ns):
    if ns != ns:
        return "—"
    s = ns / 1e9
    return f"{s * 1e3:.1f} ms" if s < 1 else f"{s:.2f} s"


def fmt_mb(mb):
    return "—" if mb != mb else (f"{mb:.0f} MB" if mb < 1024 else f"{mb / 1024:.2f} GB")


def machine():
    """(CPU model, widest vector ISA the Go backend's kernels use) of this machine, from /proc/cpuinfo."""
    info = open("/proc/cpuinfo").read().splitlines()
    cpu = next((l.split(":", 1)[1].strip() for l in info if l.startswith("model name")), platform.processor())
    flags = next((l.split(":", 1)[1].split() for l in info if l.startswith("flags")), [])
    return cpu, "AVX-512" if "avx512f" in flags else ("AVX2" if "avx2" in flags else "no AVX2")


def test_binary(pkg, label, env):
    """Build pkg's test binary (`go test -c`) with env under build/bench/<label>/ and return its path."""
    bin_path = os.path.join(ROOT, "build", "bench", label, pkg.strip("./").replace("/", "_") + ".test")
    os.makedirs(os.path.dirname(bin_path), exist_ok=True)
    sh(["go", "test", "-c", "-o", bin_path, pkg], env=env)
    return bin_path


def measure(args):
    """Run every selected benchmark on both sides; return (meta, results), results[row][side] =
    (ns per op, peak RSS MiB, note) with side simd / nosimd / torch / torch_passive."""
    threads = os.environ.get("BENCH_THREADS", "2")
    env = dict(os.environ, GOMAXPROCS=threads)
    results = {}  # name -> dict

    os.makedirs(os.path.join(ROOT, "build", "bench"), exist_ok=True)
    for pkg, names in sorted(go_benchmarks(args.filter).items()):
        variants = [("simd", "simd")]
        if pkg == "./lib/bench" and not args.no_nosimd:
            variants.append(("nosimd", ""))
        for label, experiment in variants:
            print(f"== build {pkg} ({label})", flush=True)
            bin_path = test_binary(pkg, label, dict(env, GOEXPERIMENT=experiment))
            for name in names:
                short = name[len("BenchmarkPaired"):]
                sizes = [("", {})] + (SIZE_VARIANTS.get(short, []) if label == "simd" else [])
                for size, size_env in sizes:
                    print(f"   {name} {size} ({label})", flush=True)
                    parsed, rss, out = timed([bin_path, "-test.run", "^$", "-test.bench", f"^{name}$",
                                              "-test.benchtime", args.benchtime], env=dict(env, **size_env),
                                             cwd=os.path.join(ROOT, pkg))
                    r = results.setdefault(short + (f" ({size})" if size else ""), {})
                    r[label] = outcome(parsed, rss, out)
                    if parsed and label == "simd":
                        r["extra"] = parsed["extra"]

    torch_dir = os.path.join(ROOT, "lib", "bench", "torch")
    torch_version = sh(["/usr/bin/python3", "-c", "import torch; print(torch.__version__)"], check=False).stdout.strip()
    for fn in sorted(os.listdir(torch_dir)):
        if not fn.endswith(".py") or fn.startswith("_") or not re.search(args.filter, "BenchmarkPaired" + fn[:-3]):
            continue
        name = fn[:-3]
        for size, size_env in [("", {})] + SIZE_VARIANTS.get(name, []):
            row = name + (f" ({size})" if size else "")
            for label, extra_env in [("torch", {})] + ([] if args.no_passive else [("torch_passive", {"OMP_WAIT_POLICY": "PASSIVE"})]):
                print(f"   torch {row} ({label})", flush=True)
                parsed, rss, out = timed(["/usr/bin/python3", fn], env=dict(env, BENCH_THREADS=threads, **extra_env, **size_env), cwd=torch_dir)
                results.setdefault(row, {})[label] = outcome(parsed, rss, out)

    cpu, isa = machine()
    meta = {
        "date": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}",
        "cpu": f"{cpu} ({isa})", "isa": isa, "cores": os.cpu_count(), "threads": threads,
        "gomlx": next((l.split()[1] for l in open(os.path.join(ROOT, "go.mod")) if "github.com/gomlx/gomlx " in l), "?"),
        "backend": os.environ.get("GOMLX_BACKEND", "?"),
        "go": sh(["go", "version"], env=env, check=False).stdout.strip(),
        "torch": torch_version, "benchtime": args.benchtime,
    }
    return meta, results


def render(meta, results):
    """figures/bench.md's text from one run's meta and results."""
    # The machine's measured matmul peak: the best GFLOP/s of the 1024³ matmul either side reached.
    peak = float("nan")
    if "MatMul1024" in results:
        flop = 2 * 1024 ** 3
        peak = max(flop / v[0] for k, v in results["MatMul1024"].items() if k in ("simd", "torch", "torch_passive") and v[0] == v[0])

    nan = (float("nan"), float("nan"), "")
    tm = lambda v: v[2] if v[2] else fmt_time(v[0])
    rows = []
    def row_key(name):
        """Rows by workload; a workload's default row first, then its variants in SIZE_VARIANTS order."""
        base, _, size = name.partition(" (")
        sizes = [s for s, _ in SIZE_VARIANTS.get(base, [])]
        return (base, sizes.index(size[:-1]) + 1 if size[:-1] in sizes else 0)

    for name in sorted(results, key=row_key):
        r = results[name]
        g, t, tp, ns = r.get("simd", nan), r.get("torch", nan), r.get("torch_passive", nan), r.get("nosimd", nan)
        ratio = t[0] / g[0] if g[0] == g[0] and t[0] == t[0] else float("nan")
        ratio_p = tp[0] / g[0] if g[0] == g[0] and tp[0] == tp[0] else float("nan")
        mem = g[1] / t[1] if g[1] == g[1] and t[1] == t[1] else float("nan")
        gflops = r.get("extra", {}).get("GFLOP/s")
        frac = f"{gflops / peak * 100:.0f}% ({gflops:.0f} GFLOP/s)" if gflops and peak == peak else "—"
        rows.append(f"| {name} | {tm(g)} | {fmt_mb(g[1])} | {tm(ns)} | {tm(t)} | {fmt_mb(t[1])} "
                    f"| {tm(tp)} | {'—' if ratio != ratio else f'{ratio:.2f}×'} | {'—' if ratio_p != ratio_p else f'{ratio_p:.2f}×'} "
                    f"| {'—' if mem != mem else f'{mem:.2f}'} | {frac} |")

    out = [
        "# geoalign paired benchmarks",
        "",
        f"Generated by `make bench` on {meta['date']}. "
        f"Machine: {meta['cpu']}, {meta['cores']} cores; {meta['threads']} threads on both sides (GOMAXPROCS, torch.set_num_threads).",
        f"geoalign: GoMLX {meta['gomlx']}, backend GOMLX_BACKEND={meta['backend']}, {meta['go']}, "
        f"GOEXPERIMENT=simd unless the column says otherwise; Go benchmark time = ns/op of `go test -bench` "
        f"(-benchtime {meta['benchtime']}, after one compile/warm-up run). PyTorch {meta['torch']} (Debian) + OpenBLAS pthread; "
        f"median of its repetitions after warm-up. Peak RSS of the whole process from /usr/bin/time.",
        "Inputs are random (synthetic) at the shapes given in each benchmark's doc comment.",
        "",
        "| workload | geoalign time | geoalign peak RSS | geoalign, no SIMD | PyTorch time | PyTorch peak RSS "
        "| PyTorch (OMP passive) | speed-up vs PyTorch | vs PyTorch (passive) | memory ratio (ours/torch) | fraction of measured matmul peak |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ] + rows + [
        "",
        f"Measured matmul peak (best 1024³ float32 GFLOP/s of either side in this run): {peak:.0f} GFLOP/s." if peak == peak else "",
        "speed-up = PyTorch time / geoalign time (> 1: geoalign is faster).",
        "Rows with a size in parentheses run the same workload smaller, or another variant of our step, on "
        "both sides (the PyTorch twin reads the sizes; the environment: " + "; ".join(f"{n} ({s}): {' '.join(f'{k}={v}' for k, v in e.items())}" for n, vs in SIZE_VARIANTS.items() for s, e in vs)
        + "); a time cell saying \"killed: out of memory\" is a run the kernel's OOM killer stopped, its RSS cell the peak reached.",
    ] + curve_lines(results) + official_lines(meta, results)
    if meta.get("provenance"):
        out[2:2] = [meta["provenance"]]
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="figures/bench.md")
    ap.add_argument("--filter", default=".")
    ap.add_argument("--benchtime", default=os.environ.get("BENCHTIME", "3x"))
    ap.add_argument("--no-nosimd", action="store_true")
    ap.add_argument("--no-passive", action="store_true")
    ap.add_argument("--render-only", action="store_true",
                    help="re-render the table from the run stored beside --out (bench.json), measuring nothing")
    args = ap.parse_args()
    dst = os.path.join(ROOT, args.out)
    raw = os.path.splitext(dst)[0] + ".json"  # the run's measurements, so the table can be re-rendered
    if args.render_only:
        stored = json.load(open(raw))
        meta, results = stored["meta"], {k: {side: tuple(v) if side != "extra" else v for side, v in r.items()}
                                          for k, r in stored["results"].items()}
    else:
        meta, results = measure(args)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(raw, "w") as f:  # NaN (a run without a time) is written as JSON NaN, which json reads back
            json.dump({"meta": meta, "results": results}, f, indent=1, sort_keys=True)
    text = render(meta, results)
    open(dst, "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
