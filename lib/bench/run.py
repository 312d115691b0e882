#!/usr/bin/python3
"""make bench: every paired benchmark on geoalign's backends and on the current peers, one table
(figures/bench.md; issues 11 and 32).

geoalign: every `func BenchmarkPaired<Name>` in lib/**/*_test.go, each in its own process (so
/usr/bin/time's peak RSS belongs to that benchmark alone), built once with GOEXPERIMENT=simd and run once
per backend: GOMLX_BACKEND=go (the Go backend) and GOMLX_BACKEND=$BENCH_XLA_BACKEND (XLA-CPU through a
PJRT plugin; the Makefile points it at build/pjrt/pjrt_c_api_cpu_plugin.so). The backend comes from the
environment only; lib/bench's reference workloads also run on the Go backend without SIMD.
Peers: lib/bench/torch/<Name>.py on PyTorch 2 and lib/bench/jax/<Name>.py on JAX, both from the venv of
`make bench` (--venv, lib/bench/requirements.txt); on request (--sides ...,torch1) the same torch twins
on Debian's python3-torch 1.13 (/usr/bin/python3), the baseline of the issue-11 table, no longer timed by
default: nobody would pick it over PyTorch 2 today (issue 32).
Every process runs on BENCH_THREADS CPUs (default 2): CPU affinity restricted to that many CPUs, plus
GOMAXPROCS, torch.set_num_threads, OMP_NUM_THREADS and MKL_NUM_THREADS.

Check pass (before timing): the benchmarks that support it (CHECKED) run once with $BENCH_CHECK_DIR set
and write their inputs and one output there (lib/bench/check.go); every twin reads the same inputs,
recomputes and compares (lib/bench/{torch,jax}/_common.py), and XLA-CPU's output is compared with the
Go backend's. The table says per row who agrees.

Usage: run.py [--out figures/bench.md] [--venv build/bench-venv] [--filter REGEX] [--benchtime 3x]
              [--sides go,xla,nosimd,torch2,jax,official] [--no-check] [--quick] [--render-only]
              [--reuse RUN.json]
--reuse: the sides this run does not measure (not in --sides) are taken from a stored run (another run's
<out>.json on the same machine), with their checks, versions and the official-code section; the table
names that run's date and commit for them. For re-timing geoalign after a change without re-timing the
peers (`--sides go,xla,nosimd --reuse figures/bench.json`).
--quick: a smoke run to verify the harness (-benchtime 1x, one timed repetition per twin, smaller
HLFormer and streaming sizes, no size variants); it writes build/bench/quick.md (or --out outside figures/).
The measurements of a run are kept beside the table (<out>.json); --render-only re-renders the table from
them without measuring.
"""
import argparse, datetime, json, os, platform, re, statistics, subprocess, sys, tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LINE = re.compile(r"^(BenchmarkPaired\w+?)(?:-\d+)?\s+(\d+)\s+([\d.]+) ns/op(.*)$")
CHECK_LINE = re.compile(r"^CHECK (\S+) (\S+) (rel|equal|none) (\S+)$")
NAN = float("nan")

# The sides of the table: key -> (column title, kind). geoalign sides run the Go test binaries; peers run
# the twins. "fastest peer" is taken over CURRENT_PEERS only (Debian's torch 1.13 is shown for reference).
SIDES = {
    "go": ("Go backend", "geoalign"),
    "xla": ("XLA-CPU", "geoalign"),
    "nosimd": ("Go backend, no SIMD", "geoalign"),
    "torch2": ("PyTorch 2", "peer"),
    "jax": ("JAX", "peer"),
    "torch1": ("PyTorch 1.13 (Debian)", "peer"),
    "official": ("official code on PyTorch 2", "official"),
}
GEOALIGN_BACKENDS = ["go", "xla"]
CURRENT_PEERS = ["torch2", "jax"]

# Extra rows: a workload also run at a smaller size (both sides read the same environment variable),
# or our side in a second configuration (the twin ignores the variable and is run again as it is):
# GARE's training step as one graph, the step the committed GARE results were trained with
# (lib/models/gare.SingleGraphStep).
SIZE_VARIANTS = {
    "HLFormerTrainStep": [("64 videos, single graph", {"HLFORMER_BENCH_VIDEOS": "64", "HLFORMER_BENCH_VIDEO_CHUNK": "-1"})],
    "GareTrainStep": [("single graph", {"GARE_BENCH_TEXT_CHUNK": "-1"})],
    # Streaming evaluation as the corpus grows (the default row is 20,000 items).
    "StreamEval": [(f"{n // 1000}k items", {"STREAM_EVAL_ITEMS": str(n)}) for n in (1000, 5000, 10000)],
}
# --quick: the smallest sizes that still run every code path (both sides read these variables).
QUICK_ENV = {"HLFORMER_BENCH_VIDEOS": "8", "HLFORMER_BENCH_EVAL_VIDEOS": "64", "STREAM_EVAL_ITEMS": "2000",
             "OFFICIAL_GARE_ITEMS": "96"}  # the last is read by lib/bench/official/GareInference1k.py only

