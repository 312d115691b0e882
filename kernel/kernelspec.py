#!/usr/bin/python3
"""Pin the environment of the installed GoNB kernel spec (called by kernel/setup.sh).

`gonb --install` writes kernel.json with "env": {}, so a notebook would inherit whatever
environment started Jupyter. geoalign notebooks need GOTOOLCHAIN (Go 1.27 from the module
proxy), GOEXPERIMENT=simd (15-35x faster GoMLX Go backend) and GOMLX_BACKEND (unset means
"xla" and a failed download). Jupyter's kernel "env" overrides the parent environment, so
GOMLX_BACKEND is only given a default (the Makefile's, passed as --default-backend) through
the wrapper kernel/gonb-env.sh, so a GOMLX_BACKEND set where Jupyter starts always wins.
"""
import argparse, json, os, subprocess, sys

ap = argparse.ArgumentParser()
ap.add_argument("--gotoolchain", required=True)
ap.add_argument("--goexperiment", required=True)
ap.add_argument("--path", required=True)
ap.add_argument("--default-backend", required=True)
args = ap.parse_args()

out = subprocess.run(["jupyter", "kernelspec", "list", "--json"], check=True,
                     capture_output=True, text=True).stdout
spec_dir = json.loads(out)["kernelspecs"]["gonb"]["resource_dir"]
spec_file = os.path.join(spec_dir, "kernel.json")
with open(spec_file) as f:
    spec = json.load(f)

wrapper = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gonb-env.sh")
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
