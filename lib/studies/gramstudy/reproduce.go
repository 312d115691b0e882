package gramstudy

import (
	"path/filepath"

	"github.com/geoalign/geoalign/lib/models/gram"
	"github.com/geoalign/geoalign/lib/report"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// GRAM (ICLR 2025; notebooks/10-gram.ipynb) and HyperGRAM (CVPR 2026, no public code, summary only;
// notebooks/11-hypergram.ipynb) on the tri-modal sets of Options.Sets.
func init() {
	reproduce.Register(reproduce.Experiment{Paper: "gram", Figures: figures("gram", Untestable()),
		DataSections: TupleSections["gram"], PaperData: PaperData,
		Table1: table1(func(o Options, runs Runs, sets []*gram.Dataset) (*report.Table, []reproduce.Comparison, error) {
			return o.Table1(runs, sets, 0)
		})})
	reproduce.Register(reproduce.Experiment{Paper: "hypergram", Figures: figures("hypergram", UntestableHyperGRAM()),
		DataSections: TupleSections["hypergram"], PaperData: PaperData,
		Table1: table1(Options.Geometries)})
}

// studyOptions maps the reproduction options to the studies', with its run cache
// (reproduce.Options.RunCache; an interrupted run resumes from its last epoch).
func studyOptions(opts reproduce.Options) Options {
	return Options{Full: opts.Full, Seeds: opts.Seeds, DataCache: opts.DataCache, CacheDir: opts.RunCache(), Text: opts.Text, PaperData: opts.PaperData}
}

// table1 is the Table1 of a paper: study's table (GRAM: Options.Table1, HyperGRAM:
// Options.Geometries) on the three sets (or the synthetic one alone), trained without per-epoch
// evaluations. CI-sized: 3 seeds, ≈ 1–2 minutes on 2 cores.
func table1(study func(o Options, runs Runs, sets []*gram.Dataset) (*report.Table, []reproduce.Comparison, error)) func(reproduce.Options) ([]*report.Table, error) {
	return func(opts reproduce.Options) ([]*report.Table, error) {
		o := studyOptions(opts)
		sets, err := o.Sets(opts.Synthetic)
		if err != nil {
			return nil, err
		}
		t, _, err := study(o, Runs{}, sets)
		return []*report.Table{t}, err
	}
}

// tableWithCurves adds to sec a table of trained models saved as name, with, in its notes, how each
// group of runs ended on the validation split (ConvergenceNotes), and then its learning-curve figure
// <name>-learning-curves (TrainingCurves of rows, titled title).
func tableWithCurves(sec *reproduce.Section, name, title string, t *report.Table, rows ...CurveRow) error {
	g, notes, err := CurvesWithNotes(name+"-learning-curves", title, rows)
	if err != nil {
		return err
	}
	t.Provenance.Notes = append(t.Provenance.Notes, notes...)
	sec.Table(name, t)
	sec.Plot(name+"-learning-curves", g)
	return nil
}

// figures is the Figures of a paper of this package: its sections (Suite.Sections; GRAM, HyperGRAM:
// figures as a whole, no section can be selected) run under <opts.Out>/<paper> on one Suite, with
// the paper's untestable claims — or, on a researcher's tuple directory (opts.Data), the sections
// of opts.Sections among TupleSections (tupleFigures).
func figures(paper string, untestable []reproduce.Claim) func(reproduce.Options) error {
	return func(opts reproduce.Options) error {
		if opts.Data != "" {
			return tupleFigures(paper, opts)
		}
		if err := opts.NeedsRealData(paper); err != nil {
			return err
		}
		s, err := studyOptions(opts).NewSuite()
		if err != nil {
			return err
		}
		opts.Sections = nil
		_, err = reproduce.RunSections(opts, paper, filepath.Join(opts.Out, paper), "", s.Sections(paper), untestable...)
		return err
	}
}

// noBackbones is why the papers' benchmark numbers cannot be re-measured here.
const noBackbones = "needs the pretrained VAST / EVA-CLIP / BEATs / BERT backbones and the benchmark videos, " +
	"which cannot be had on these machines (no download beyond the Go, Debian and npm registries) and need GPUs"

// Untestable lists GRAM's claims that no experiment here can test, with the reason; the GRAM
// driver adds them to its evidence so that REPORT.md lists them.
func Untestable() []reproduce.Claim {
	u := func(claim, paper, reason string) reproduce.Claim {
		return reproduce.Untestable(PaperGRAM, claim, paper, reason)
	}
	return []reproduce.Claim{
		u("GRAM sets the state of the art in zero-shot text→video(+audio) retrieval on MSR-VTT, DiDeMo, ActivityNet and VATEX",
			"Tables 1, 8, 9 (e.g. MSR-VTT zero-shot T-VA R@1 54.2 vs VAST 49.3)", noBackbones),
		u("GRAM sets the state of the art after fine-tuning on MSR-VTT, DiDeMo, ActivityNet and VATEX",
			"Tables 2, 10, 11 (e.g. MSR-VTT T-VAS R@1 64.0)", noBackbones),
		u("GRAM improves text→audio retrieval (AudioCaps) and audio-video classification (VGGSound)",
			"Table 3 (AudioCaps, VGGSound 5K)", noBackbones+"; our tri-modal sets have no class-labelled audio-video task of that kind"),
		u("GRAM trained from scratch on ActivityNet: the volume losses beat the pairwise losses and converge earlier",
			"Table 6 (ActivityNet columns), Fig. 5", "ActivityNet videos and features cannot be had; the MSR-VTT-like ablation is run on Tux Paint instead (Table 6 analogue)"),
		u("Pretraining on VAST-150k with the GRAM loss", "§4 (150k samples, batch 256, GPUs)",
			"a 150k-sample multimodal pretraining run is outside a 2-core CPU budget and its data cannot be downloaded"),
	}
}

// UntestableHyperGRAM lists HyperGRAM's claims that no experiment here can test.
func UntestableHyperGRAM() []reproduce.Claim {
	u := func(claim, paper, reason string) reproduce.Claim {
		return reproduce.Untestable(PaperHyperGRAM, claim, paper, reason)
	}
	return []reproduce.Claim{
		u("HyperGRAM beats GRAM on MSR-VTT, DiDeMo, ActivityNet and VATEX by +1.5 to +2.9 R@1",
			"HyperGRAM summary, main results", noBackbones+"; tested instead on the tri-modal sets here (Geometries)"),
		u("The volume–text-length correlation is +0.335 on MSR-VTT and −0.124 on DiDeMo",
			"HyperGRAM summary", "needs MSR-VTT and DiDeMo embeddings of a trained HyperGRAM; one real set here has captions of varying length"),
	}
}