# Benchmarks that write their inputs and one output in the check pass (lib/bench.Dump), and the sizes
# they are checked at. The HLFormer and GARE twins build their own weights (the model's parameters are
# not inputs of the Go benchmark), so they are not compared here: lib/crosscheck compares our models
# with the official code from the same weights (figures/crosscheck).
CHECKED = {"MatMul1024": {}, "TransformerBlock": {}, "VolumeMatrix": {}, "HyperbolicVolumeMatrix": {},
           "GramLoss": {}, "GramVolumeMatrix1024": {}, "Rank20k": {}, "StreamEval": {"STREAM_EVAL_ITEMS": "2000"}}
# Agreement: float outputs within REL_TOL of geoalign's (max |difference| / max |geoalign|). Two float32
# computations of the same formula whose reductions run in another order differ by a few float32 ulps
# relative to the largest element; the smoke runs of 2026-11-25 measured ≤ 8e-6 on every side (GRAM's loss
# gradient, through 3×3 determinants), so 1e-4 leaves an order of magnitude and still catches any formula
# error (those are O(1)). Integer outputs (ranks): at least EQUAL_TOL identical, because geoalign counts a
# tie with the ground truth against the query (lib/retrieval) and argsort orders ties arbitrarily: Rank20k's
# uniform float32 scores put a tie in about 0.04 % of the 20,000 rows.
REL_TOL, EQUAL_TOL = 1e-4, 0.999
# Rows computed outside any GoMLX backend (pure Go): one geoalign column only.
NO_BACKEND = {"Rank20k"}

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


def sh(cmd, env=None, check=True):
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


def threads():
    return int(os.environ.get("BENCH_THREADS", "2"))


def pin_cpus():
    """preexec_fn: run the child on the first BENCH_THREADS CPUs it may use (XLA and oneDNN size their
    thread pools from the affinity mask; GOMAXPROCS and torch.set_num_threads are set as well)."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) > threads():
        os.sched_setaffinity(0, cpus[:threads()])


def base_env():
    n = str(threads())
    return dict(os.environ, GOMAXPROCS=n, BENCH_THREADS=n, OMP_NUM_THREADS=n, MKL_NUM_THREADS=n)


def timed(cmd, env=None, cwd=ROOT):
    """Run cmd under /usr/bin/time; return (parsed go-bench line or None, peak RSS MiB, CPU %, result)."""
    with tempfile.NamedTemporaryFile(mode="r", suffix=".rss") as f:
        r = subprocess.run(["/usr/bin/time", "-f", "%M %P", "-o", f.name] + cmd, cwd=cwd, env=env,
                           capture_output=True, text=True, preexec_fn=pin_cpus)
        try:
            kb, cpu = open(f.name).read().strip().splitlines()[-1].split()
            rss_mb, cpu = int(kb) / 1024, float(cpu.rstrip("%"))
        except (ValueError, IndexError):
            rss_mb, cpu = NAN, NAN
    parsed, ns = None, []
    for line in r.stdout.splitlines():
        m = LINE.match(line.strip())
        if m:
            extra = dict((v, float(k)) for k, v in re.findall(r"([\d.]+) (\S+)", m.group(4)))
            ns.append(float(m.group(3)))
            parsed = {"name": m.group(1)[len("BenchmarkPaired"):], "ns": statistics.median(ns), "extra": extra}
    if r.returncode != 0 or parsed is None:
        print(f"  ! {' '.join(cmd[-4:])}: exit {r.returncode}\n{r.stdout[-1500:]}{r.stderr[-1500:]}", file=sys.stderr)
    return parsed, rss_mb, cpu, r


def first_error(r):
    """The most telling line of a failed run's output, for a "not run" / "failed" cell."""
    lines = [l.strip() for l in (r.stderr + "\n" + r.stdout).splitlines() if l.strip()]
    for pat in (r"panic: .*", r".*[Ee]rror.*", r".*failed.*"):
        hit = next((l for l in lines if re.match(pat, l)), None)
        if hit:
            return hit[:160].replace("|", "/")
    return lines[-1][:160].replace("|", "/") if lines else ""


def outcome(parsed, rss, cpu, r):
    """One cell's measurement: ns per op, peak RSS MiB, CPU % of the process, note (why there is no time)."""
    if parsed:
        return {"ns": parsed["ns"], "rss": rss, "cpu": cpu, "note": "", "extra": parsed["extra"]}
    if r.returncode in (-9, 137):
        note = "killed: out of memory"
    else:
        note = f"failed (exit {r.returncode}): {first_error(r)}"
    return {"ns": NAN, "rss": rss, "cpu": cpu, "note": note}


def go_benchmarks(pattern):
    pkgs = {}
    for dirpath, _, files in os.walk(os.path.join(ROOT, "lib")):
        for fn in files:
            if fn.endswith("_test.go"):
                for m in re.finditer(r"^func (BenchmarkPaired\w+)\(", open(os.path.join(dirpath, fn)).read(), re.M):
                    if re.search(pattern, m.group(1)):
                        pkgs.setdefault("./" + os.path.relpath(dirpath, ROOT), []).append(m.group(1))
    return pkgs


def twins(pattern):
    """Workload names with a PyTorch or JAX twin matching pattern."""
    names = set()
    for sub in ("torch", "jax"):
        d = os.path.join(ROOT, "lib", "bench", sub)
        names |= {fn[:-3] for fn in os.listdir(d) if fn.endswith(".py") and not fn.startswith("_")}
    return sorted(n for n in names if re.search(pattern, "BenchmarkPaired" + n))


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


