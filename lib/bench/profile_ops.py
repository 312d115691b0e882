#!/usr/bin/python3
"""make profile: where the time of the heavy paired benchmarks goes, by GoMLX Go-backend op.

Each workload's benchmark binary (the same `go test -c` build as make bench, GOEXPERIMENT=simd) runs
once under the Go CPU profiler; every sample's stack is attributed to the first frame from the leaf
that names an op family of the Go backend (matmul micro-kernels, matmul packing, transposes,
element-wise ops, …), or to the Go collector, or to work outside the backend (data generation, graph
building and compilation: the warm-up run compiles). Shares are given of the time inside the backend's
executions, so the compile of the warm-up run does not dilute them (the warm-up and the timed run
execute the same graphs). The table goes to figures/profile.md with the machine it ran on; CPU time
is summed over both cores.

XLA-CPU (issue 32, issue 29's "where each backend spends time on the two training steps"): the XLA plugin
has no symbols and its work runs on XLA's own threads, where the Go profiler sees only "external code", so
the training steps (XLA_WORKLOADS) run under Linux `perf record` instead, with GOMLX_BACKEND=$BENCH_XLA_BACKEND.
Each is recorded twice, with -test.benchtime 1x and 3x (one compile + warm-up run in both), and the
difference of the two recordings — two steady-state steps, no compilation — is split by the binary each
sample's instruction belongs to: the plugin's own code (XLA runtime and its library kernels: Eigen/oneDNN
matmuls, the PJRT client), code XLA generated at compile time (its fusions, and dots it emits itself,
mapped anonymously), the Go test binary (GoMLX graph building and execution glue, host-side data), libc
and the kernel. XLA_FLAGS=--xla_dump_to also lists the programs XLA compiled per workload (a chunked step
compiles several). Skipped, with the reason in the file, when the plugin is missing or perf cannot record.

Usage: profile_ops.py [--out figures/profile.md] [--filter REGEX] [--backends go,xla]
"""
import argparse, collections, datetime, os, re, subprocess, sys

from run import LINE, ROOT, machine, test_binary  # make bench's runner: same binaries, parser, machine line

# (row label, package, benchmark, environment): sizes are reduced where the full workload takes
# minutes on 2 cores; the op mix of these models does not depend on the batch size beyond the
# attention's quadratic terms (reported shapes are in the benchmarks' doc comments).
WORKLOADS = [
    ("GareTrainStep (chunked, 128 × 128)", "./lib/models/gare", "BenchmarkPairedGareTrainStep", {}),
    ("GareTrainStep (single graph, 128 × 128)", "./lib/models/gare", "BenchmarkPairedGareTrainStep", {"GARE_BENCH_TEXT_CHUNK": "-1"}),
    ("GareInference1k", "./lib/models/gare", "BenchmarkPairedGareInference1k", {}),
    ("HLFormerTrainStep (chunked, 32 videos)", "./lib/models/hlformer", "BenchmarkPairedHLFormerTrainStep", {"HLFORMER_BENCH_VIDEOS": "32"}),
    ("HLFormerEval (256 videos, 713 queries)", "./lib/models/hlformer", "BenchmarkPairedHLFormerEval", {"HLFORMER_BENCH_EVAL_VIDEOS": "256"}),
    ("TransformerBlock", "./lib/bench", "BenchmarkPairedTransformerBlock", {}),
]

