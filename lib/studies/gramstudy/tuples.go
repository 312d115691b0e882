package gramstudy

import (
	"cmp"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// GRAM's and HyperGRAM's protocols on a researcher's tuple directory (`geoalign reproduce|figures
// --paper gram|hypergram --data DIR`, reproduce.Options.Data): the directory `geoalign train gram
// --data DIR` reads (lib/data/featdir.TupleLayout, gram.LoadTupleDir) is the one set of the
// sections TupleSections names, every variant built on the base configuration (`--config`, else
// gram.DefaultConfig) and trained as one models.Run per seed, in the run directories `geoalign
// train gram` writes (Options.Train). Its tables carry the zero-training floors of the data
// (Floors) and, with `--paper-data`, whether each row agrees with the paper's number
// (reproduce.AgreesWithPaper). docs/data-sources.md §6 says what the tuple path does differently
// from the tracks (no standardisation, instance-level relevance) and why.

// TupleSections are the sections of each paper that run on a tuple directory, Table 1 first: GRAM's
// Table 1 and its modality-count table (Table 4 with k = 2 … K on the directory's modalities, in
// modalities.txt's order); HyperGRAM's Table 1, its main comparison of the geometries (saved as
// geometries, as on the tracks).
var TupleSections = map[string][]string{"gram": {"table1", "table4-k"}, "hypergram": {"table1"}}

// PaperMSRVTT names the MSR-VTT data set of GRAM's and HyperGRAM's tables (`--paper-data`): the
// zero-shot text → video(+audio) R@1 that their Table 1 / main-results *paper* columns quote.
const PaperMSRVTT = "msr-vtt"

// PaperData are the `--paper-data` values of either paper.
var PaperData = []string{PaperMSRVTT}

// tupleVariants are the variants whose changes to the base configuration `--config`'s notes name.
var tupleVariants = []Variant{Pairwise, GRAM, GRAMFromCosine, PureHyperbolic, FixedAlphaHyperGRAM, HyperGRAM}

// OpenTuples loads the tuple directory dir as the study's one set, on the base configuration of
// every variant: configFile (`--config`, `geoalign train gram`'s {"Model": …} as --print-config
// prints it) on top of gram.DefaultConfig, or gram.DefaultConfig. The returned Options train every
// variant on that base (Variant.on) for its Model.Epochs and keep its notes. Bad input is a
// data.BadInput error naming the file and the field, before any training: a missing or malformed
// file, modalities whose row counts differ (featdir), an unknown or invalid configuration field, a
// training split smaller than one batch, a validation or test split of fewer than 2 tuples.
func (o Options) OpenTuples(dir, configFile string) (Options, *gram.Dataset, error) {
	base, notes, err := tupleConfig(configFile)
	if err != nil {
		return o, nil, data.BadInput(err)
	}
	d, splits, err := gram.LoadTupleDir(dir, base.ValFraction)
	if err != nil {
		return o, nil, data.BadInput(err)
	}
	from := cmp.Or(configFile, "gram.DefaultConfig")
	if d.Train.N < base.BatchSize {
		return o, nil, data.BadInput(fmt.Errorf("%s: the training split has %d tuples (after the validation split), fewer than one batch of Model.BatchSize = %d (%s)",
			filepath.Join(dir, featdir.TrainFile), d.Train.N, base.BatchSize, from))
	}
	for _, s := range []struct {
		file string
		n    int
	}{{featdir.ValFile, d.Val.N}, {featdir.TestFile, d.Test.N}} {
		if s.n < 2 {
			file := filepath.Join(dir, s.file)
			if s.file == featdir.ValFile && splits.ValCarved {
				file = filepath.Join(dir, featdir.TrainFile) + " (validation carved from it, Model.ValFraction)"
			}
			return o, nil, data.BadInput(fmt.Errorf("%s: the %s split has %d tuple(s): nothing to rank", file, strings.TrimSuffix(s.file, ".txt"), s.n))
		}
	}
	if splits.ValCarved {
		notes = append(notes, splits.Note)
	}
	d.Kind = data.Real // the researcher's own features, as a collection of HLFormer's is
	d.Notes = append(notes,
		"features as given in "+dir+" (not standardised, as `geoalign train gram --data` reads them; the tracks standardise with train statistics); "+
			"relevance is instance-level: a query's only relevant tuple is its own row (the diagonal, GRAM's protocol, docs/official-code.md §1.6) — "+
			"the tuple format carries no class labels (docs/data-sources.md §6)",
		fmt.Sprintf("every variant trains Model.Epochs = %d epochs of the base configuration (%s) and keeps the epoch of the best validation SumR", base.Epochs, from))
	o.Base, o.FixedEpochs, o.Tuples = &base, base.Epochs, dir
	return o, d, nil
}

// tupleConfig is the base configuration of every variant on a tuple directory: file on top of
// gram.DefaultConfig (gram.DefaultConfig without a file), and the notes naming the file and each of
// its fields a variant overrides.
func tupleConfig(file string) (gram.Config, []string, error) {
	base := gram.DefaultConfig()
	if file == "" {
		return base, nil, nil
	}
	cfg := struct{ Model gram.Config }{base}
	b, err := reproduce.ReadConfig(file, &cfg)
	if err != nil {
		return base, nil, err
	}
	if cfg.Model.CheckpointDir != "" {
		return base, nil, fmt.Errorf("--config %s: Model.CheckpointDir = %q: every run keeps its checkpoints in its run directory (--runs); leave it empty", file, cfg.Model.CheckpointDir)
	}
	if err := cfg.Model.Validate(); err != nil {
		return base, nil, fmt.Errorf("--config %s: Model: %w", file, err)
	}
	variants := make([]reproduce.Variant, len(tupleVariants))
	for i, v := range tupleVariants {
		variants[i] = reproduce.Variant{Name: v.Label, Config: struct{ Model gram.Config }{v.on(&cfg.Model).Config}}
	}
	notes, err := reproduce.ConfigNotes(file, b, struct{ Model gram.Config }{base}, cfg, variants)
	if err != nil {
		return base, nil, err
	}
	return cfg.Model, notes, nil
}

// on is v with its defining fields (variantFields, and every field where v.Config or its WarmStart
// differs from gram.DefaultConfig) applied to base instead; v itself without a base (the tracks'
// studies).
func (v Variant) on(base *gram.Config) Variant {
	if base == nil {
		return v
	}
	v.Config = changes(v.Config, *base)
	if v.WarmStart != nil {
		v.WarmStart = new(changes(*v.WarmStart, *base))
	}
	return v
}

// variantFields are the fields that define every variant, whatever the base: its objective, its
// geometry and whether α is learned (GRAM stays Euclidean on a hyperbolic base).
var variantFields = []string{"Objective", "Geometry", "FixedAlpha"}

// changes applies to base the variantFields of c and every field where c differs from
// gram.DefaultConfig (gram.Config is flat: its JSON leaves are its fields).
func changes(c, base gram.Config) gram.Config {
	def, mine, out := reproduce.ConfigLeaves(gram.DefaultConfig()), reproduce.ConfigLeaves(c), reproduce.ConfigLeaves(base)
	for k, val := range mine {
		if slices.Contains(variantFields, k) || fmt.Sprint(val) != fmt.Sprint(def[k]) {
			out[k] = val
		}
	}
	b, err := json.Marshal(out)
	if err == nil {
		err = json.Unmarshal(b, &base)
	}
	if err != nil { // the leaves of a gram.Config always round-trip
		panic(fmt.Sprintf("gramstudy: configuration of a variant: %v", err))
	}
	return base
}

// Floor is a zero-training ranking of a set's test split: Of is its value of a metric.
type Floor struct {
	Name string
	Of   func(Metric) float64
}

// Floors are the zero-training floors of d's test split, as Table 1 and the geometries table print
// them on a tuple directory: random ranking always (Metric.Random), and the mean cosine of the raw
// features of the anchor and each data modality (gram.MeanCosineScore) when every modality has the
// same width — parameter-free, so what training must beat — with the note saying which.
func (o Options) Floors(d *gram.Dataset) ([]Floor, string, error) {
	te := d.Test
	random := &gram.Embeddings{N: te.N, Relevant: te.Relevant}
	floors := []Floor{{"floor: random ranking", func(m Metric) float64 { return m.Random(random) }}}
	if slices.Min(te.Dims) != slices.Max(te.Dims) {
		return floors, fmt.Sprintf("floors on %s: random ranking only — the modalities' widths differ (%s), so no similarity exists before training",
			ShortName(d), dimsOf(d)), nil
	}
	emb := &gram.Embeddings{N: te.N, Dim: te.Dims[0], Relevant: te.Relevant}
	for m := range te.Features {
		rows := make([][]float32, te.N)
		for i := range rows {
			rows[i] = te.Row(m, i)
		}
		emb.Heads = append(emb.Heads, rows)
	}
	ev, err := gram.Evaluate(o.backend(), emb, gram.Score{Kind: gram.MeanCosineScore})
	if err != nil {
		return nil, "", fmt.Errorf("gramstudy: cosine floor on %s: %w", d.Name, err)
	}
	floors = append(floors, Floor{"floor: mean cosine of the raw features", func(m Metric) float64 { return m.Of(ev) }})
	return floors, fmt.Sprintf("floors on %s: random ranking, and the mean over the data modalities of cos(anchor, modality) on the raw features "+
		"(every modality is %d-d: %s), no training", ShortName(d), te.Dims[0], dimsOf(d)), nil
}

// dimsOf is "text 5, image 6, …": each modality's width.
func dimsOf(d *gram.Dataset) string {
	var out []string
	for m, name := range d.Modalities {
		out = append(out, fmt.Sprintf("%s %d", name, d.Test.Dims[m]))
	}
	return strings.Join(out, ", ")
}

// floorRows adds d's floors (Floors; none off a tuple directory) to t, one row each: the data, the
// floor's name, its value of each of metrics, then "—" for the remaining rest cells. It returns the
// number of rows added.
func (o Options) floorRows(t *report.Table, d *gram.Dataset, rest int, metrics ...Metric) (int, error) {
	if o.Tuples == "" {
		return 0, nil
	}
	floors, note, err := o.Floors(d)
	if err != nil {
		return 0, err
	}
	t.Provenance.Notes = append(t.Provenance.Notes, note)
	for _, f := range floors {
		row := []any{ShortName(d), f.Name}
		for _, m := range metrics {
			row = append(row, fmt.Sprintf("%.1f", f.Of(m)))
		}
		for range rest {
			row = append(row, "—")
		}
		t.AddRow(row...)
	}
	return len(floors), nil
}

// agreement adds the agreement column on T→V+A R@1 to t when Options.PaperData names the paper's
// data set: cells holds, row by row, the runs' agreement cells ("—" for a floor row).
func (o Options) agreement(t *report.Table, cells []string) {
	if o.PaperData == "" {
		return
	}
	t.Provenance.Notes = append(t.Provenance.Notes, "--paper-data "+o.PaperData+": the paper's numbers are zero-shot retrieval with "+
		"pretrained VAST/EVA-CLIP/BEATs/BERT encoders; ours are models trained on these features, so agreement compares the numbers, not the training")
	reproduce.AddAgreement(t, T2VR1.Name, func(i int) string { return cells[i] })
}

// agreementCell is the agreement cell of runs against the paper's T→V+A R@1 cell paper.
func agreementCell(runs []*Run, paper string) string {
	return reproduce.AgreesWithPaper(Values(runs, T2VR1), paper)
}

// tupleFigures runs opts.Sections of paper's TupleSections on the tuple directory opts.Data into
// <opts.Out>/<paper> (suffix -ci, or -full), with claims.json and pending.json (reproduce.RunSections);
// the papers' untestable claims are not added: the directory may hold the very data they lack.
func tupleFigures(paper string, opts reproduce.Options) error {
	o, d, err := studyOptions(opts).OpenTuples(opts.Data, opts.Config)
	if err != nil {
		return err
	}
	if paper == "gram" && opts.Wants("table1") && o.Base.Epochs < 2 {
		return data.BadInput(fmt.Errorf("--config %s: Model.Epochs = %d: Table 1's %q trains half the epochs with each loss, so it needs at least 2",
			cmp.Or(opts.Config, "(none)"), o.Base.Epochs, GRAMFromCosine.Label))
	}
	o.Progress = true
	s := &Suite{Options: o, Sets: []*gram.Dataset{d}, Runs: Runs{}}
	sections := map[string][]reproduce.NamedSection{
		"gram": {
			reproduce.Step("table1", func(sec *reproduce.Section) error {
				t, cs, err := s.Options.Table1(s.Runs, s.Sets, 0)
				if err != nil {
					return err
				}
				sec.Comparisons = append(sec.Comparisons, cs...)
				return tableWithCurves(sec, "table1", "Table 1", t, s.Runs.CurveRows(s.Sets, table1Variants...)...)
			}),
			reproduce.Step("table4-k", func(sec *reproduce.Section) error { return s.kModalities(sec, d) }),
		},
		"hypergram": {reproduce.Step("table1", s.geometries)},
	}[paper]
	suffix := "-ci"
	if opts.Full {
		suffix = "-full"
	}
	_, err = reproduce.RunSections(opts, paper, filepath.Join(opts.Out, paper), suffix, sections)
	return err
}
