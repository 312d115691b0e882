package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/geoalign/geoalign/lib/rundir"
)

// fuzzConfig fuzzes the configuration decoder of one model kind in memory (what --config, --resume
// and eval read): decoding never panics; a decoded configuration validates without panicking,
// encodes, decodes to the same configuration (the JSON config.json stores is a fixed point), has a
// record hash, and differs from itself in no field. Seeds: the defaults (--print-config) and a few
// malformed documents.
func fuzzConfig(f *testing.F, name string) {
	kind, ok := lookupModel(name)
	if !ok {
		f.Fatalf("no model %q", name)
	}
	def, err := json.MarshalIndent(kind.defaults(), "", "  ")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{string(def), `{}`, `{"Model": {}}`, `{"Model": {"Epochs": -1}}`, `{"Training": {"Seed": 9007199254740993}}`,
		`{"Model": {"Dim": 1e400}}`, `{"Model": null}`, `[]`, `{"Model": {"Unknown": 1}}`, `{"Model": {"Epochs": 2}} {}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg := kind.defaults()
		if err := decodeConfig(b, cfg, "fuzz.json"); err != nil {
			return
		}
		_ = validateKind(kind, cfg) // an error is fine, a panic is not
		enc, err := json.Marshal(cfg)
		if err != nil {
			t.Fatalf("a decoded configuration does not encode: %v", err)
		}
		again := kind.defaults()
		if err := decodeConfig(enc, again, "encoded"); err != nil {
			t.Fatalf("the encoded configuration %s does not decode: %v", enc, err)
		}
		enc2, _ := json.Marshal(again)
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("not a fixed point:\n%s\n%s", enc, enc2)
		}
		h1, err1 := rundir.ConfigHash(enc)
		h2, err2 := rundir.ConfigHash(enc2)
		if err1 != nil || err2 != nil || h1 != h2 {
			t.Fatalf("hashes %s, %s (%v, %v)", h1, h2, err1, err2)
		}
		if diffs, err := configDiff(kind.defaults(), cfg, again); err != nil || len(diffs) > 0 {
			t.Fatalf("a configuration differs from its copy: %v %v", diffs, err)
		}
	})
}

func FuzzConfigHLFormer(f *testing.F)  { fuzzConfig(f, "hlformer") }
func FuzzConfigGARE(f *testing.F)      { fuzzConfig(f, "gare") }
func FuzzConfigGRAM(f *testing.F)      { fuzzConfig(f, "gram") }
func FuzzConfigHyperGRAM(f *testing.F) { fuzzConfig(f, "hypergram") }