# Op families, matched against each frame from the leaf upwards; the first match names the sample.
FAMILIES = [
    (r"gobackend/dot/matmul.*[Pp]ack", "matmul packing"),
    (r"gobackend/dot/matmul/.*(Kernel|Large|Small|Tile).*(Asm|Float)", "matmul micro-kernels"),
    (r"gobackend/dot", "DotGeneral other (layout, epilogue)"),
    (r"fusedops/dense", "FusedDense / FusedDenseVJP (bias, transposes)"),
    (r"fusedops.*[Ss]oftmax", "softmax (fused)"),
    (r"fusedops.*LayerNorm", "layer norm (fused)"),
    (r"fusedops|activations", "other fused ops and activations"),
    (r"gobackend/ops\.(execTranspose|transpose|\(\*TransposeIterator\))", "Transpose"),
    (r"gobackend/ops[/\w]*\.(exec)?[Rr]educe|ArgMinMax", "reductions"),
    (r"gobackend/ops\.exec(Gather|Scatter)|gobackend/ops\.(gather|scatter)", "Gather / Scatter"),
    (r"RNGBitGenerator", "RNG (dropout masks)"),
    (r"gobackend/ops\.exec(Add|Sub|Mul|Div|Max|Min|Pow|Rem)|gobackend/ops.*[Bb]inary|gobackend/ops[/\w]*\.simd\w*(Add|Sub|Mul|Div|Max|Min)",
     "element-wise binary"),
    (r"gobackend/ops\.exec(Logistic|Exp|Log|Neg|Abs|Sqrt|Rsqrt|Tanh|Erf|Sign|Cos|Sin|Floor|Ceil|Round)|simdUnary|simdmath",
     "element-wise unary"),
    (r"gobackend/ops[/\w]*\.(exec)?(BroadcastInDim|[Bb]roadcast|[Rr]eshape|Concatenate|[Ss]lice|Pad|[Ww]here|ConvertDType|"
     r"Iota|Less|Greater|Equal|NotEqual|Reverse|Identity|Clamp)", "broadcast, reshape, slice, concat, select, convert"),
]
# A sample none of whose frames names an op family but which runs inside the backend: the executor's
# scheduling, worker pool, buffer pool.
BACKEND = re.compile(r"gobackend")
BACKEND_OWN, GO_COLLECTOR, OUTSIDE = ("backend scheduling and buffers", "Go collector",
                                      "outside the backend (data, graph build, compile, glue)")
GC = re.compile(r"runtime\.(gcBgMarkWorker|GC$|gcDrain|bgsweep|gcStart)")
COMPILED = [(re.compile(p), name) for p, name in FAMILIES]


def parse_traces(text):
    """Yield (seconds, frames leaf-first) from `go tool pprof -traces`."""
    units = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
    for block in text.split("-----------+-------------------------------------------------------")[1:]:
        lines = [l for l in block.split("\n") if l.strip()]
        if not lines:
            continue
        m = re.match(r"\s*([\d.]+)(s|ms|us|µs|ns)\s+(.*)$", lines[0])
        if not m:
            continue
        yield float(m.group(1)) * units[m.group(2)], [m.group(3).strip()] + [l.strip() for l in lines[1:]]


def classify(frames):
    """(family, inside an execution?) of one sample's stack: the op family named by the frame nearest
    the leaf (a memclr under GetBuffer under execWhere is execWhere's), else the backend's own
    machinery, the Go collector, or work outside the backend."""
    for f in frames:
        for rx, name in COMPILED:
            if rx.search(f):
                return name, True
    if any(BACKEND.search(f) for f in frames):
        return BACKEND_OWN, True
    if any(GC.search(f) for f in frames):
        return GO_COLLECTOR, False
    return OUTSIDE, False