def backend_config(side):
    """GOMLX_BACKEND for a geoalign side, or (None, reason) when it cannot run."""
    if side in ("go", "nosimd"):
        return "go", None
    cfg = os.environ.get("BENCH_XLA_BACKEND", "")
    if not cfg:
        return None, "not run: BENCH_XLA_BACKEND is empty (the Makefile sets it to the plugin of make setup)"
    path = cfg.split(":", 1)[1].split(",")[0] if cfg.startswith("xla:") else ""
    if path.startswith("/") and not os.path.exists(path):
        return None, f"not run: no XLA CPU plugin at {os.path.relpath(path, ROOT)} (make setup installs it)"
    return cfg, None


def describe_backend(cfg, env):
    """lib/bench/backendinfo's JSON for GOMLX_BACKEND=cfg, or (None, error line)."""
    exe = os.path.join(ROOT, "build", "bench", "backendinfo")
    sh(["go", "build", "-o", exe, "./lib/bench/backendinfo"], env=env)
    r = subprocess.run([exe], cwd=ROOT, env=dict(env, GOMLX_BACKEND=cfg), capture_output=True, text=True,
                       preexec_fn=pin_cpus)
    if r.returncode != 0:
        return None, first_error(r)
    return json.loads(r.stdout), None


def peer_python(side, venv):
    if side == "torch1":
        return "/usr/bin/python3"
    return os.path.join(ROOT, venv, "bin", "python")


def peer_versions(venv):
    """Versions of the peers' libraries, read from the interpreters that run them."""
    out = {}
    probe = ("import torch; c = torch.__config__.show(); "
             "print(torch.__version__, 'MKL' if torch.backends.mkl.is_available() else 'no MKL', "
             "'oneDNN' if torch.backends.mkldnn.is_available() else 'no oneDNN', "
             "'OpenBLAS' if 'openblas' in c.lower() else '', sep='|')")
    for side in ("torch1", "torch2"):
        r = sh([peer_python(side, venv), "-c", probe], check=False)
        out[side] = r.stdout.strip().replace("|", ", ").rstrip(", ") if r.returncode == 0 else None
    r = sh([peer_python("jax", venv), "-c", "import jax, jaxlib; print(jax.__version__, jaxlib.__version__)"], check=False)
    out["jax"] = "jax {} / jaxlib {}".format(*r.stdout.split()) if r.returncode == 0 else None
    return out


