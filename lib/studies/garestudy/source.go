package garestudy

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/featdir"
	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
	"github.com/gomlx/compute"
)

// PaperMSRVTT names the MSR-VTT 1k-A data of the paper's tables (`--paper-data`): Table 1's
// baseline and GARE rows (Variant.Paper) and the ablation tables are on it.
const PaperMSRVTT = "msr-vtt-1k-a"

// PaperData are the `--paper-data` values: the data sets of the paper's tables whose numbers the
// protocol declares.
var PaperData = []string{PaperMSRVTT}

// DataSections are the sections of Suite.Named that run on a researcher's feature directory
// (reproduce.Options.Data): the tables whose rows are variants trained on the data.
var DataSections = []string{"table1", "table3"}

// Floor names of a feature directory (FeatureDirSource).
const (
	FloorCosine = "zero-training floor: cos(text feature, mean frame feature)"
	FloorRandom = "zero-training floor: random ranking"
)

// FeatureDirSource loads a researcher's text–video feature directory dir (lib/data/featdir, what
// `geoalign train gare --data DIR` reads) as a DataSource at the scale's size, by the rule of the
// Charades track: the training set is every caption of train.txt's videos paired with its video
// (gare.PairedFromDir; the protocol carves its validation pairs from it, data.CarveValidation, as on
// the track; val.txt, if any, is not read), cut to its first CharadesTrain pairs, and the test set
// the captions of test.txt's first CharadesTest videos against those videos (gare.RetrievalFromDir;
// one caption per video: the first CharadesTest pairs, as on the track). Floors: random ranking
// always, and, when text and video features have the same width, cos(text, mean frame) (the
// table's floor; random ranking is then a second row). A missing or inconsistent file is a
// data.BadInput error naming it.
func FeatureDirSource(b compute.Backend, s Scale, dir string, valFraction float64) (*DataSource, error) {
	d, err := featdir.LoadTextVideo(dir, valFraction)
	if err != nil {
		return nil, data.BadInput(fmt.Errorf("gare: %w", err))
	}
	trainVideos := d.Splits.Train
	if d.Splits.ValCarved { // the protocol carves its own validation from the training pairs
		trainVideos = slices.Sorted(slices.Values(slices.Concat(d.Splits.Train, d.Splits.Val)))
	}
	train := gare.PairedFromDir(d, "train", trainVideos)
	if n := s.CharadesTrain; n > 0 && n < train.NumTexts {
		train = train.Subset(fmt.Sprintf("train (first %d pairs)", n), seq(n))
	}
	testVideos := d.Splits.Test
	if n := s.CharadesTest; n > 0 && n < len(testVideos) {
		testVideos = testVideos[:n]
	}
	test := gare.RetrievalFromDir(d, "test", testVideos)
	for _, ds := range []*gare.Dataset{train, test} {
		if err := ds.Validate(); err != nil {
			return nil, data.BadInput(fmt.Errorf("%s: %w", dir, err))
		}
	}
	random, err := RandomFloor(test)
	if err != nil {
		return nil, err
	}
	src := &DataSource{Train: train, Test: test, Kind: report.Real, Words: d.Words,
		Floor: &ZeroFloor{Name: FloorRandom, Report: random},
		Data: fmt.Sprintf("text–video feature directory %s: %d-d text, %d frames × %d-d video; %d train pairs (%d videos of %s), test %d texts × %d videos (%s)",
			dir, d.TextDim, d.Frames, d.VideoDim, train.NumTexts, len(trainVideos), featdir.TrainFile, test.NumTexts, test.NumVideos, featdir.TestFile)}
	if _, err := os.Stat(filepath.Join(dir, featdir.ValFile)); err == nil {
		src.Notes = append(src.Notes, fmt.Sprintf("%s is not read: the protocol selects on %g of the training pairs (Config.ValFraction), as on every source.",
			filepath.Join(dir, featdir.ValFile), valFraction))
	}
	if d.TextDim == d.VideoDim {
		cos, err := ZeroTraining(b, test, 0)
		if err != nil {
			return nil, err
		}
		src.Floor, src.MoreFloors = &ZeroFloor{Name: FloorCosine, Report: cos}, []*ZeroFloor{src.Floor}
	} else {
		src.Notes = append(src.Notes, fmt.Sprintf("No parameter-free floor: text (%d-d) and video (%d-d) features differ in width, so the floor is random ranking.", d.TextDim, d.VideoDim))
	}
	return src, nil
}

// ConfigFile reads the stage-2 base configuration of every variant from file (`--config`:
// gare.RunConfig as JSON, the config.json `geoalign train gare` writes; its Model is used) on top of
// base, the scale's on the data's widths: fields the file leaves out keep base's, widths of 0 are
// the data's. The notes name each field of the file that a variant of DataSections overrides
// (reproduce.ConfigNotes). An unknown field, an invalid value or a width other than the data's is a
// data.BadInput error naming the file and the field.
func ConfigFile(file string, base gare.Config) (gare.Config, []string, error) {
	rc := gare.RunConfig{Model: base}
	b, err := reproduce.ReadConfig(file, &rc)
	if err != nil {
		return base, nil, data.BadInput(err)
	}
	cfg := rc.Model
	for _, w := range []struct {
		field string
		got   *int
		want  int
	}{{"Model.TextInputDim", &cfg.TextInputDim, base.TextInputDim}, {"Model.VideoInputDim", &cfg.VideoInputDim, base.VideoInputDim},
		{"Model.Frames", &cfg.Frames, base.Frames}} {
		*w.got = cmp.Or(*w.got, w.want)
		if *w.got != w.want {
			return base, nil, data.BadInput(fmt.Errorf("--config %s: %s = %d, but the data's features have %d", file, w.field, *w.got, w.want))
		}
	}
	if err := cfg.Validate(); err != nil {
		return base, nil, data.BadInput(fmt.Errorf("--config %s: %w", file, err))
	}
	var variants []reproduce.Variant
	for _, v := range slices.Concat(Table1Variants(), Table3Variants()) { // the variants of DataSections
		c := cfg
		if v.Apply != nil {
			v.Apply(&c)
		}
		variants = append(variants, reproduce.Variant{Name: v.Name, Config: gare.RunConfig{Model: c}})
	}
	notes, err := reproduce.ConfigNotes(file, b, gare.RunConfig{Model: base}, gare.RunConfig{Model: cfg}, variants)
	if err != nil {
		return base, nil, data.BadInput(err)
	}
	return cfg, notes, nil
}

// Check reports, before any training, data the suite cannot run on: fewer training pairs (after
// the validation carve) than one batch of the base configuration, or a test split of fewer than 2
// videos; a data.BadInput error naming the file (where) and the field.
func (s *Suite) Check(where string) error {
	fit := s.Train.NumTexts - valPairs(s.Base, s.Train.NumTexts)
	if fit < s.Base.Batch {
		return data.BadInput(fmt.Errorf("gare: %s: %d training pairs after the validation carve, fewer than one batch of Model.Batch = %d",
			filepath.Join(where, featdir.TrainFile), fit, s.Base.Batch))
	}
	if s.Test.NumVideos < 2 {
		return data.BadInput(fmt.Errorf("gare: %s: the test split has %d video(s): nothing to rank", filepath.Join(where, featdir.TestFile), s.Test.NumVideos))
	}
	return nil
}
