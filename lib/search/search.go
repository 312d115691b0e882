// Package search is text→video search over the test videos of an HLFormer study
// (lib/studies/hlformerstudy) with one of its trained models, as notebooks/15-search.ipynb runs it:
// New opens it, Find ranks the videos for a typed sentence, Table lists the hits with the Charades
// actions in the moment that matched, and Plot draws where in each video the query matched.
//
// It reproduces no table of the paper: it is an application of the model the study trains, so it
// lives beside the studies, not in one.
package search

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/data/charades"
	"github.com/geoalign/geoalign/lib/data/prvr"
	"github.com/geoalign/geoalign/lib/encoders"
	"github.com/geoalign/geoalign/lib/encoders/minilm"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/studies/hlformerstudy"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Search is text→video search over the test videos of a study with one trained HLFormer: a typed
// sentence is encoded as the study's queries are (MiniLM token states, prvr.ProcessQuery), embedded
// by the model's query branch and scored against every test video by the model's inference score
// S = α_c·max_j cos(q, clip_j) + α_f·max_i cos(q, frame_i) (HLFormer Eq. 8–9; Evaluator.Scores). Each
// hit carries the cosine of the query with every clip and frame — which part of the video matched —
// and the video's annotated Charades actions.
type Search struct {
	Study *hlformerstudy.Study
	Runs  *hlformerstudy.Runs // the variant whose first seed's selected model searches
	eval  *hlformer.Evaluator
	// videos are the evaluation embeddings of the test split (its own queries included, unused).
	videos  *hlformer.Embeddings
	encoder *minilm.Model
	// charades are the Charades v1 annotations by video id, classes the action names by class.
	charades map[string]charades.Video
	classes  []string
}

// New trains (or restores from the run cache) variant v of study s on its seeds and opens a
// search with the model of the first seed, which embeds the test videos; modelDir is MiniLM's folder
// (minilm.DefaultDir() after `make setup`). The study's setup must have MiniLM query tokens (OpenText
// with encoders.MiniLM): the sentence is encoded by the encoder the model was trained on.
func New(s *hlformerstudy.Study, v hlformerstudy.Variant, modelDir string) (*Search, error) {
	if s.Setup.Text != encoders.MiniLM {
		return nil, fmt.Errorf("search encodes sentences with MiniLM, but setup %q has %s query tokens (open the study with encoders.MiniLM)",
			s.Setup.Name, s.Setup.Text.Describe())
	}
	enc, err := minilm.Load(modelDir)
	if err != nil {
		return nil, fmt.Errorf("search: %w (MiniLM is installed by `make setup`)", err)
	}
	r, err := s.Run(v)
	if err != nil {
		return nil, err
	}
	videos := map[string]charades.Video{}
	for _, split := range []string{"train", "test"} {
		vs, err := charades.ReadVideos(filepath.Join(s.Setup.Shared, "charades", "Charades_v1_"+split+".csv"))
		if err != nil {
			return nil, fmt.Errorf("search: the Charades annotations: %w", err)
		}
		for _, cv := range vs {
			videos[cv.ID] = cv
		}
	}
	classes, err := charades.ReadClasses(filepath.Join(s.Setup.Shared, "charades", "classes.tsv"))
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if len(r.Results) == 0 {
		return nil, fmt.Errorf("search: %s has no trained run", r.Variant.Name)
	}
	m, err := hlformer.New(r.Config)
	if err != nil {
		return nil, err
	}
	ev, err := hlformer.NewEvaluator(s.Backend, m, r.Results[0].Store, s.Scale.Training().DType)
	if err != nil {
		return nil, err
	}
	em, err := ev.Encode(s.Setup.Test)
	if err != nil {
		return nil, err
	}
	if em.ClipSteps != prvr.ClipCount {
		return nil, fmt.Errorf("search: %s scores %d clip windows, not the %d clips whose times it plots", r.Variant.Name, em.ClipSteps, prvr.ClipCount)
	}
	return &Search{Study: s, Runs: r, eval: ev, videos: em, encoder: enc, charades: videos, classes: classes}, nil
}

// Summary is the searching model's test metrics beside the floor of the same split (random ranking
// with MiniLM text), as the study's tables give them.
func (se *Search) Summary() *report.Table {
	s := se.Study
	r := *se.Runs
	r.Seeds, r.Results = r.Seeds[:1], r.Results[:1]
	prov := s.Provenance()
	prov.Seeds = r.Seeds
	return hlformerstudy.MetricsTable(fmt.Sprintf("The searching model: %s on %s (%s scale, seed %d)", hlformerstudy.ShortName(r.Variant.Name), s.Setup.Name, s.Scale.Name, r.Seeds[0]),
		prov, []*hlformerstudy.Runs{&r}, s.Setup.Floors, nil, "")
}

