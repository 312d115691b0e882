package prvr

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data/bigfile"
	"github.com/geoalign/geoalign/lib/data/captions"
	"github.com/geoalign/geoalign/lib/data/h5"
)

// Layout names the files of one collection in the official directory layout
// <Root>/<Collection>/{FeatureData/<VisualFeature>/, TextData/} (docs/official-code.md §3.1).
type Layout struct {
	Root          string // data_root
	Collection    string // "tvr", "activitynet", "charades"
	VisualFeature string // e.g. "i3d_rgb_lgi" (official) or "label_multihot_glove100" (ours)
	// TextFeature is the HDF5 file name under TextData; empty means the official
	// "roberta_<collection>_query_feat.hdf5".
	TextFeature string
}

// CaptionFile is TextData/<collection><split>.caption.txt (split = "train", "val" or "test").
func (l Layout) CaptionFile(split string) string {
	return filepath.Join(l.Root, l.Collection, "TextData", l.Collection+split+".caption.txt")
}

// FeatureDir is the BigFile directory FeatureData/<visual feature>.
func (l Layout) FeatureDir() string {
	return filepath.Join(l.Root, l.Collection, "FeatureData", l.VisualFeature)
}

// TextFeatureFile is the token-feature HDF5 file.
func (l Layout) TextFeatureFile() string {
	name := l.TextFeature
	if name == "" {
		name = "roberta_" + l.Collection + "_query_feat.hdf5"
	}
	return filepath.Join(l.Root, l.Collection, "TextData", name)
}

// Split is one PRVR split in memory, processed as the official provider does. Frame and token
// sequences are packed: video v's frames are Frames[FrameOffsets[v]*Dim : FrameOffsets[v+1]*Dim].
type Split struct {
	Name     string
	Dim      int // video feature dimension
	QueryDim int // token feature dimension

	VideoIDs     []string  // score-matrix columns, in order of first appearance in the captions
	Clips        []float32 // len(VideoIDs) × ClipCount × Dim, L2-normalised
	Frames       []float32 // packed, ≤ MaxFrames rows per video, L2-normalised
	FrameOffsets []int     // len(VideoIDs)+1 row offsets into Frames

	CapIDs       []string  // score-matrix rows
	Texts        []string  // the sentences
	QueryVideo   []int     // ground-truth column of each query
	Tokens       []float32 // packed, ≤ MaxQueryTokens rows per query, L2-normalised
	TokenOffsets []int     // len(CapIDs)+1 row offsets into Tokens
}

// NumQueries is the number of queries (rows of the score matrix).
func (s *Split) NumQueries() int { return len(s.CapIDs) }

// NumVideos is the number of videos (columns of the score matrix).
func (s *Split) NumVideos() int { return len(s.VideoIDs) }

// VideoClips returns the ClipCount×Dim clip features of video v.
func (s *Split) VideoClips(v int) []float32 {
	n := ClipCount * s.Dim
	return s.Clips[v*n : (v+1)*n]
}

// VideoFrames returns the frame features of video v and their count.
func (s *Split) VideoFrames(v int) ([]float32, int) {
	a, b := s.FrameOffsets[v], s.FrameOffsets[v+1]
	return s.Frames[a*s.Dim : b*s.Dim], b - a
}

// QueryTokens returns the token features of query q and their count.
func (s *Split) QueryTokens(q int) ([]float32, int) {
	a, b := s.TokenOffsets[q], s.TokenOffsets[q+1]
	return s.Tokens[a*s.QueryDim : b*s.QueryDim], b - a
}

// Load reads split ("train", "val" or "test") of the collection in layout l.
func Load(l Layout, split string) (*Split, error) {
	capFile := l.CaptionFile(split)
	caps, err := captions.ReadFile(capFile)
	if err != nil {
		return nil, err
	}
	featDir := l.FeatureDir()
	v2fPath := filepath.Join(featDir, bigfile.Video2FramesFileName)
	v2f, err := bigfile.ReadVideo2Frames(v2fPath)
	if err != nil {
		return nil, err
	}
	bf, err := bigfile.Open(featDir)
	if err != nil {
		return nil, err
	}
	defer bf.Close()
	tf, err := h5.Open(l.TextFeatureFile())
	if err != nil {
		return nil, err
	}
	defer tf.Close()

	s := &Split{Name: split, Dim: bf.Dim, VideoIDs: captions.VideoIDs(caps)}
	col := make(map[string]int, len(s.VideoIDs))
	s.FrameOffsets = append(make([]int, 0, len(s.VideoIDs)+1), 0)
	s.Clips = make([]float32, 0, len(s.VideoIDs)*ClipCount*bf.Dim)
	for v, vid := range s.VideoIDs {
		col[vid] = v
		frameIDs, ok := v2f[vid]
		if !ok {
			return nil, fmt.Errorf("prvr: video %q (from %s) is missing from %s", vid, capFile, v2fPath)
		}
		if len(frameIDs) == 0 {
			return nil, fmt.Errorf("prvr: video %q has no frames in %s", vid, v2fPath)
		}
		raw, err := bf.Read(frameIDs)
		if err != nil {
			return nil, fmt.Errorf("prvr: video %q: %w", vid, err)
		}
		clips, frames, n := ProcessVideo(raw, len(frameIDs), bf.Dim)
		s.Clips = append(s.Clips, clips...)
		s.Frames = append(s.Frames, frames...)
		s.FrameOffsets = append(s.FrameOffsets, s.FrameOffsets[v]+n)
	}

	s.TokenOffsets = append(make([]int, 0, len(caps)+1), 0)
	for q, c := range caps {
		raw, shape, err := tf.ReadFloat32(c.ID)
		if err != nil {
			return nil, fmt.Errorf("prvr: query %q of %s: %w", c.ID, capFile, err)
		}
		if len(shape) != 2 || shape[0] == 0 {
			return nil, fmt.Errorf("prvr: %s: dataset %q has shape %v, want (n_tokens ≥ 1, D)", l.TextFeatureFile(), c.ID, shape)
		}
		if s.QueryDim == 0 {
			s.QueryDim = shape[1]
		} else if shape[1] != s.QueryDim {
			return nil, fmt.Errorf("prvr: %s: dataset %q has D=%d, earlier queries D=%d", l.TextFeatureFile(), c.ID, shape[1], s.QueryDim)
		}
		tok, k := ProcessQuery(raw, shape[0], shape[1])
		s.Tokens = append(s.Tokens, tok...)
		s.TokenOffsets = append(s.TokenOffsets, s.TokenOffsets[q]+k)
		s.CapIDs = append(s.CapIDs, c.ID)
		s.Texts = append(s.Texts, c.Text)
		s.QueryVideo = append(s.QueryVideo, col[captions.VideoID(c.ID)])
	}
	return s, nil
}

// Fingerprint is the sha256 (hex) of the split's content: its name, sizes, ids, texts, ground truth
// and every feature and offset. Run caches key on it, so a changed feature file trains anew.
func (s *Split) Fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|%d|%d|%q|%q|%q|%v|%v|%v|", s.Name, s.Dim, s.QueryDim, s.VideoIDs, s.CapIDs, s.Texts,
		s.QueryVideo, s.FrameOffsets, s.TokenOffsets)
	for _, x := range [][]float32{s.Clips, s.Frames, s.Tokens} {
		binary.Write(h, binary.LittleEndian, x)
		h.Write([]byte{'|'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
