// Command gramcurves trains one GRAM / HyperGRAM variant of the gramstudy studies on one of their
// data sets for a given number of epochs and one seed, and prints its learning curve: per epoch the
// mean training loss, the validation T→data SumR (the metric that selects the model, retrieval.ValMetric)
// and R@1 on the validation split carved from train (gram.CarveValidation, ValFraction 0.1), α and the
// seconds. The test split is never evaluated: this is the sweep that chooses Options.Epochs.
//
//	go run ./lib/cmd/gramcurves -data tuxpaint -variant hypergram -epochs 30 -json out.json
package main

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/studies/gramstudy"
)

var (
	dataName = flag.String("data", "tuxpaint", "digits | tuxpaint | langs (text, image, speech fr, es, ru) | synthetic | rich (synthetic, richness 2)")
	k        = flag.Int("k", 0, "keep the first k modalities (0: all)")
	variant  = flag.String("variant", "gram", "gram | pairwise | hypergram | hyperbolic | fixed-alpha")
	epochs   = flag.Int("epochs", 30, "training epochs")
	lr       = flag.Float64("lr", 0, "learning rate (0: the variant's)")
	alphaLR  = flag.Float64("alpha-lr", 0, "α's learning-rate multiplier (gram.Config.AlphaLRMultiplier)")
	alpha0   = flag.Float64("alpha0", 0, "α's initial value (0: the variant's)")
	seed     = flag.Int64("seed", 1, "seed")
	full     = flag.Bool("full", true, "the full configuration's data sets (gramstudy.Options.Full)")
	cache    = flag.String("cache", "", "datasets/cache (\"\": the checkout's)")
	out      = flag.String("json", "", "write the history as JSON to this file")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gramcurves:", err)
		os.Exit(2)
	}
}

// run trains the flags' variant on the flags' data set and prints its learning curve.
func run() error {
	o := gramstudy.Options{Full: *full, DataCache: *cache, Backend: backend.MustNew()}
	load, ok := map[string]func() (*gram.Dataset, error){"digits": o.Digits, "tuxpaint": o.TuxPaint, "langs": o.TuxPaintLangs,
		"synthetic": func() (*gram.Dataset, error) { return o.Synthetic(0, 0.3) },
		"rich":      func() (*gram.Dataset, error) { return o.Synthetic(2, 0) }}[*dataName]
	if !ok {
		return fmt.Errorf("-data %q: not one of digits, tuxpaint, langs, synthetic, rich", *dataName)
	}
	d, err := load()
	if err != nil {
		return err
	}
	if *k > 0 {
		mods := make([]int, *k)
		for i := range mods {
			mods[i] = i
		}
		if d, err = d.SelectModalities(mods); err != nil {
			return err
		}
	}
	v, ok := map[string]gramstudy.Variant{"gram": gramstudy.GRAM, "pairwise": gramstudy.Pairwise, "hypergram": gramstudy.HyperGRAM,
		"hyperbolic": gramstudy.PureHyperbolic, "fixed-alpha": gramstudy.FixedAlphaHyperGRAM}[*variant]
	if !ok {
		return fmt.Errorf("-variant %q: not one of gram, pairwise, hypergram, hyperbolic, fixed-alpha", *variant)
	}
	cfg := v.Config
	cfg.Epochs, cfg.Seed, cfg.Quiet = *epochs, *seed, true
	cfg.LearningRate = cmp.Or(*lr, cfg.LearningRate)
	cfg.AlphaLRMultiplier = cmp.Or(*alphaLR, cfg.AlphaLRMultiplier)
	cfg.AlphaInit = cmp.Or(*alpha0, cfg.AlphaInit)
	t, err := gram.NewTrainer(o.Backend, d, cfg)
	if err != nil {
		return err
	}
	fmt.Printf("%s on %s (%v), seed %d: %d train / %d validation tuples, %d steps per epoch, %s\n",
		v.Label, d.Name, strings.Join(d.Modalities, ", "), *seed, t.TrainSplit.N, t.ValSplit.N, t.StepsPerEpoch(), cfg.Behavior())
	fmt.Println("epoch   loss  val SumR  val R@1   alpha      s  best")
	t.OnEpoch = func(_ *gram.Trainer, s gram.EpochStats) error {
		best := ""
		if s.Best {
			best = "*"
		}
		fmt.Printf("%5d %6.3f %9.1f %8.1f %7.3f %6.1f  %s\n", s.Epoch, s.Loss, s.Validation.T2V.SumR, s.Validation.T2V.R(1), s.Alpha, s.Seconds, best)
		return nil
	}
	if err := t.Train(); err != nil {
		return err
	}
	if *out == "" {
		return nil
	}
	b, err := json.MarshalIndent(t.History, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(*out, b, 0o644)
}
