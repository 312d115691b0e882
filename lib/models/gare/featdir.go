package gare

import (
	"fmt"

	"github.com/geoalign/geoalign/lib/data/captions"
	"github.com/geoalign/geoalign/lib/data/featdir"
)

// PairedFromDir is the training set of a text–video feature directory (lib/data/featdir, what
// `geoalign train gare --data DIR` reads) over the given video rows: every caption of those videos
// paired with its video's frames (a video with k captions appears k times, as in the official
// MSR-VTT training pairs); VideoOf is nil (paired). Shapes: Text [T, D_t], Video [T, F, D_v].
func PairedFromDir(d *featdir.TextVideo, name string, videos []int) *Dataset {
	texts := d.CaptionsOf(videos)
	pairVideos := make([]int, len(texts))
	for i, t := range texts {
		pairVideos[i] = d.CaptionVid[t]
	}
	ds := fromDir(d, name, texts, pairVideos)
	ds.VideoOf = nil
	return ds
}

// RetrievalFromDir is an evaluation set of a feature directory: the captions of the videos, video
// by video, ranked against the videos; VideoOf maps each caption to its video's position, and is
// nil when that is the diagonal (one caption per video, a paired set as FromPRVRSplit makes).
func RetrievalFromDir(d *featdir.TextVideo, name string, videos []int) *Dataset {
	ds := fromDir(d, name, d.CaptionsOf(videos), videos)
	if isDiagonal(ds.VideoOf) && ds.NumTexts == ds.NumVideos {
		ds.VideoOf = nil
	}
	return ds
}

// fromDir gathers texts (caption rows) and videos (video rows) of d into a Dataset; VideoOf maps
// each text to the position of its video in videos.
func fromDir(d *featdir.TextVideo, name string, texts, videos []int) *Dataset {
	ds := &Dataset{Name: name, Kind: "given features", NumTexts: len(texts), NumVideos: len(videos),
		TextDim: d.TextDim, VideoDim: d.VideoDim, Frames: d.Frames, Words: d.Words}
	col := make(map[int]int, len(videos))
	fw := d.Frames * d.VideoDim
	for j, v := range videos {
		col[v] = j
		ds.Video = append(ds.Video, d.Video[v*fw:(v+1)*fw]...)
		ds.FrameMask = append(ds.FrameMask, d.FrameMask[v*d.Frames:(v+1)*d.Frames]...)
	}
	for _, t := range texts {
		ds.Text = append(ds.Text, d.Text[t*d.TextDim:(t+1)*d.TextDim]...)
		if d.WordFeats != nil {
			w := d.Words * d.TextDim
			ds.WordFeats = append(ds.WordFeats, d.WordFeats[t*w:(t+1)*w]...)
			ds.WordMask = append(ds.WordMask, d.WordMask[t*d.Words:(t+1)*d.Words]...)
		}
		ds.VideoOf = append(ds.VideoOf, col[d.CaptionVid[t]])
	}
	return ds
}

// DirFromPaired is the text–video feature directory (lib/data/featdir) of paired train and test
// sets (VideoOf nil: text i of each describes video i): video and caption ids train00000…,
// test00000…, one caption per video (captions.EncID(id, 0)), word features when the sets have
// them, the splits train.txt and test.txt (no val.txt). featdir.WriteTextVideo writes it; read back
// (PairedFromDir, RetrievalFromDir) it gives the same features in the same order. It is how a
// track (e.g. the Charades descriptions) becomes a `--data` directory.
func DirFromPaired(train, test *Dataset) (*featdir.TextVideo, error) {
	if train.VideoOf != nil || test.VideoOf != nil {
		return nil, fmt.Errorf("gare: DirFromPaired needs paired sets (one text per video)")
	}
	if train.TextDim != test.TextDim || train.VideoDim != test.VideoDim || train.Frames != test.Frames ||
		train.Words != test.Words || (train.WordFeats == nil) != (test.WordFeats == nil) {
		return nil, fmt.Errorf("gare: DirFromPaired: train and test widths differ")
	}
	d := &featdir.TextVideo{Frames: train.Frames, VideoDim: train.VideoDim, TextDim: train.TextDim}
	if train.WordFeats != nil {
		d.Words = train.Words
	}
	for _, s := range []struct {
		ds   *Dataset
		name string
		rows *[]int
	}{{train, "train", &d.Splits.Train}, {test, "test", &d.Splits.Test}} {
		for i := range s.ds.NumTexts {
			id := fmt.Sprintf("%s%05d", s.name, i)
			*s.rows = append(*s.rows, len(d.VideoIDs))
			d.CaptionVid = append(d.CaptionVid, len(d.VideoIDs))
			d.VideoIDs = append(d.VideoIDs, id)
			d.Captions = append(d.Captions, captions.Caption{ID: captions.EncID(id, 0), Text: "(features only)"})
		}
		d.Video = append(d.Video, s.ds.Video...)
		d.FrameMask = append(d.FrameMask, s.ds.FrameMask...)
		d.Text = append(d.Text, s.ds.Text...)
		if d.Words > 0 {
			d.WordFeats = append(d.WordFeats, s.ds.WordFeats...)
			d.WordMask = append(d.WordMask, s.ds.WordMask...)
		}
	}
	return d, nil
}