def measure(args):
    """Run every selected benchmark on every side; return (meta, results, checks):
    results[row][side] = cell (outcome), checks[row][side] = [(output, measure, value)]."""
    env = base_env()
    n_threads = str(threads())
    sides = args.sides
    quick_env = QUICK_ENV if args.quick else {}
    results, checks = {}, {}
    meta_backends = {}
    os.makedirs(os.path.join(ROOT, "build", "bench"), exist_ok=True)

    # Which geoalign backends can run, with their own description.
    runnable = {}
    for side in [s for s in ("go", "xla") if s in sides]:
        cfg, why = backend_config(side)
        if cfg:
            info, err = describe_backend(cfg, env)
            if info is None:
                why = f"not run: GOMLX_BACKEND={cfg} does not load: {err}"
            else:
                meta_backends[side] = {"config": cfg, "description": info["description"], "name": info["name"]}
                runnable[side] = cfg
        if why:
            meta_backends[side] = {"not_run": why}
            print(f"== {SIDES[side][0]}: {why}", flush=True)

    benches = go_benchmarks(args.filter)
    built = {}
    for pkg in benches:
        built[(pkg, "simd")] = test_binary(pkg, "simd", dict(env, GOEXPERIMENT="simd"))
        if pkg == "./lib/bench" and "nosimd" in sides:
            built[(pkg, "nosimd")] = test_binary(pkg, "nosimd", dict(env, GOEXPERIMENT=""))

    def go_run(pkg, name, side, extra_env, benchtime):
        label = "nosimd" if side == "nosimd" else "simd"
        cfg = "go" if side == "nosimd" else runnable[side]
        return timed([built[(pkg, label)], "-test.run", "^$", "-test.bench", f"^{name}$", "-test.benchtime", benchtime,
                      "-test.count", str(args.count)],
                     env=dict(env, GOMLX_BACKEND=cfg, **extra_env), cwd=os.path.join(ROOT, pkg))

    # Check pass: geoalign's dumps, then every twin against them.
    check_root = os.path.join(ROOT, "build", "bench", "check")
    if not args.no_check:
        import shutil
        for pkg, names in sorted(benches.items()):
            for name in names:
                short = name[len("BenchmarkPaired"):]
                if short not in CHECKED:
                    continue
                for side in [s for s in ("go", "xla") if s in runnable] if short not in NO_BACKEND else ["go"]:
                    d = os.path.join(check_root, side)
                    shutil.rmtree(os.path.join(d, short), ignore_errors=True)
                    print(f"== check {short}: geoalign ({side})", flush=True)
                    parsed, _, _, r = go_run(pkg, name, side, dict(CHECKED[short], BENCH_CHECK_DIR=d), "1x")
                    if not parsed:
                        checks.setdefault(short, {})[side] = [("-", "failed", first_error(r))]
                if "xla" in runnable and short not in NO_BACKEND:
                    checks.setdefault(short, {})["xla"] = compare_dumps(os.path.join(check_root, "go", short),
                                                                        os.path.join(check_root, "xla", short))
        for name in twins(args.filter):
            if name not in CHECKED or not os.path.isdir(os.path.join(check_root, "go", name)):
                continue
            for side in [s for s in sides if SIDES[s][1] == "peer"]:
                sub = "jax" if side == "jax" else "torch"
                if not os.path.exists(os.path.join(ROOT, "lib", "bench", sub, name + ".py")):
                    continue
                print(f"== check {name}: {SIDES[side][0]}", flush=True)
                r = subprocess.run([peer_python(side, args.venv), name + ".py"], cwd=os.path.join(ROOT, "lib", "bench", sub),
                                   env=dict(env, BENCH_CHECK_DIR=os.path.join(check_root, "go"), **CHECKED[name]),
                                   capture_output=True, text=True, preexec_fn=pin_cpus)
                lines = [m.groups()[1:] for m in map(CHECK_LINE.match, r.stdout.splitlines()) if m]
                checks.setdefault(name, {})[side] = [(o, k, float(v)) for o, k, v in lines] if r.returncode == 0 and lines \
                    else [("-", "failed", first_error(r))]

    # Timed runs: geoalign on each backend.
    for pkg, names in sorted(benches.items()):
        for name in names:
            short = name[len("BenchmarkPaired"):]
            for side in [s for s in ("go", "xla", "nosimd") if s in sides]:
                if side == "nosimd" and pkg != "./lib/bench":
                    continue
                variants = [("", {})] + ([] if args.quick or side == "nosimd" else SIZE_VARIANTS.get(short, []))
                for size, size_env in variants:
                    row = results.setdefault(short + (f" ({size})" if size else ""), {})
                    if side == "xla" and short in NO_BACKEND:
                        row[side] = {"ns": NAN, "rss": NAN, "cpu": NAN, "note": "n/a: pure Go, no GoMLX backend"}
                        continue
                    if side == "xla" and side not in runnable:  # the reason is in the table's header
                        row[side] = {"ns": NAN, "rss": NAN, "cpu": NAN, "note": "not run (see above)"}
                        continue
                    print(f"   {name} {size} ({side})", flush=True)
                    row[side] = outcome(*go_run(pkg, name, side, dict(quick_env, **size_env), args.benchtime))

    # Timed runs: the peers' twins.
    twin_env = dict(env, **quick_env, **({"BENCH_QUICK": "1"} if args.quick else {}))
    for name in twins(args.filter):
        variants = [("", {})] + ([] if args.quick else SIZE_VARIANTS.get(name, []))
        for size, size_env in variants:
            row = results.setdefault(name + (f" ({size})" if size else ""), {})
            for side in [s for s in sides if SIDES[s][1] == "peer"]:
                sub = "jax" if side == "jax" else "torch"
                if not os.path.exists(os.path.join(ROOT, "lib", "bench", sub, name + ".py")):
                    row[side] = {"ns": NAN, "rss": NAN, "cpu": NAN, "note": "no twin yet"}
                    continue
                print(f"   {name} {size} ({side})", flush=True)
                row[side] = outcome(*timed([peer_python(side, args.venv), name + ".py"], env=dict(twin_env, **size_env),
                                           cwd=os.path.join(ROOT, "lib", "bench", sub)))

    # The official code on PyTorch 2 (lib/bench/official), for the rows of issue 11's table.
    official = {}
    if "official" in sides:
        odir = os.path.join(ROOT, "lib", "bench", "official")
        for label, name, _, _ in OFFICIAL:
            if not re.search(args.filter, "BenchmarkPaired" + name) or not os.path.exists(os.path.join(odir, name + ".py")):
                continue
            print(f"   {name} (official code, PyTorch 2)", flush=True)
            parsed, rss, cpu, r = timed([peer_python("torch2", args.venv), name + ".py"], env=twin_env, cwd=odir)
            cell = outcome(parsed, rss, cpu, r)
            not_run = next((l[len("NOT RUN: "):] for l in r.stdout.splitlines() if l.startswith("NOT RUN: ")), None)
            if not_run:
                cell["note"] = "not run: " + not_run
            official[name] = cell
        commits = {n: sh(["git", "-C", os.path.join(ROOT, "build", "official", n), "rev-parse", "--short=12", "HEAD"],
                         check=False).stdout.strip() or "missing" for n in ("hlformer", "geoopt", "gare", "gram")}
    cpu, isa = machine()
    meta = {
        "date": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}",
        "commit": sh(["git", "rev-parse", "--short", "HEAD"], check=False).stdout.strip(),
        "cpu": f"{cpu} ({isa})", "isa": isa, "cores": os.cpu_count(), "threads": n_threads,
        "gomlx": next((l.split()[1] for l in open(os.path.join(ROOT, "go.mod")) if "github.com/gomlx/gomlx " in l), "?"),
        "go": sh(["go", "version"], env=env, check=False).stdout.strip(),
        "backends": meta_backends, "peers": peer_versions(args.venv), "sides": sides,
        "benchtime": args.benchtime, "count": args.count, "quick": args.quick,
    }
    if official:
        meta["official_torch2"] = {
            "header": f"{meta['date']}, this machine, PyTorch {meta['peers'].get('torch2')}, {n_threads} threads; checkouts "
                      + ", ".join(f"{n} {c}" for n, c in commits.items()),
            "rows": official,
            "notes": ["Official code on PyTorch 2: what each row runs, and what is done around the code, is in the "
                      "docstring of lib/bench/official/<row>.py (HLFormer: _hlformer.py; GARE: lib/crosscheck/official_gare.py's "
                      "PATCHES). The ranking row times the sort of GRAM's compute_metric_ret on the whole matrix; its "
                      "Python list search is replaced by the same search as a tensor operation."]}
    return meta, results, checks


