#!/usr/bin/env python3
"""Write a small PRVR collection in the official MS-SL / HLFormer layout with h5py and numpy only.

It is independent of geoalign's own writers (lib/data/h5, lib/data/bigfile), so that
`geoalign reproduce --paper hlformer --data-root ...` can be tried, and checked, on files that
another program wrote (issue 47, acceptance 2). The layout (docs/official-code.md §3.1):

    ROOT/NAME/TextData/NAME{train,val,test}.caption.txt   "<video>#enc#<k> <sentence>" lines
    ROOT/NAME/TextData/roberta_NAME_query_feat.hdf5       one (tokens, QDIM) float32 dataset per caption id
    ROOT/NAME/FeatureData/FEATURE/shape.txt               "N D"
    ROOT/NAME/FeatureData/FEATURE/id.txt                  N frame ids, space separated
    ROOT/NAME/FeatureData/FEATURE/feature.bin             N x D little-endian float32
    ROOT/NAME/FeatureData/FEATURE/video2frames.txt        a Python dict literal {video: [frame, ...]}

Each video has a latent vector z; its frames are a fixed projection of z plus noise (one frame in
four shows another latent: background), and its queries' tokens another projection of z plus noise,
so text-to-video retrieval is learnable but not trivial.

Usage: toy_mssl_collection.py ROOT [--name toy] [--feature toyfeat] [--train 64] [--val 32]
       [--test 48] [--queries 2] [--dim 32] [--qdim 24] [--noise 3] [--seed 0]
"""
import argparse
import os

import h5py
import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("root")
    ap.add_argument("--name", default="toy")
    ap.add_argument("--feature", default="toyfeat")
    ap.add_argument("--train", type=int, default=64, help="training videos")
    ap.add_argument("--val", type=int, default=32, help="validation videos")
    ap.add_argument("--test", type=int, default=48, help="test videos")
    ap.add_argument("--queries", type=int, default=2, help="queries per video")
    ap.add_argument("--dim", type=int, default=32, help="frame feature width")
    ap.add_argument("--qdim", type=int, default=24, help="query token feature width")
    ap.add_argument("--latent", type=int, default=6)
    ap.add_argument("--noise", type=float, default=3.0, help="noise std beside the unit-variance latent signal")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()

    rng = np.random.default_rng(a.seed)
    vproj = rng.standard_normal((a.latent, a.dim))
    qproj = rng.standard_normal((a.latent, a.qdim))
    text = os.path.join(a.root, a.name, "TextData")
    feat = os.path.join(a.root, a.name, "FeatureData", a.feature)
    os.makedirs(text, exist_ok=True)
    os.makedirs(feat, exist_ok=True)

    frame_ids, frames, v2f = [], [], {}
    splits = [("train", a.train), ("val", a.val), ("test", a.test)]
    with h5py.File(os.path.join(text, "roberta_%s_query_feat.hdf5" % a.name), "w") as h5:
        v = 0
        for split, n in splits:
            lines = []
            for _ in range(n):
                vid = "v%04d" % v
                v += 1
                z = rng.standard_normal(a.latent)
                v2f[vid] = []
                for f in range(int(rng.integers(6, 13))):
                    fid = "%s_%03d" % (vid, f)
                    src = rng.standard_normal(a.latent) if f % 4 == 3 else z
                    frames.append(src @ vproj + a.noise * rng.standard_normal(a.dim))
                    frame_ids.append(fid)
                    v2f[vid].append(fid)
                for k in range(a.queries):
                    cap = "%s#enc#%d" % (vid, k)
                    lines.append("%s query %d about video %s\n" % (cap, k, vid))
                    tokens = int(rng.integers(3, 7))
                    tok = z @ qproj + a.noise * rng.standard_normal((tokens, a.qdim))
                    h5.create_dataset(cap, data=tok.astype(np.float32))
            with open(os.path.join(text, "%s%s.caption.txt" % (a.name, split)), "w") as f:
                f.writelines(lines)

    x = np.asarray(frames, dtype="<f4")
    x.tofile(os.path.join(feat, "feature.bin"))
    with open(os.path.join(feat, "shape.txt"), "w") as f:
        f.write("%d %d\n" % x.shape)
    with open(os.path.join(feat, "id.txt"), "w") as f:
        f.write(" ".join(frame_ids))
    with open(os.path.join(feat, "video2frames.txt"), "w") as f:
        f.write(repr(v2f))
    print("wrote %s: %d videos, %d frames (%d-d), %d queries (%d-d tokens)"
          % (os.path.join(a.root, a.name), v, len(frame_ids), a.dim, v * a.queries, a.qdim))


if __name__ == "__main__":
    main()
