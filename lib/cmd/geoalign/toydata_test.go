package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/geoalign/geoalign/lib/data/bigfile"
	"github.com/geoalign/geoalign/lib/data/captions"
	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/data/h5"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/npy"
)

// Toy data sets in the three documented formats, each with a learnable signal: every item has a
// latent vector z (standard normal), and every modality sees a fixed random linear map of z plus
// small noise, so matching items are linearly related across modalities and random ones are not.

type latentSpace struct {
	rng *rand.Rand
	dim int
}

func newLatent(seed uint64, dim int) *latentSpace {
	return &latentSpace{rng: rand.New(rand.NewPCG(seed, 0x746f79)), dim: dim}
}

func (l *latentSpace) vec() []float64 {
	z := make([]float64, l.dim)
	for i := range z {
		z[i] = l.rng.NormFloat64()
	}
	return z
}

// projection is a random out × dim matrix.
func (l *latentSpace) projection(out int) [][]float64 {
	w := make([][]float64, out)
	for i := range w {
		w[i] = l.vec()
	}
	return w
}

// view is W·z + noise·ε, as float32.
func (l *latentSpace) view(w [][]float64, z []float64, noise float64) []float32 {
	out := make([]float32, len(w))
	for i, row := range w {
		s := 0.0
		for j, x := range row {
			s += x * z[j]
		}
		out[i] = float32(s/math.Sqrt(float64(len(z))) + noise*l.rng.NormFloat64())
	}
	return out
}

// splitRows cuts n rows into consecutive train, val and test blocks.
func splitRows(nTrain, nVal, nTest int) featdir.Splits {
	var s featdir.Splits
	for i := range nTrain + nVal + nTest {
		switch {
		case i < nTrain:
			s.Train = append(s.Train, i)
		case i < nTrain+nVal:
			s.Val = append(s.Val, i)
		default:
			s.Test = append(s.Test, i)
		}
	}
	return s
}

// writeToyTuples writes a GRAM tuple directory of three modalities (text 6-d, image 5-d, audio
// 3-d) with nTrain/nVal/nTest samples (nVal = 0: no val.txt).
func writeToyTuples(t *testing.T, dir string, nTrain, nVal, nTest int) *featdir.Tuples {
	t.Helper()
	l := newLatent(1, 4)
	d := &featdir.Tuples{Modalities: []string{"text", "image", "audio"}, Dims: []int{6, 5, 3}, Splits: splitRows(nTrain, nVal, nTest)}
	proj := [][][]float64{l.projection(6), l.projection(5), l.projection(3)}
	d.Features = make([][]float32, 3)
	for i := range nTrain + nVal + nTest {
		d.IDs = append(d.IDs, fmt.Sprintf("sample%03d", i))
		z := l.vec()
		for m := range proj {
			d.Features[m] = append(d.Features[m], l.view(proj[m], z, 0.05)...)
		}
	}
	if err := featdir.WriteTuples(dir, d); err != nil {
		t.Fatal(err)
	}
	return d
}

// writeToyTextVideo writes a GARE text–video directory: videos of 4 frames × 6 (the frames are
// noisy views of the video's latent, the last frame of odd videos is padding), captions of 5-d
// features, two captions for every third video.
func writeToyTextVideo(t *testing.T, dir string, nTrain, nVal, nTest int) *featdir.TextVideo {
	t.Helper()
	l := newLatent(2, 4)
	d := &featdir.TextVideo{Frames: 4, VideoDim: 6, TextDim: 5, Splits: splitRows(nTrain, nVal, nTest)}
	vproj, tproj := l.projection(6), l.projection(5)
	for v := range nTrain + nVal + nTest {
		id := fmt.Sprintf("video%03d", v)
		d.VideoIDs = append(d.VideoIDs, id)
		z := l.vec()
		for f := range d.Frames {
			if v%2 == 1 && f == d.Frames-1 {
				d.Video = append(d.Video, make([]float32, d.VideoDim)...)
				d.FrameMask = append(d.FrameMask, 0)
				continue
			}
			d.Video = append(d.Video, l.view(vproj, z, 0.1)...)
			d.FrameMask = append(d.FrameMask, 1)
		}
		for k := range 1 + btoi(v%3 == 0) {
			d.Captions = append(d.Captions, captions.Caption{ID: captions.EncID(id, k), Text: fmt.Sprintf("caption %d of %s", k, id)})
			d.Text = append(d.Text, l.view(tproj, z, 0.05)...)
		}
	}
	if err := featdir.WriteTextVideo(dir, d); err != nil {
		t.Fatal(err)
	}
	return d
}

