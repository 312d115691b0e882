package study

import (
	"fmt"
	"time"

	"github.com/geoalign/geoalign/lib/models/gare"
	"github.com/gomlx/compute"
)

// Protocol is how every GARE result here is trained, mirroring the paper's setting on features
// we can have: the paper fine-tunes from CLIP, whose text and video embeddings are already
// aligned; ψ is new and the backbone barely moves (lr 1e-7 = 1e-3 × the lr of the new modules,
// spec §4.4). We have no CLIP, so
//
//  1. stage 1 ("pretraining", once per seed, shared by every variant): the baseline — input
//     projections + temporal transformer, InfoNCE on the text-conditioned pooled video — trained
//     PretrainEpochs epochs at PretrainLR on the training pairs; its encoders play CLIP's part;
//  2. stage 2 (per variant and seed): the variant's model starts from those encoders, ψ from the
//     code's N(0, 0.02) initialisation, and trains Base.Epochs epochs with the code's recipe
//     (BertAdam, warmup_cosine, clipping, wd 0.2) at Base.LearningRate for ψ and the temporal
//     transformer and Base.ProjectionLearningRate (1e-3 × that, as the code treats CLIP) for the
//     projections. The baseline row is stage 2 without Δ, so every row gets the same steps.
//
// Our stage-2 learning rate (1e-3) is 10× the code's 1e-4 because we train ~200 steps where the
// code trains ~7,000 (5 epochs of 180k MSR-VTT pairs at batch 128); with 1e-4 ψ barely moves in
// our budget and Δ stays a random perturbation (measured: R@1 8.5 vs 11.1 for the baseline).
type Protocol struct {
	Base           gare.Config
	PretrainEpochs int
	PretrainLR     float64
	Seeds          []uint64

	pretrained map[pretrainKey]*gare.Model
	results    map[runKey]*Result
	// PretrainSeconds accumulates the time spent in stage 1.
	PretrainSeconds float64
}

type runKey struct {
	cfg         gare.Config
	train, test *gare.Dataset
	seed        uint64
}

type pretrainKey struct {
	train *gare.Dataset
	seed  uint64
}

// Pretrained returns the stage-1 model of seed on train (trained once, then cached).
func (p *Protocol) Pretrained(b compute.Backend, train *gare.Dataset, seed uint64) (*gare.Model, error) {
	if p.pretrained == nil {
		p.pretrained = map[pretrainKey]*gare.Model{}
	}
	if m, ok := p.pretrained[pretrainKey{train, seed}]; ok {
		return m, nil
	}
	cfg := gare.BaselineConfig(p.Base)
	cfg.Epochs, cfg.LearningRate, cfg.ProjectionLearningRate = p.PretrainEpochs, p.PretrainLR, 0
	cfg.PsiDropout = 0
	m, err := gare.New(b, cfg, seed+pretrainSeedOffset)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if _, err := m.Train(train, gare.TrainOptions{Seed: seed + pretrainSeedOffset, Quiet: true}); err != nil {
		return nil, fmt.Errorf("pretraining (seed %d): %w", seed, err)
	}
	p.PretrainSeconds += time.Since(start).Seconds()
	p.pretrained[pretrainKey{train, seed}] = m
	return m, nil
}

// pretrainSeedOffset separates stage 1's random streams from stage 2's.
const pretrainSeedOffset = 1000

// Run trains cfg from the pretrained encoders of seed and evaluates it on test. Results are cached
// by (configuration, data, seed), so a row shared by several tables (the code's configuration) is
// trained once; the trained model is kept for the first seed of the protocol.
func (p *Protocol) Run(b compute.Backend, cfg gare.Config, train, test *gare.Dataset, seed uint64) (*Result, error) {
	key := runKey{cfg, train, test, seed}
	if r, ok := p.results[key]; ok {
		return r, nil
	}
	pre, err := p.Pretrained(b, train, seed)
	if err != nil {
		return nil, err
	}
	m, err := gare.New(b, cfg, seed)
	if err != nil {
		return nil, err
	}
	if err := m.CopyEncodersFrom(pre); err != nil {
		return nil, err
	}
	start := time.Now()
	hist, err := m.Train(train, gare.TrainOptions{Seed: seed, Quiet: true})
	if err != nil {
		return nil, err
	}
	rep, err := m.Evaluate(test)
	if err != nil {
		return nil, err
	}
	res := &Result{Seed: seed, Report: rep, Final: hist[len(hist)-1], Seconds: time.Since(start).Seconds()}
	if len(p.Seeds) > 0 && seed == p.Seeds[0] {
		res.Model = m
	}
	if p.results == nil {
		p.results = map[runKey]*Result{}
	}
	p.results[key] = res
	return res, nil
}
