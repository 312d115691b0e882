package hlformerstudy

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/models/hlformer"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// ConfigFile reads the run configuration of every variant from file (`--config`: hlformer.RunConfig
// as JSON, the config.json `geoalign train hlformer` writes) on top of base, the scale's on the data's
// widths: fields the file leaves out keep base's, widths of 0 are the data's. The notes name each field of the file that a
// variant of Table 1 or Table 2 overrides. An unknown field, a value outside its domain or a feature
// width other than the data's is a data.BadInput error naming the file and the field.
func ConfigFile(file string, base hlformer.RunConfig) (cfg hlformer.RunConfig, notes []string, err error) {
	cfg = base
	b, err := reproduce.ReadConfig(file, &cfg)
	if err != nil {
		return cfg, nil, data.BadInput(err)
	}
	// Widths of 0 (as --print-config prints them) are the data's.
	cfg.Model.VideoDim, cfg.Model.QueryDim = cmp.Or(cfg.Model.VideoDim, base.Model.VideoDim), cmp.Or(cfg.Model.QueryDim, base.Model.QueryDim)
	for _, w := range []struct {
		field     string
		got, want int
	}{{"Model.VideoDim", cfg.Model.VideoDim, base.Model.VideoDim}, {"Model.QueryDim", cfg.Model.QueryDim, base.Model.QueryDim}} {
		if w.got != w.want {
			return cfg, nil, data.BadInput(fmt.Errorf("--config %s: %s = %d, but the data's features are %d-d", file, w.field, w.got, w.want))
		}
	}
	if err := cfg.Training.Validate(); err != nil {
		return cfg, nil, data.BadInput(fmt.Errorf("--config %s: %w", file, err))
	}
	if err := cfg.Model.Validate(); err != nil {
		return cfg, nil, data.BadInput(fmt.Errorf("--config %s: %w", file, err))
	}
	var variants []reproduce.Variant
	for _, v := range slices.Concat(Table1Variants, Table2Variants) {
		variants = append(variants, reproduce.Variant{Name: v.Name, Config: v.ApplyRun(cfg)})
	}
	if notes, err = reproduce.ConfigNotes(file, b, base, cfg, variants); err != nil {
		return cfg, nil, data.BadInput(err)
	}
	return cfg, notes, nil
}