// toyTextVideoDir writes a toy text–video directory (writeToyTextVideo) as dir/data of a new
// temporary directory dir, and returns both.
func toyTextVideoDir(t *testing.T, nTrain, nVal, nTest int) (dir, data string) {
	t.Helper()
	dir = t.TempDir()
	data = filepath.Join(dir, "data")
	writeToyTextVideo(t, data, nTrain, nVal, nTest)
	return dir, data
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// toyPRVR describes a collection written by writeToyPRVR.
type toyPRVR struct {
	Root, Collection, Feature string
	TestVideos, TestQueries   int
}

// writeToyPRVR writes a collection in the MS-SL layout: BigFile frames (6-d; 6 to 12 frames per
// video, the video's latent view plus noise, with a third of the frames plain noise: partial
// relevance), caption files for train and test and a val file copying test (as the official
// Charades-STA release has), and the RoBERTa-named HDF5 of query tokens (3 tokens × 5, views of
// the video's latent). Three queries per video.
func writeToyPRVR(t *testing.T, root string, nTrain, nTest int) toyPRVR {
	t.Helper()
	c := toyPRVR{Root: root, Collection: "toy", Feature: "toyfeat", TestVideos: nTest, TestQueries: 3 * nTest}
	layout := prvr.Layout{Root: root, Collection: c.Collection, VisualFeature: c.Feature}
	l := newLatent(3, 4)
	vproj, qproj := l.projection(6), l.projection(5)
	var frameIDs []string
	var rows []float32
	v2f := bigfile.Video2Frames{}
	caps := map[string][]captions.Caption{}
	if err := os.MkdirAll(filepath.Dir(layout.CaptionFile("train")), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := h5.Create(layout.TextFeatureFile())
	if err != nil {
		t.Fatal(err)
	}
	for v := range nTrain + nTest {
		id := fmt.Sprintf("vid%03d", v)
		z := l.vec()
		n := 6 + l.rng.IntN(7)
		for f := range n {
			fid := fmt.Sprintf("%s_%02d", id, f)
			frameIDs, v2f[id] = append(frameIDs, fid), append(v2f[id], fid)
			if f%4 == 3 {
				rows = append(rows, l.view(vproj, l.vec(), 0.1)...) // background: another latent
			} else {
				rows = append(rows, l.view(vproj, z, 0.1)...)
			}
		}
		split := "train"
		if v >= nTrain {
			split = "test"
		}
		for k := range 3 {
			capID := captions.EncID(id, k)
			caps[split] = append(caps[split], captions.Caption{ID: capID, Text: fmt.Sprintf("query %d about %s", k, id)})
			var tok []float32
			for range 3 {
				tok = append(tok, l.view(qproj, z, 0.1)...)
			}
			if err := w.WriteFloat32(capID, []int{3, 5}, tok); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bigfile.Write(layout.FeatureDir(), frameIDs, 6, rows); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(layout.FeatureDir(), bigfile.Video2FramesFileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := bigfile.WriteVideo2Frames(f, v2f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	caps["val"] = caps["test"]
	for _, split := range []string{"train", "val", "test"} {
		f, err := os.Create(layout.CaptionFile(split))
		if err != nil {
			t.Fatal(err)
		}
		if err := captions.Write(f, caps[split]); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return c
}

// rewriteMatrix replaces the float32 matrix of the .npy file path by f(x, cols), x its values in
// row order, and returns x.
func rewriteMatrix(t *testing.T, path string, f func(x []float32, cols int) []float32) []float32 {
	t.Helper()
	x, rows, cols, err := npy.ReadMatrix[float32](path)
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.WriteFile(path, []int{rows, cols}, f(slices.Clone(x), cols)); err != nil {
		t.Fatal(err)
	}
	return x
}
