package nb

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/data/glove"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/data/trimodal"
)

// Cache is the directory `make data` builds the real tracks into (tracks.CacheDir).
func Cache() string { return tracks.CacheDir() }

// Shared is the staged read-only input data the tracks are built from (tracks.SharedDir).
func Shared() string { return tracks.SharedDir() }

// GloVe is the GloVe 6B 100-d subset covering every text of every track (lib/data/glove).
func GloVe() *glove.Vectors {
	return loaded(glove.ReadText(tracks.GloVeSubset(Cache())))
}

// TuxPaint is a split ("train" or "test") of the Tux Paint stamps: English caption (mean GloVe)
// ↔ stamp image ↔ spoken caption, one triplet per stamp (lib/data/trimodal).
func TuxPaint(split string) *trimodal.Set {
	return loaded(trimodal.LoadTuxPaint(Cache(), split))
}

// Digits is a split of the FSDD spoken digits ↔ handwritten digits ↔ number words; seed draws the
// same-digit image of each recording (lib/data/trimodal).
func Digits(split string, seed uint64) *trimodal.Set {
	return loaded(trimodal.LoadDigits(Cache(), split, seed))
}

// CharadesSTA is a split of the Charades-STA partially relevant video retrieval track
// (label-derived frame features, GloVe query tokens), as the MS-SL/HLFormer data provider
// assembles it (lib/data/prvr).
func CharadesSTA(split string) *prvr.Split {
	return loaded(prvr.Load(tracks.CharadesLayout(Cache(), tracks.CharadesSTACollection), split))
}

// CharadesDescriptions is a split of the Charades descriptions ↔ videos track (one description
// per video, official v1 split; GARE's text→video retrieval), in the same layout.
func CharadesDescriptions(split string) *prvr.Split {
	return loaded(prvr.Load(tracks.CharadesLayout(Cache(), tracks.CharadesDescCollection), split))
}

// loaded panics with a hint when a track cannot be read.
func loaded[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Errorf("nb: %w (the tracks are built into %s by `make data`)", err, Cache()))
	}
	return v
}