def compare_dumps(ref_dir, other_dir):
    """XLA-CPU's check outputs against the Go backend's: the arrays both wrote that the Go benchmark
    computed (not its inputs, which are the same random tensors)."""
    import numpy as np
    out = []
    if not os.path.isdir(other_dir):
        return [("-", "failed", "no dump")]
    inputs = {"x", "y", "target", "anchor", "video", "audio", "text", "tau", "txt", "vid", "scores"} | {f"w{i}" for i in range(64)}
    for fn in sorted(os.listdir(ref_dir)):
        name = fn[:-4]
        if name in inputs or not os.path.exists(os.path.join(other_dir, fn)):
            continue
        ref, got = np.load(os.path.join(ref_dir, fn)), np.load(os.path.join(other_dir, fn))
        if ref.dtype.kind in "iu":
            out.append((name, "equal", float(np.mean(ref == got))))
        else:
            scale = max(float(np.max(np.abs(ref))), np.finfo(np.float32).tiny)
            out.append((name, "rel", float(np.max(np.abs(got.astype(np.float64) - ref))) / scale))
    return out


def check_cell(row_checks):
    """The table's "agrees with geoalign" cell: each side that was compared, ✓ or ✗ with its worst value."""
    if not row_checks:
        return "—"
    cells = []
    for side in ("go", "xla", "torch2", "jax", "torch1"):
        if side not in row_checks:
            continue
        items = row_checks[side]
        bad = [i for i in items if i[1] == "failed" or (i[1] == "rel" and not i[2] <= REL_TOL) or (i[1] == "equal" and not i[2] >= EQUAL_TOL)]
        rels = [i[2] for i in items if i[1] == "rel"]
        eqs = [i[2] for i in items if i[1] == "equal"]
        worst = (f" {max(rels):.0e}" if rels else "") + (f" {100 * min(eqs):.2f}% equal" if eqs else "")
        short = {"go": "geoalign's dump", "xla": "XLA", "torch2": "PT2", "jax": "JAX", "torch1": "PT1.13"}[side]
        if any(i[1] == "failed" for i in items):
            cells.append(f"{short} ✗ (check failed)")
        else:
            cells.append(f"{short} {'✗' if bad else '✓'}{worst}")
    return "; ".join(cells)


def row_key(name):
    """Rows by workload; a workload's default row first, then its variants in SIZE_VARIANTS order."""
    base, _, size = name.partition(" (")
    sizes = [s for s, _ in SIZE_VARIANTS.get(base, [])]
    return (base, sizes.index(size[:-1]) + 1 if size[:-1] in sizes else 0)


def cell_time(c):
    if c is None:
        return "—"
    return c["note"] if c.get("note") else fmt_time(c["ns"])


def best(row, keys):
    """(side, ns) of the fastest measured side among keys, or (None, NaN)."""
    got = [(row[k]["ns"], k) for k in keys if k in row and row[k]["ns"] == row[k]["ns"]]
    return (min(got)[1], min(got)[0]) if got else (None, NAN)