def profile_one(label, pkg, bench, env_extra, work, built):
    env = dict(os.environ, GOMAXPROCS=os.environ.get("BENCH_THREADS", "2"), **env_extra)
    if pkg not in built:
        built[pkg] = test_binary(pkg, "simd", dict(env, GOEXPERIMENT="simd"))
    bin_path = built[pkg]
    prof = os.path.join(work, re.sub(r"\W+", "_", label) + ".cpu")
    r = subprocess.run([bin_path, "-test.run", "^$", "-test.bench", f"^{bench}$", "-test.benchtime", "1x",
                        "-test.cpuprofile", prof], cwd=os.path.join(ROOT, pkg), env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"profile: {label} failed:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    ns = next((float(m.group(3)) for m in map(LINE.match, map(str.strip, r.stdout.splitlines())) if m), float("nan"))
    traces = subprocess.run(["go", "tool", "pprof", "-traces", bin_path, prof], cwd=ROOT, env=env,
                            capture_output=True, text=True, check=True).stdout
    # "Duration: 106.45s, Total samples = 116.56s (109.49%)": samples per wall second = cores busy.
    m = re.search(r"Total samples = [\d.]+\w+ \(([\d.]+)%\)", traces)
    busy = float(m.group(1)) / 100 if m else float("nan")
    fam, exec_total, total = collections.Counter(), 0.0, 0.0
    for secs, frames in parse_traces(traces):
        name, inside = classify(frames)
        fam[name] += secs
        total += secs
        exec_total += secs if inside else 0
    return ns, fam, exec_total, total, busy


# XLA-CPU: the two training steps (issue 29), at the Go section's sizes.
XLA_WORKLOADS = [w for w in WORKLOADS if "TrainStep" in w[0]]


def dso_family(dso, binary):
    """The table row of one perf DSO (the binary a sample's instruction belongs to)."""
    if "pjrt" in dso or dso.endswith("_plugin.so"):
        return "XLA plugin: runtime and library kernels (Eigen/oneDNN matmuls, PJRT client)"
    if dso.startswith(("[JIT]", "[unknown]", "//anon", "[anon", "perf-", "memfd:", "/memfd:")):
        return "code generated by XLA at compile time (its fusions, and the dots it emits itself)"
    if os.path.basename(dso) == os.path.basename(binary):
        return "Go test binary (GoMLX graph build and execution glue, host data)"
    if re.match(r"lib(c|m|pthread|stdc\+\+|gcc_s)[.-]|ld-linux", os.path.basename(dso)):
        return "libc, libm, libstdc++ (memcpy, malloc, math)"
    if dso.startswith("[kernel") or dso in ("[vdso]",):
        return "kernel"
    return "other: " + os.path.basename(dso)


def perf_samples(cmd, env, cwd, out):
    """Run cmd under perf record (user-space samples at 999 Hz, all threads); {DSO: samples}, ns/op."""
    r = subprocess.run(["perf", "record", "-q", "-F", "999", "-o", out, "--"] + cmd, cwd=cwd, env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"perf record {' '.join(cmd[-4:])}: exit {r.returncode}: {(r.stderr or r.stdout)[-500:]}")
    ns = next((float(m.group(3)) for m in map(LINE.match, map(str.strip, r.stdout.splitlines())) if m), float("nan"))
    rep = subprocess.run(["perf", "report", "-i", out, "--stdio", "--sort", "dso", "-n", "--percent-limit", "0"],
                         capture_output=True, text=True, check=True).stdout
    counts = {}
    for line in rep.splitlines():
        m = re.match(r"^\s*([\d.]+)%\s+(\d+)\s+(.+?)\s*$", line)
        if m:
            counts[m.group(3)] = counts.get(m.group(3), 0) + int(m.group(2))
    return counts, ns


def profile_xla(label, pkg, bench, env_extra, work, built, cfg):
    """(ns of the timed steps, {family: samples of two steady-state steps}, programs XLA compiled)."""
    env = dict(os.environ, GOMAXPROCS=os.environ.get("BENCH_THREADS", "2"), GOMLX_BACKEND=cfg,
               GOMLX_NO_AUTO_INSTALL="1", **env_extra)
    if pkg not in built:
        built[pkg] = test_binary(pkg, "simd", dict(env, GOEXPERIMENT="simd"))
    tag = re.sub(r"\W+", "_", label)
    dump = os.path.join(work, "xla-dump", tag)
    runs = {}
    for n in (1, 3):
        e = dict(env, XLA_FLAGS=(env.get("XLA_FLAGS", "") + f" --xla_dump_to={dump}").strip()) if n == 1 else env
        runs[n] = perf_samples([built[pkg], "-test.run", "^$", "-test.bench", f"^{bench}$", "-test.benchtime", f"{n}x"],
                               e, os.path.join(ROOT, pkg), os.path.join(work, f"{tag}.{n}x.perf"))
    fam = collections.Counter()
    for dso in set(runs[3][0]) | set(runs[1][0]):
        fam[dso_family(dso, built[pkg])] += runs[3][0].get(dso, 0) - runs[1][0].get(dso, 0)
    programs = sorted({m.group(1) for f in (os.listdir(dump) if os.path.isdir(dump) else [])
                       for m in [re.match(r"module_\d+\.(.+?)\.", f)] if m})
    return runs[3][1], fam, programs


def xla_section(args, work, built):
    """The XLA-CPU part of profile.md: per training step, the split of two steady-state steps by binary."""
    cfg = os.environ.get("BENCH_XLA_BACKEND", "")
    path = cfg.split(":", 1)[1].split(",")[0] if cfg.startswith("xla:") else ""
    out = ["# XLA-CPU backend: where the training steps spend their time", ""]
    if not cfg or (path.startswith("/") and not os.path.exists(path)):
        return out + [f"Not run: no XLA CPU plugin ({cfg or 'BENCH_XLA_BACKEND unset'}; make setup installs "
                      "build/pjrt/pjrt_c_api_cpu_plugin.so).", ""]
    out += [f"GOMLX_BACKEND={cfg}. Each step was recorded with `perf record -F 999` (user space, every thread) at "
            "-test.benchtime 1x and 3x; the table splits the difference — two steady-state steps, compilation excluded — "
            "by the binary each sample ran in. The plugin has no symbols, so its matmul kernels and its runtime are one "
            "row; the time of XLA's generated fusions is the anonymous-code row.", ""]
    for label, pkg, bench, env_extra in XLA_WORKLOADS:
        if not re.search(args.filter, label):
            continue
        print(f"== profile {label} (XLA-CPU)", flush=True)
        try:
            ns, fam, programs = profile_xla(label, pkg, bench, env_extra, work, built, cfg)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as e:  # OSError: no perf on this machine
            out += [f"## {label}", "", f"Not run: {str(e)[:300]}", ""]
            continue
        total = sum(v for v in fam.values() if v > 0)
        out += [f"## {label}", "", f"Timed run (3 steps, under perf): {ns / 1e9:.2f} s per step. Programs XLA compiled "
                f"({len(programs)}): {', '.join(programs) or '—'}.", "",
                "| where | share of two steady-state steps | samples |", "|---|---|---|"]
        for name, v in sorted(fam.items(), key=lambda kv: -kv[1]):
            if v > 0 and total and v / total >= 0.005:
                out.append(f"| {name} | {100 * v / total:.1f}% | {v} |")
        out.append("")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="figures/profile.md")
    ap.add_argument("--filter", default=".")
    ap.add_argument("--backends", default="go,xla", help="go: the Go CPU profile by op family; xla: perf by binary")
    args = ap.parse_args()
    backends = args.backends.split(",")
    work = os.path.join(ROOT, "build", "profile")
    os.makedirs(work, exist_ok=True)
    cpu, isa = machine()
    built = {}  # package -> test binary, built once per run
    fam_cols = [name for _, name in FAMILIES] + [BACKEND_OWN]
    out = ["# Where the time goes: CPU profiles of the heavy benchmarks by Go-backend op family", "",
           f"Generated by `make profile` on {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}. "
           f"Machine: {cpu} ({isa}), {os.cpu_count()} cores, GOMAXPROCS={os.environ.get('BENCH_THREADS', '2')}; "
           f"GOEXPERIMENT=simd, GOMLX_BACKEND={os.environ.get('GOMLX_BACKEND', '?')}. Random inputs at the benchmarks' shapes.",
           "",
           "Each benchmark ran once under the Go CPU profiler (warm-up run, which compiles, plus one timed run). "
           "A sample is attributed to the first frame from the leaf that names an op family of GoMLX's Go backend; "
           "shares are of the CPU time inside the backend's executions (both cores summed), so compilation "
           "does not dilute them. Profiling costs a few per cent of speed; the times are the timed run's.", ""]
    for label, pkg, bench, env_extra in WORKLOADS if "go" in backends else []:
        if not re.search(args.filter, label):
            continue
        print(f"== profile {label}", flush=True)
        ns, fam, exec_total, total, busy = profile_one(label, pkg, bench, env_extra, work, built)
        out += [f"## {label}", "",
                f"Timed run: {ns / 1e9:.2f} s. Cores busy on average over the process: {busy:.2f} of "
                f"{os.environ.get('BENCH_THREADS', '2')}. Profile: {total:.1f} CPU-s in all, {exec_total:.1f} CPU-s inside executions; "
                f"Go collector {fam[GO_COLLECTOR]:.1f} CPU-s; outside the backend {fam[OUTSIDE]:.1f} CPU-s.", "",
                "| op family | share of execution time | CPU-s |", "|---|---|---|"]
        for name in sorted(fam_cols, key=lambda n: -fam[n]):
            if fam[name] > 0 and exec_total > 0 and fam[name] / exec_total >= 0.005:
                out.append(f"| {name} | {100 * fam[name] / exec_total:.1f}% | {fam[name]:.2f} |")
        out.append("")
    if "xla" in backends:
        out += xla_section(args, work, built)
    text = "\n".join(out)
    dst = os.path.join(ROOT, args.out)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    open(dst, "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