// Hit is one retrieved video.
type Hit struct {
	Rank  int // 1-based
	Video int // column of the test split
	ID    string
	Score float64 // S of Eq. 9, the ranking score
	// ClipScores[j] = cos(q, clip_j) over the prvr.ClipCount clips (glance branch), FrameScores[i] =
	// cos(q, frame_i) over the video's model frames (gaze branch; padding left out).
	ClipScores, FrameScores []float64
	// Length is the video's length in seconds (Charades v1; 0 when unknown), Actions its annotated
	// actions. Clip j spans [j, j+1)·Length/ClipCount, frame i [i, i+1)·Length/len(FrameScores): the
	// segments of prvr.AverageToFixedLength and UniformSample, up to the 0.5 s of a 2 fps frame.
	Length  float64
	Actions []charades.Action
	// Best is the clip with the largest cosine: the moment that matched, From–To seconds.
	Best     int
	From, To float64
}

// Find encodes sentence and returns the k best test videos, best first.
func (se *Search) Find(sentence string, k int) ([]Hit, error) {
	out, err := se.encoder.Encode([]string{sentence}, true)
	if err != nil {
		return nil, err
	}
	tokens, n := prvr.ProcessQuery(out.Tokens[0], len(out.IDs[0]), se.encoder.Dim())
	hits, err := rankVideos(se.eval, se.Study.Setup.Test, se.videos, tokens, n, k)
	if err != nil {
		return nil, err
	}
	for i := range hits {
		h := &hits[i]
		h.Length, h.Actions = se.charades[h.ID].Length, se.charades[h.ID].Actions
		step := h.Length / float64(len(h.ClipScores))
		h.From, h.To = float64(h.Best)*step, float64(h.Best+1)*step
	}
	return hits, nil
}

// oneQuery is video 0 of a split with one query of given processed tokens: what the evaluator's
// query branch embeds (the video is only there because a source is never empty).
type oneQuery struct {
	*prvr.Split
	tokens []float32
	n      int
}

func (o oneQuery) NumVideos() int                   { return 1 }
func (o oneQuery) NumQueries() int                  { return 1 }
func (o oneQuery) QueryTokens(int) ([]float32, int) { return o.tokens, o.n }
func (o oneQuery) GroundTruth(int) int              { return 0 }

// rankVideos scores one query of n processed tokens against the video embeddings em of split sp and
// returns the k best videos with their clip and frame cosines.
func rankVideos(ev *hlformer.Evaluator, sp *prvr.Split, em *hlformer.Embeddings, tokens []float32, n, k int) ([]Hit, error) {
	if n == 0 {
		return nil, fmt.Errorf("search: empty query")
	}
	q, err := ev.EncodeSource(oneQuery{Split: sp, tokens: tokens, n: n})
	if err != nil {
		return nil, err
	}
	one := *em
	one.Queries, one.QueryVecs = 1, q.QueryVecs
	scores, err := ev.Scores(&one)
	if err != nil {
		return nil, err
	}
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) }) // best first; ties by column
	d, frameLen := em.Dim, len(em.FrameMask)/em.Videos
	cos := func(rows []float32, i int) float64 {
		var s float64
		for j, v := range q.QueryVecs {
			s += float64(v) * float64(rows[i*d+j])
		}
		return s
	}
	var hits []Hit
	for r, v := range order[:min(k, len(order))] {
		h := Hit{Rank: r + 1, Video: v, ID: sp.VideoIDs[v], Score: float64(scores[v])}
		for j := range em.ClipSteps {
			h.ClipScores = append(h.ClipScores, cos(em.Clips, v*em.ClipSteps+j))
		}
		for i := range frameLen {
			if em.FrameMask[v*frameLen+i] > 0 {
				h.FrameScores = append(h.FrameScores, cos(em.Frames, v*frameLen+i))
			}
		}
		h.Best = slices.Index(h.ClipScores, slices.Max(h.ClipScores)) // the first best
		hits = append(hits, h)
	}
	return hits, nil
}

// Table lists the hits of sentence: score, the moment that matched and the annotated actions
// overlapping it, and the video's other annotated actions.
func (se *Search) Table(sentence string, hits []Hit) *report.Table {
	prov := se.Study.Provenance(fmt.Sprintf("The model of seed %d of %q (validation-selected epoch), searching the %d test videos; moments from the clip with the largest cosine.",
		se.Runs.Seeds[0], se.Runs.Variant.Name, se.Study.Setup.Test.NumVideos()))
	prov.Seeds = se.Runs.Seeds[:1]
	t := report.NewTable(fmt.Sprintf("HLFormer search: %q", sentence), prov,
		"rank", "video", "S (Eq. 9)", "moment matched", "annotated actions in that moment", "other annotated actions")
	for _, h := range hits {
		var in, out []string
		for _, a := range h.Actions {
			s := fmt.Sprintf("%s (%.1f–%.1f s)", se.className(a.Class), a.Start, a.End)
			if a.Start < h.To && a.End > h.From {
				in = append(in, s)
			} else {
				out = append(out, s)
			}
		}
		t.AddRow(h.Rank, h.ID, fmt.Sprintf("%.3f", h.Score), fmt.Sprintf("clip %d: %.1f–%.1f s of %.1f", h.Best, h.From, h.To, h.Length),
			cmp.Or(strings.Join(in, "; "), "—"), cmp.Or(strings.Join(out, "; "), "—"))
	}
	return t
}