def render(meta, results, checks):
    """figures/bench.md's text from one run's meta, results and checks."""
    sides = [s for s in ("go", "xla", "torch2", "jax", "torch1") if s in meta["sides"]]
    # The machine's measured matmul peak: the best 1024³ float32 GFLOP/s any side reached in this run.
    flop = {"MatMul1024": 2 * 1024 ** 3}
    tb = results.get("TransformerBlock", {}).get("go", {})
    if tb.get("extra", {}).get("GFLOP/s"):
        flop["TransformerBlock"] = tb["extra"]["GFLOP/s"] * tb["ns"]  # the benchmark's closed form (bench_test.go)
    mm = results.get("MatMul1024", {})
    rates = [flop["MatMul1024"] / v["ns"] for v in mm.values() if isinstance(v, dict) and v.get("ns", NAN) == v.get("ns", NAN)]
    peak = max(rates) if rates else NAN

    head = "| workload | " + " | ".join(f"{SIDES[s][0]} time | {SIDES[s][0]} peak RSS" if s != "torch1" else f"{SIDES[s][0]} time"
                                        for s in sides)
    head += " | geoalign best ÷ fastest peer | fraction of measured matmul peak | agrees with geoalign (check pass) |"
    ncols = head.count("|") - 1
    rows = []
    for name in sorted(results, key=row_key):
        r = results[name]
        cells = []
        for s in sides:
            c = r.get(s)
            cells.append(cell_time(c))
            if s != "torch1":
                cells.append(fmt_mb(c["rss"]) if c else "—")
        gs, gns = best(r, GEOALIGN_BACKENDS)
        ps, pns = best(r, CURRENT_PEERS)
        ratio = f"{pns / gns:.2f}× ({SIDES[gs][0]} vs {SIDES[ps][0]})" if gs and ps else "—"
        frac = "—"
        base = name.partition(" (")[0]
        if base in flop and peak == peak and base == name:
            frac = ", ".join(f"{SIDES[s][0]} {100 * flop[base] / r[s]['ns'] / peak:.0f}%" for s in sides
                             if s in r and r[s]["ns"] == r[s]["ns"])
        rows.append(f"| {name} | " + " | ".join(cells) + f" | {ratio} | {frac} | {check_cell(checks.get(base) if base == name else None)} |")

    b = meta.get("backends", {})
    def backend_line(side):
        v = b.get(side, {})
        return v.get("not_run") or f"GOMLX_BACKEND={v.get('config')} ({v.get('description')})"
    p = meta.get("peers", {})
    out = ["# geoalign paired benchmarks", ""]
    if meta.get("quick"):
        out += ["**Quick smoke run (run.py --quick): -benchtime 1x, one repetition per twin, reduced sizes "
                f"({', '.join(f'{k}={v}' for k, v in QUICK_ENV.items())}), no size variants. Not for publication.**", ""]
    out += [
        f"Generated by `make bench` on {meta['date']} at commit {meta.get('commit', '?')}. Machine: {meta['cpu']}, {meta['cores']} cores; "
        f"every process runs on {meta['threads']} CPUs (affinity) with {meta['threads']} threads (GOMAXPROCS, "
        "torch.set_num_threads, OMP_NUM_THREADS, MKL_NUM_THREADS; XLA sizes its pools from the affinity).",
        f"geoalign: GoMLX {meta['gomlx']}, {meta['go']}, GOEXPERIMENT=simd; Go backend: {backend_line('go')}; "
        f"XLA-CPU: {backend_line('xla')}. Time = ns/op of `go test -bench` (-benchtime {meta['benchtime']}"
        + (f", the median of -count {meta['count']} such runs"
           + (" in the cells this run re-timed" if meta.get("reused") else "") if meta.get("count", 1) > 1 else "") + ", after one "
        "compile/warm-up run).",
    ] + ([reused_line(meta["reused"])] if meta.get("reused") else []) + [
        f"Peers (twins in lib/bench/torch and lib/bench/jax, median of their repetitions after warm-up; JAX "
        f"functions jit-compiled, outputs waited for with block_until_ready): PyTorch 2 = {p.get('torch2') or 'not installed'}; "
        f"JAX = {p.get('jax') or 'not installed'} (CPU)"
        + (f"; PyTorch 1.13 = Debian python3-torch {p.get('torch1') or 'not installed'}. " if "torch1" in sides else
           " (Debian's PyTorch 1.13 is no longer timed: PyTorch 2 supersedes it as the baseline). ") +
        "Peak RSS of the whole process from /usr/bin/time.",
        "Inputs are random (synthetic) at the shapes given in each benchmark's doc comment.",
        "",
        head,
        "|" + "---|" * ncols,
    ] + rows + [
        "",
        (f"Measured matmul peak: the best 1024³ float32 rate any side reached in this run, {peak:.0f} GFLOP/s"
         "; the fraction of it each side reached on the matmul-bound rows (TransformerBlock at its nominal "
         "88.2 GFLOP per step, lib/bench/bench_test.go)." if peak == peak else ""),
        "geoalign best ÷ fastest peer = the fastest current peer's time (PyTorch 2 or JAX) / the time of geoalign's "
        "faster backend (> 1: geoalign is faster); Debian's PyTorch 1.13 is shown for comparison with the issue-11 "
        "table and is not a peer in the ratio.",
        f"Check pass: every row with a check ran geoalign once with its inputs and one output written to files "
        f"(lib/bench/check.go); each twin recomputed from the same inputs. ✓: float outputs within {REL_TOL:g} of "
        f"geoalign's (max |difference| / max |geoalign|, the worst printed), ranks ≥ {100 * EQUAL_TOL:g}% identical; "
        "XLA = XLA-CPU's output against the Go backend's. Sizes of the check: " +
        "; ".join(f"{k} {' '.join(f'{a}={b}' for a, b in v.items())}" for k, v in CHECKED.items() if v) +
        ". GARE and HLFormer rows have no check here: their twins build their own weights; lib/crosscheck compares "
        "the models with the official code from the same weights (figures/crosscheck).",
        "Rows with a size in parentheses run the same workload smaller, or another variant of our step, on "
        "every side (the twins read the sizes; the environment: " + "; ".join(f"{n} ({s}): {' '.join(f'{k}={v}' for k, v in e.items())}" for n, vs in SIZE_VARIANTS.items() for s, e in vs)
        + "); a time cell saying \"killed: out of memory\" is a run the kernel's OOM killer stopped, its RSS cell the peak reached.",
    ]
    nosimd = [(n, r["nosimd"]) for n, r in sorted(results.items()) if "nosimd" in r]
    if nosimd:
        out.append("Go backend built without GOEXPERIMENT=simd (what SIMD buys): " +
                   "; ".join(f"{n} {cell_time(c)} (vs {cell_time(results[n].get('go'))} with SIMD)" for n, c in nosimd) + ".")
    out += curve_lines(results, sides) + official_lines(meta, results)
    if meta.get("provenance"):
        out[2:2] = [meta["provenance"], ""]
    return "\n".join(out) + "\n"


