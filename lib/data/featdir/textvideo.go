package featdir

import (
	"fmt"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/data/captions"
)

// TextVideo is a text–video feature directory in memory (see the package documentation).
type TextVideo struct {
	Dir string

	VideoIDs  []string
	Frames    int       // F
	VideoDim  int       // D_v
	Video     []float32 // V × F × D_v
	FrameMask []float32 // V × F, 1 = real frame

	Captions   []captions.Caption
	CaptionVid []int // row in VideoIDs of each caption's video
	TextDim    int   // D_t
	Text       []float32
	Words      int       // W (0 without words.npy)
	WordFeats  []float32 // T × W × D_t, or nil
	WordMask   []float32 // T × W, or nil

	Splits Splits // video rows of each split
}

// NumVideos is V.
func (d *TextVideo) NumVideos() int { return len(d.VideoIDs) }

// NumTexts is T.
func (d *TextVideo) NumTexts() int { return len(d.Captions) }

// CaptionsOf returns the caption rows of the given videos, video by video in the order given, each
// video's captions in file order.
func (d *TextVideo) CaptionsOf(videos []int) []int {
	byVideo := make(map[int][]int, len(videos))
	for t, v := range d.CaptionVid {
		byVideo[v] = append(byVideo[v], t)
	}
	var out []int
	for _, v := range videos {
		out = append(out, byVideo[v]...)
	}
	return out
}

// LoadTextVideo reads and checks the text–video directory dir; without val.txt, valFraction of the
// training videos become the validation split.
func LoadTextVideo(dir string, valFraction float64) (*TextVideo, error) {
	d := &TextVideo{Dir: dir}
	r := &reader{dir: dir}
	idsPath := filepath.Join(dir, VideoIDsFile)
	var err error
	if d.VideoIDs, err = ReadIDs(idsPath); err != nil {
		return nil, err
	}
	video, err := r.read(videoArray, false, true)
	if err != nil {
		return nil, err
	}
	if err := video.checkRows(d.NumVideos(), idsPath, 2, 3); err != nil {
		return nil, err
	}
	d.Frames, d.VideoDim = 1, video.shape[1]
	if len(video.shape) == 3 {
		d.Frames, d.VideoDim = video.shape[1], video.shape[2]
	}
	if d.Frames == 0 || d.VideoDim == 0 {
		return nil, fmt.Errorf("%s: shape %v has an empty frame or feature axis", video.file, video.shape)
	}
	d.Video = video.data
	if d.FrameMask, err = readMask(r, videoMask, video.file, d.NumVideos(), d.Frames); err != nil {
		return nil, err
	}

	capsPath := filepath.Join(dir, CaptionsFile)
	if d.Captions, err = captions.ReadFile(capsPath); err != nil {
		return nil, err
	}
	vids := indexOf(d.VideoIDs)
	d.CaptionVid = make([]int, d.NumTexts())
	for i, c := range d.Captions {
		v, ok := vids[captions.VideoID(c.ID)]
		if !ok {
			return nil, fmt.Errorf("%s: caption %d (%q): video %q is not in %s", capsPath, i+1, c.ID, captions.VideoID(c.ID), idsPath)
		}
		d.CaptionVid[i] = v
	}
	text, err := r.read(textArray, false, true)
	if err != nil {
		return nil, err
	}
	if err := text.checkRows(d.NumTexts(), capsPath, 2); err != nil {
		return nil, err
	}
	d.TextDim, d.Text = text.shape[1], text.data
	if d.TextDim == 0 {
		return nil, fmt.Errorf("%s: shape %v has an empty feature axis", text.file, text.shape)
	}
	if err := d.readWords(r, capsPath); err != nil {
		return nil, err
	}

	hasCaption := make([]bool, d.NumVideos())
	for _, v := range d.CaptionVid {
		hasCaption[v] = true
	}
	d.Splits, err = readSplits(dir, vids, idsPath, valFraction, func(file string, line, row int) error {
		if !hasCaption[row] {
			return fmt.Errorf("%s:%d: video %q has no caption in %s", file, line, d.VideoIDs[row], capsPath)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// readWords reads the optional words.npy and words_mask.npy.
func (d *TextVideo) readWords(r *reader, capsPath string) error {
	words, err := r.read(wordsArray, true, true)
	if err != nil || words == nil {
		return err
	}
	if err := words.checkRows(d.NumTexts(), capsPath, 3); err != nil {
		return err
	}
	if words.shape[2] != d.TextDim {
		return fmt.Errorf("%s: word features of width %d, text.npy has %d", words.file, words.shape[2], d.TextDim)
	}
	d.Words, d.WordFeats = words.shape[1], words.data
	d.WordMask, err = readMask(r, wordsMask, words.file, d.NumTexts(), d.Words)
	return err
}

// readMask reads an optional [n, width] 0/1 mask (all ones when absent); every row needs a one.
func readMask(r *reader, name, of string, n, width int) ([]float32, error) {
	m, err := r.read(name, true, false)
	if err != nil {
		return nil, err
	}
	if m == nil {
		ones := make([]float32, n*width)
		for i := range ones {
			ones[i] = 1
		}
		return ones, nil
	}
	if len(m.shape) != 2 || m.shape[0] != n || m.shape[1] != width {
		return nil, fmt.Errorf("%s: shape %v, want [%d, %d] to match %s", m.file, m.shape, n, width, of)
	}
	for i := range n {
		any := false
		for j, x := range m.data[i*width : (i+1)*width] {
			if x != 0 && x != 1 {
				return nil, fmt.Errorf("%s: row %d, column %d is %v, want 0 or 1", m.file, i, j, x)
			}
			any = any || x == 1
		}
		if !any {
			return nil, fmt.Errorf("%s: row %d masks every entry out", m.file, i)
		}
	}
	return m.data, nil
}