func (se *Search) className(c int) string {
	if c >= 0 && c < len(se.classes) {
		return se.classes[c]
	}
	return fmt.Sprintf("c%03d", c)
}

// minCosineSpan is the least cosine range of Plot's curves panel, so that a flat curve (an
// untrained model) is drawn as flat rather than stretched over a range of rounding noise.
const minCosineSpan = 0.05

// Plot draws hit h over the video's time in two panels that share the time axis (report.Grid;
// nb.Plot shows it): above, the cosine of the query with every clip (glance) and frame (gaze),
// the matched clip shaded; below, the annotated actions as bars, one row each, named on the Y axis,
// with the matched clip shaded there too.
func (se *Search) Plot(h Hit) (report.Grid, error) {
	curves := plot.New()
	curves.Title.Text = fmt.Sprintf("#%d %s (S = %.3f): where the query matched", h.Rank, h.ID, h.Score)
	xLabel, length := "time (s)", h.Length
	if length <= 0 {
		length = float64(len(h.ClipScores)) // unknown length: clip units
		xLabel = "clip"
	}
	curves.X.Label.Text, curves.Y.Label.Text = xLabel, "cosine with the query"
	all := slices.Concat(h.ClipScores, h.FrameScores)
	lo, hi := slices.Min(all), slices.Max(all)
	if pad := (minCosineSpan - (hi - lo)) / 2; pad > 0 {
		lo, hi = lo-pad, hi+pad
	}
	band, err := matchedBand(h, lo, hi)
	if err != nil {
		return nil, err
	}
	curves.Add(band)
	curves.Legend.Add(fmt.Sprintf("matched clip %d (%.1f–%.1f s)", h.Best, h.From, h.To), band)
	colors := report.Colors("clips (glance)", "frames (gaze)")
	for i, s := range []report.Series{{Name: "clips (glance)", Y: h.ClipScores}, {Name: "frames (gaze)", Y: h.FrameScores}} {
		step := length / float64(len(s.Y))
		xys := make(plotter.XYs, len(s.Y))
		for j, v := range s.Y {
			xys[j] = plotter.XY{X: (float64(j) + 0.5) * step, Y: v}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = colors[i], vg.Points(1.5)
		curves.Add(l)
		curves.Legend.Add(s.Name, l)
	}
	curves.X.Min, curves.X.Max = 0, length
	curves.Y.Min, curves.Y.Max = lo, hi

	// The actions: row i at y = n−1−i (the first annotated action on top), named by a tick.
	actions := plot.New()
	n := len(h.Actions)
	actions.Title.Text = fmt.Sprintf("the %d annotated Charades actions of %s", n, h.ID)
	actions.X.Label.Text = xLabel
	band, err = matchedBand(h, -0.5, math.Max(float64(n)-0.5, 0.5))
	if err != nil {
		return nil, err
	}
	actions.Add(band)
	var ticks plot.ConstantTicks
	for i, a := range h.Actions {
		y := float64(n - 1 - i)
		bar, err := plotter.NewLine(plotter.XYs{{X: a.Start, Y: y}, {X: min(a.End, length), Y: y}})
		if err != nil {
			return nil, err
		}
		bar.Width, bar.Color = vg.Points(6), color.Gray{Y: 110}
		actions.Add(bar)
		ticks = append(ticks, plot.Tick{Value: y, Label: se.className(a.Class)})
	}
	actions.Y.Tick.Marker = ticks
	actions.X.Min, actions.X.Max = 0, length
	actions.Y.Min, actions.Y.Max = -0.7, math.Max(float64(n)-0.3, 0.7)
	return report.Grid{{curves}, {actions}}, nil
}

// matchedBand is the shaded time span of h's matched clip, from y = lo to hi.
func matchedBand(h Hit, lo, hi float64) (*plotter.Polygon, error) {
	band, err := plotter.NewPolygon(plotter.XYs{{X: h.From, Y: lo}, {X: h.To, Y: lo}, {X: h.To, Y: hi}, {X: h.From, Y: hi}})
	if err != nil {
		return nil, err
	}
	band.Color, band.LineStyle.Width = color.NRGBA{R: 255, G: 200, B: 80, A: 110}, 0
	return band, nil
}