def curve_lines(results, sides):
    """The streaming-evaluation curve (issue 11: constant memory as corpora grow), one line per side."""
    points = [(1000, "StreamEval (1k items)"), (5000, "StreamEval (5k items)"), (10000, "StreamEval (10k items)"), (20000, "StreamEval")]
    points = [(n, results[row]) for n, row in points if row in results]
    if len(points) < 2:
        return []
    out = ["", "Streaming evaluation from embeddings as the corpus grows (StreamEval rows; items: time, peak RSS). "
           "geoalign scores a block at a time and ranks as it goes; the twins do what the official scripts do "
           "(the full score matrix, then argsort):"]
    for s in sides:
        cells = [f"{n // 1000}k: {cell_time(r.get(s))}, {fmt_mb(r[s]['rss']) if s in r else '—'}" for n, r in points if s in r]
        if cells:
            out.append(f"- {SIDES[s][0]}: " + "; ".join(cells) + ".")
    return out


def fmt_decimal(mib):
    """MiB as decimal MB/GB (10⁶ / 10⁹ bytes), the units of issue 11's table."""
    if mib != mib:
        return "—"
    b = mib * 2 ** 20
    return f"{b / 1e6:.0f} MB" if b < 1e9 else f"{b / 1e9:.2f} GB"


def official_lines(meta, results):
    """Issue 11's table with our numbers from this run beside the official code's, ratios and the goal;
    with the official code re-timed on PyTorch 2 (lib/bench/official, figures/bench-official.json) when present."""
    out = ["", "## Against the official code (issue 11's table)", ""]
    if meta.get("isa") and meta["isa"] != "AVX-512":
        out += [f"**Not like for like:** this run's CPU has {meta['isa']} and no AVX-512, unlike the machine kind "
                "the issue-11 official times were measured on (Zen 4 with AVX-512); the "
                "ratios against those columns compare two machines. The twin columns above are the like-for-like comparison.", ""]
    off2 = meta.get("official_torch2", {})
    out += [
        "The *official (issue 11)* columns are issue 11's measurements of the papers' official PyTorch code "
        "(Debian torch 1.13 + OpenBLAS, 2 threads, a Zen 4), not this run. "
        + (f"The *official on PyTorch 2* columns are the same code re-timed by lib/bench/official ({off2.get('header', '')})."
           if off2 else "The official code was not re-timed on PyTorch 2 in this run (run.py --sides official, lib/bench/official).")
        + " The geoalign columns are this run's default rows on geoalign's faster backend. Goal: less time and at most half the "
        "memory. Memory in this table is in decimal units (1 GB = 10⁹ bytes; the issue's GB read that way, the stricter "
        "reading), unlike the binary MB/GB of the table above.", "",
        "| workload (issue 11) | official (issue 11) time | official (issue 11) peak memory | official on PyTorch 2 time "
        "| official on PyTorch 2 peak RSS | geoalign time | geoalign peak RSS "
        "| speed-up vs official on PyTorch 2 | memory ratio (ours / official on PyTorch 2) | goal met (vs PyTorch 2) |",
        "|---|---|---|---|---|---|---|---|---|---|"]
    for label, row, secs, gb in OFFICIAL:
        r = results.get(row, {})
        gs, ns = best(r, GEOALIGN_BACKENDS)
        rss = r[gs]["rss"] if gs else NAN
        o = off2.get("rows", {}).get(row, {})
        ons, orss = o.get("ns", NAN), o.get("rss", NAN)
        speed = ons / ns if ns == ns and ons == ons else NAN
        mem = rss / orss if rss == rss and orss == orss else NAN
        if ns != ns or ons != ons:
            goal = "—"
        else:
            goal = "yes" if speed > 1 and mem <= 0.5 else "no"
        off_mb = gb * MIB_PER_GB if gb else NAN
        out.append(f"| {label} | {fmt_time(secs * 1e9)} | {fmt_decimal(off_mb)} | {o.get('note') or fmt_time(ons)} | {fmt_decimal(orss)} "
                   f"| {fmt_time(ns)}{f' ({SIDES[gs][0]})' if gs else ''} | {fmt_decimal(rss)} "
                   f"| {'—' if speed != speed else f'{speed:.2f}×'} | {'—' if mem != mem else f'{mem:.2f}'} | {goal} |")
    if off2.get("notes"):
        out += [""] + [f"- {n}" for n in off2["notes"]]
    return out


def load(raw):
    """A stored run; a run stored before issue 32 (sides simd/torch/torch_passive as lists) is converted."""
    stored = json.load(open(raw))
    meta, results, checks = stored["meta"], stored["results"], stored.get("checks", {})
    rename = {"simd": "go", "torch": "torch1", "nosimd": "nosimd"}
    for name, r in results.items():
        for side in list(r):
            v = r[side]
            if isinstance(v, list):
                del r[side]
                if side in rename:
                    r[rename[side]] = {"ns": v[0], "rss": v[1], "note": v[2], "cpu": NAN}
        if "extra" in r and isinstance(r.get("go"), dict):
            r["go"]["extra"] = r.pop("extra")
    meta.setdefault("sides", ["go", "nosimd", "torch1"])
    return meta, results, checks


