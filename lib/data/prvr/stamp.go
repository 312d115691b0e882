package prvr

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data/bigfile"
)

// Files lists the files Load reads for split: the caption file, the BigFile's shape.txt, id.txt,
// feature.bin and video2frames.txt, and the token-feature HDF5 file.
func (l Layout) Files(split string) []string {
	dir := l.FeatureDir()
	return []string{l.CaptionFile(split),
		filepath.Join(dir, bigfile.ShapeFileName), filepath.Join(dir, bigfile.IDFileName),
		filepath.Join(dir, bigfile.FeatureFileName), filepath.Join(dir, bigfile.Video2FramesFileName),
		l.TextFeatureFile()}
}

// Stamp fingerprints the files Load reads for splits: 16 hex digits of the sha256 of each file's
// absolute path, size and modification time. It is the key of a cache of processed data (such
// as GARE's datasets): rewriting, truncating or moving any input changes it, at the cost of a few
// stat calls rather than hashing a gigabyte. A missing file is an error naming it.
func (l Layout) Stamp(splits ...string) (string, error) {
	h := sha256.New()
	seen := map[string]bool{}
	for _, split := range splits {
		for _, p := range l.Files(split) {
			abs, err := filepath.Abs(p)
			if err != nil {
				return "", fmt.Errorf("prvr: %w", err)
			}
			if seen[abs] {
				continue
			}
			seen[abs] = true
			st, err := os.Stat(abs)
			if err != nil {
				return "", fmt.Errorf("prvr: %w", err)
			}
			fmt.Fprintf(h, "%s\x00%d\x00%d\n", abs, st.Size(), st.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8]), nil
}
