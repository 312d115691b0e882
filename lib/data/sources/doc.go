// Package sources is the manifest of the external files the data tracks are built from
// (datasets/sources.json) and their resolution to local copies.
//
// The manifest has one entry per file (FSDD's 3,000 recordings included): its staged path
// (slash-separated, relative to the staged data directory, e.g. "charades/charades_sta_train.txt"),
// its upstream URL at the pinned commit of the repository datasets/README.md names, its sha256 and
// size, and its licence. An entry with Derive set has no upstream copy of its own: it is written
// from the file at its URL by a named rule (Derivations; charades/classes.tsv from a classes.py)
// and then checked by its sha256 like any download.
//
// Resolve finds a verified local copy of each file, in this order:
//
//  1. the staged copy, <shared>/<path> ($GEOALIGN_SHARED, or ../shared/data beside the checkout):
//     used when present; a staged copy whose sha256 differs is an error naming it (never replaced);
//  2. the cached download, <cache>/sources/<path> (datasets/cache/sources by default), when its
//     sha256 matches;
//  3. otherwise a download from the file's URL into <cache>/sources/<path>: the body goes to a
//     temporary file (lib/atomicfile), its sha256 and size are checked, and only then is it renamed
//     into place; a partial or wrong download is deleted and named in the error.
//
// $GEOALIGN_SOURCES_MIRROR (MirrorEnv) replaces every URL by <mirror>/<path>: a mirror serves a
// copy of the staged data directory (`python3 -m http.server -d ../shared/data`).
//
// Files that can be neither found nor downloaded (offline, say) make one data.BadInput error that
// lists each of them with its URL and where to place it (a directory of many files, such as FSDD's
// recordings, as one line with the URL pattern), so that `geoalign data build` exits 2.
//
// The manifest is generated from the staged files by `go generate ./lib/data/sources`
// (internal/gensources: sha256 and size of each staged file, URLs from the pinned repositories).
package sources

//go:generate go run ./internal/gensources -shared ../../../../shared/data -out ../../../datasets/sources.json
