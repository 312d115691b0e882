#!/usr/bin/python3
"""Pin the environment of the installed GoNB kernel spec (called by kernel/setup.sh).

`gonb --install` writes kernel.json with "env": {}, so a notebook would inherit whatever
environment started Jupyter. geoalign notebooks need GOTOOLCHAIN (Go 1.27 from the module
proxy), GOEXPERIMENT=simd (15-35x faster GoMLX Go backend) and GOMLX_BACKEND (unset means
"xla" and a failed download). Jupyter's kernel "env" overrides the parent environment, so
GOMLX_BACKEND is only given a default (the Makefile's, passed as --default-backend) through
the wrapper kernel/gonb-env.sh, so a GOMLX_BACKEND set where Jupyter starts always wins.

With --check it only checks that the installed spec runs this checkout's wrapper
(kernel/run-notebooks.sh calls it before running any notebook).
"""
import argparse, json, os, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--check", action="store_true",
                help="only check that the installed spec runs this checkout's wrapper (kernel/run-notebooks.sh); "
                     "exit 2 naming the one it runs otherwise")
ap.add_argument("--gotoolchain")
ap.add_argument("--goexperiment")
ap.add_argument("--path")
ap.add_argument("--default-backend")
args = ap.parse_args()
if not args.check and None in (args.gotoolchain, args.goexperiment, args.path, args.default_backend):
    ap.error("--gotoolchain, --goexperiment, --path and --default-backend are required (or --check)")

wrapper = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gonb-env.sh")
try:
    out = subprocess.run(["jupyter", "kernelspec", "list", "--json"], check=True,
                         capture_output=True, text=True).stdout
    spec_dir = json.loads(out)["kernelspecs"]["gonb"]["resource_dir"]
except (OSError, subprocess.CalledProcessError, KeyError) as e:
    sys.exit(f"kernelspec: no gonb kernel spec ({e!r}): run `make setup`")
spec_file = os.path.join(spec_dir, "kernel.json")
with open(spec_file) as f:
    spec = json.load(f)

if args.check:
    # The spec is per user, so a `make setup` in another checkout points it at that checkout's
    # wrapper and environment: notebooks run with it would use that checkout (or fail if it is gone).
    runs = spec["argv"][0] if spec.get("argv") else "nothing"
    if os.path.realpath(runs) != os.path.realpath(wrapper):
        print(f"the gonb kernel spec ({spec_file}) runs {runs}, not this checkout's {wrapper}: "
              "run `make setup` here (the spec is per user: a setup in another checkout moved it)", file=sys.stderr)
        sys.exit(2)
    sys.exit(0)
# Drop any wrapper already there (this checkout's, or another checkout's that set the kernel up
# before: that one may be gone), then put this checkout's first.
argv = [a for a in spec["argv"] if os.path.basename(a) != "gonb-env.sh"]
spec["argv"] = [wrapper] + argv
spec["env"] = {
    "GOTOOLCHAIN": args.gotoolchain,
    "GOEXPERIMENT": args.goexperiment,
    "GEOALIGN_KERNEL_PATH": args.path,
    "GEOALIGN_DEFAULT_BACKEND": args.default_backend,
}
with open(spec_file, "w") as f:
    json.dump(spec, f, indent=2)
print("kernel spec:", spec_file)
print(json.dumps(spec, indent=2))
