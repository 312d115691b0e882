package featdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/data/captions"
	"github.com/geoalign/geoalign/lib/npy"
)

// WriteTextVideo writes d as a text–video directory dir (created if needed): what a user's
// Python script would write, for examples and tests. The split files list d.Splits; val.txt is
// left out when d.Splits.Val is empty or was carved.
func WriteTextVideo(dir string, d *TextVideo) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	v := d.NumVideos()
	shape := []int{v, d.Frames, d.VideoDim}
	if err := npy.WriteFile(filepath.Join(dir, videoArray+arraySuffix), shape, d.Video); err != nil {
		return err
	}
	if d.FrameMask != nil {
		if err := npy.WriteFile(filepath.Join(dir, videoMask+arraySuffix), []int{v, d.Frames}, d.FrameMask); err != nil {
			return err
		}
	}
	if err := npy.WriteFile(filepath.Join(dir, textArray+arraySuffix), []int{d.NumTexts(), d.TextDim}, d.Text); err != nil {
		return err
	}
	if d.WordFeats != nil {
		if err := npy.WriteFile(filepath.Join(dir, wordsArray+arraySuffix), []int{d.NumTexts(), d.Words, d.TextDim}, d.WordFeats); err != nil {
			return err
		}
		if err := npy.WriteFile(filepath.Join(dir, wordsMask+arraySuffix), []int{d.NumTexts(), d.Words}, d.WordMask); err != nil {
			return err
		}
	}
	var caps strings.Builder
	if err := captions.Write(&caps, d.Captions); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, CaptionsFile), []byte(caps.String()), 0o644); err != nil {
		return err
	}
	if err := writeIDs(filepath.Join(dir, VideoIDsFile), d.VideoIDs, nil); err != nil {
		return err
	}
	return writeSplits(dir, d.VideoIDs, d.Splits)
}

// WriteTuples writes d as a tuple directory dir (created if needed); see WriteTextVideo for the
// split files.
func WriteTuples(dir string, d *Tuples) error {
	if len(d.Modalities) != len(d.Features) || len(d.Dims) != len(d.Features) {
		return fmt.Errorf("featdir: %d modality names, %d dims, %d feature blocks", len(d.Modalities), len(d.Dims), len(d.Features))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for m, name := range d.Modalities {
		if err := npy.WriteFile(filepath.Join(dir, name+arraySuffix), []int{len(d.IDs), d.Dims[m]}, d.Features[m]); err != nil {
			return err
		}
	}
	if err := writeIDs(filepath.Join(dir, ModalityFile), d.Modalities, nil); err != nil {
		return err
	}
	if err := writeIDs(filepath.Join(dir, IDsFile), d.IDs, nil); err != nil {
		return err
	}
	return writeSplits(dir, d.IDs, d.Splits)
}

func writeSplits(dir string, ids []string, s Splits) error {
	if err := writeIDs(filepath.Join(dir, TrainFile), ids, s.Train); err != nil {
		return err
	}
	if err := writeIDs(filepath.Join(dir, TestFile), ids, s.Test); err != nil {
		return err
	}
	if len(s.Val) == 0 || s.ValCarved {
		return nil
	}
	return writeIDs(filepath.Join(dir, ValFile), ids, s.Val)
}

// writeIDs writes ids[rows] (all ids when rows is nil), one per line.
func writeIDs(path string, ids []string, rows []int) error {
	var b strings.Builder
	if rows == nil {
		for _, id := range ids {
			b.WriteString(id + "\n")
		}
	}
	for _, r := range rows {
		b.WriteString(ids[r] + "\n")
	}
	return atomicfile.WriteFile(path, []byte(b.String()), 0o644)
}