def reused_line(u):
    """The header's sentence on which cells a --reuse run re-timed and which it took from the stored run,
    and, where that run was itself completed from an earlier one (u["earlier"]), the same for it."""
    layers = [u]
    while layers[-1].get("earlier"):
        layers.append(layers[-1]["earlier"])
    retimed = lambda l: "; ".join(f"{name} ({', '.join(SIDES[s][0] for s in sides)})" for name, sides in sorted(l["retimed"].items()))
    out = (f"{len(layers) + 1} runs on this machine (run.py --reuse): this run re-timed {retimed(u)}; every other cell"
           + (" (the columns " + ", ".join(SIDES[s][0] for s in u["sides"]) + " among them)" if u["sides"] else "")
           + f" is from the run of {u['date']} at commit {u['commit']}")
    for l in layers[1:]:
        out += (f", which itself re-timed {retimed(l)} and took every other cell from the run of {l['date']} at commit "
                f"{l['commit']}")
    return out + "."


def reuse(path, meta, results, checks):
    """meta, results, checks completed from the stored run at path: every cell this run did not measure
    (a side not in --sides, or a row --filter left out) is taken from it, with its checks, and the sides
    this run did not measure bring their versions and the official-code section; meta["reused"] says what
    came from where."""
    old_meta, old_results, old_checks = load(os.path.join(ROOT, path) if not os.path.isabs(path) else path)
    if old_meta.get("cpu") != meta.get("cpu") or old_meta.get("threads") != meta.get("threads"):
        sys.exit(f"run.py: --reuse {path}: measured on {old_meta.get('cpu')} with {old_meta.get('threads')} threads, "
                 f"this run on {meta.get('cpu')} with {meta.get('threads')}: not comparable")
    measured = {name: sorted(r) for name, r in results.items()}
    taken = [s for s in old_meta.get("sides", []) if s not in meta["sides"]]
    for name, r in old_results.items():
        for side, cell in r.items():
            results.setdefault(name, {}).setdefault(side, cell)
        for side, c in old_checks.get(name, {}).items():
            checks.setdefault(name, {}).setdefault(side, c)
    if "official" in taken and "official_torch2" in old_meta:
        meta["official_torch2"] = old_meta["official_torch2"]
    meta["peers"] = {k: v for k, v in old_meta.get("peers", {}).items() if k in taken} | \
        {k: v for k, v in meta.get("peers", {}).items() if k not in taken}
    meta["sides"] = [s for s in SIDES if s in meta["sides"] or s in taken]
    meta["reused"] = {"sides": taken, "retimed": measured, "date": old_meta.get("date"), "commit": old_meta.get("commit"),
                      "earlier": old_meta.get("reused")}
    return meta, results, checks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="figures/bench.md")
    ap.add_argument("--venv", default="build/bench-venv", help="the peers' Python environment (make bench creates it)")
    ap.add_argument("--filter", default=".")
    ap.add_argument("--benchtime", default=os.environ.get("BENCHTIME", "3x"))
    ap.add_argument("--count", type=int, default=1,
                    help="run each Go benchmark this many times (-test.count) and take the median of their ns/op, "
                         "as the twins take the median of their repetitions")
    ap.add_argument("--sides", default="go,xla,nosimd,torch2,jax,official",
                    help="comma-separated: " + ",".join(SIDES))
    ap.add_argument("--no-check", action="store_true", help="skip the check pass")
    ap.add_argument("--quick", action="store_true", help="smoke run of the harness; writes build/bench/quick.md")
    ap.add_argument("--reuse", default="", help="take the sides not in --sides from this stored run (<out>.json)")
    ap.add_argument("--render-only", action="store_true",
                    help="re-render the table from the run stored beside --out (<out>.json), measuring nothing")
    args = ap.parse_args()
    args.sides = [s for s in args.sides.split(",") if s]
    if bad := [s for s in args.sides if s not in SIDES]:
        sys.exit(f"run.py: --sides: unknown side(s) {bad}; known: {', '.join(SIDES)}")
    if args.quick:
        args.benchtime = "1x"
        if args.out.startswith("figures/"):  # a smoke run never writes the committed table
            args.out = "build/bench/quick.md"
        args.sides = [s for s in args.sides if s != "nosimd"]
    dst = os.path.join(ROOT, args.out)
    raw = os.path.splitext(dst)[0] + ".json"  # the run's measurements, so the table can be re-rendered
    if args.render_only:
        meta, results, checks = load(raw)
    else:
        if any(SIDES[s][1] == "peer" and s != "torch1" for s in args.sides) and not os.path.exists(peer_python("torch2", args.venv)):
            sys.exit(f"run.py: no Python at {args.venv}/bin/python: run `make bench` (it creates the venv), or pass --venv")
        meta, results, checks = measure(args)
        if args.reuse:
            meta, results, checks = reuse(args.reuse, meta, results, checks)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(raw, "w") as f:  # NaN (a run without a time) is written as JSON NaN, which json reads back
            json.dump({"meta": meta, "results": results, "checks": checks}, f, indent=1, sort_keys=True)
    text = render(meta, results, checks)
    open(dst, "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
