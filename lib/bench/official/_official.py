"""Shared part of lib/bench/official: the papers' official code, imported from its pinned checkouts under
build/official/ (lib/crosscheck/README.md gives the clone lines; GRAM: ispamm/GRAM at GRAM_COMMIT), timed
with the torch twins' harness (lib/bench/torch/_common.py: same threads, warm-up, median, go-bench line).

make bench (lib/bench/run.py) runs every script here on PyTorch 2 (build/bench-venv) for the rows of the
"against the official code" table. A script whose checkout is missing, at another commit or modified exits
with EXIT_NOT_RUN after printing `NOT RUN: <reason>`, and the table says so.
"""
import os, subprocess, sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "lib", "bench", "torch"))
sys.path.insert(0, os.path.join(ROOT, "lib", "crosscheck"))
EXIT_NOT_RUN = 3

# checkout name under build/official -> (repository, pinned commit); the first three are lib/crosscheck's pins.
PINS = {
    "hlformer": ("lijun2005/ICCV25-HLFormer", "332a0245e712ed59e2da172440b09d54fd4d5a5a"),
    "geoopt": ("geoopt/geoopt", "8af79c13f765035887eee5288153bffee1d262b6"),
    "gare": ("musicman217/GARE-text-video-retrieval", "e42b0e25b5b1c320b62f4abb9db463d90d738c99"),
    "gram": ("ispamm/GRAM", "b70c5c213de7d5bbd5f453e22757583c8d0ad599"),
}


def checkout(name):
    """The path of build/official/<name>, verified to be the pinned commit, unmodified; else NOT RUN."""
    path = os.path.join(ROOT, "build", "official", name)
    repo, commit = PINS[name]
    git = lambda *a: subprocess.run(["git", "-C", path, *a], capture_output=True, text=True)
    if not os.path.isdir(path):
        not_run(f"build/official/{name} missing (git clone https://github.com/{repo} build/official/{name}; "
                f"git -C build/official/{name} checkout {commit[:12]}: lib/crosscheck/README.md)")
    head = git("rev-parse", "HEAD").stdout.strip()
    if head != commit:
        not_run(f"build/official/{name} is at {head[:12] or '?'}, not the pinned {commit[:12]}")
    if git("status", "--porcelain", "--untracked-files=no").stdout.strip():
        not_run(f"build/official/{name} has local modifications")
    return path


def not_run(reason):
    print(f"NOT RUN: {reason}")
    sys.exit(EXIT_NOT_RUN)
