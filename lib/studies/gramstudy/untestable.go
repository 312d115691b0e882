package gramstudy

import "github.com/geoalign/geoalign/lib/reproduce"

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
