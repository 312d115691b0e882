"""Shared harness of the PyTorch twins of geoalign's paired benchmarks.

Each twin does the same computation as its Go benchmark, on CPU, with torch.set_num_threads
set to the same thread count (default 2, the machine's cores), and prints ONE line in go-bench
format so that lib/bench/run.py parses both sides alike:
    BenchmarkPaired<Name> <iterations> <median ns per op> ns/op
"""
import os, statistics, sys, time
import torch

THREADS = int(os.environ.get("BENCH_THREADS", "2"))
torch.set_num_threads(THREADS)


def run(name, fn, reps=5, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    print(f"BenchmarkPaired{name} {reps} {med * 1e9:.0f} ns/op")
    sys.stdout.flush()
