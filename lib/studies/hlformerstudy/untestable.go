package hlformerstudy

import "github.com/geoalign/geoalign/lib/reproduce"

// Untestable lists HLFormer's claims that no experiment here can test, with the reason; the
// driver adds them to its evidence so that REPORT.md lists them.
func Untestable() []reproduce.Claim {
	const features = "needs the official I3D / ResNet-152 + RoBERTa features (TVR, ActivityNet) or the TVR videos and subtitles, " +
		"which cannot be had on these machines; Charades-STA is tested with label-derived features instead"
	u := func(claim, paper, reason string) reproduce.Claim {
		return reproduce.Untestable(PaperHLFormer, claim, paper, reason)
	}
	return []reproduce.Claim{
		u("HLFormer sets the state of the art on TVR", "Table 1 (TVR SumR 187.7)", features),
		u("HLFormer sets the state of the art on ActivityNet Captions", "Table 1 (ActivityNet Captions SumR 154.9)", features),
		u("Fig. 4: on TVR, Lorentz attention separates the frames of different moments (UMAP)",
			"Fig. 4 (TVR)", features+"; the Charades-STA analogue is tested (moment separation)"),
		u("Fig. 5: on TVR, clip embeddings lie nearest the origin, then text, then frames",
			"Fig. 5 (TVR)", features+"; the analogue is tested at the ablation scale"),
		u("Training cost and hyper-parameters of the official runs (100 epochs, batch 128 on an RTX 3090)",
			"Tables 3, 4", "a description of the authors' infrastructure, not a claim that a CPU run could test; our budgets are stated in each table"),
	}
}
