package reproduce

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// ruleCase is one hand-made comparison of testdata/rule.json, written by
// lib/stats/testdata/golden.py with scipy.stats: P is the two-sided paired p of B − A, PHolm its
// Holm adjustment within the case's paper (reference Holm in Python), and the *P fields the
// one-sided p-values of the gates' tests (ttest_1samp / ttest_rel, alternative="greater").
type ruleCase struct {
	Name, Paper    string
	A, B, Floor    []float64
	Seeds          []int64
	Higher, Family bool
	Best, Random   float64
	BestEpochB     []int   `json:"best_epoch_b"`
	P              float64 `json:"p"`
	PHolm          float64 `json:"p_holm"`
	FloorPA        float64 `json:"floor_p_a"`
	FloorPB        float64 `json:"floor_p_b"`
	RandomPB       float64 `json:"random_p_b"`
}

func readRuleCases(t *testing.T) []ruleCase {
	t.Helper()
	b, err := os.ReadFile("testdata/rule.json")
	if err != nil {
		t.Fatal(err)
	}
	var cs []ruleCase
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatalf("testdata/rule.json: %v", err)
	}
	return cs
}

func (rc ruleCase) comparison() Comparison {
	c := Comparison{
		Paper: rc.Paper, Claim: rc.Name, PaperFigure: "Table 0", Data: "synthetic", Metric: "R@1", Higher: rc.Higher,
		A:    Sample{Name: "base", Seeds: rc.Seeds, Values: rc.A, Learned: true},
		B:    Sample{Name: "ours", Seeds: rc.Seeds, Values: rc.B, Learned: true, BestEpoch: rc.BestEpochB},
		Best: rc.Best, Random: rc.Random,
	}
	if rc.Floor != nil {
		c.Floor = &Sample{Name: "zero-training", Seeds: rc.Seeds, Values: rc.Floor}
		if len(rc.Floor) == 1 {
			c.Floor.Seeds = nil
		}
	}
	return c
}

// near is a relative 1e-6 match (absolute 1e-12 at zero).
func near(got, want float64) bool { return math.Abs(got-want) <= 1e-12+1e-6*math.Abs(want) }

// TestDecideOutcomes: every outcome and gate reached by a hand-made case. For the tested claims the
// outcome also follows from scipy's p-values alone (adjusted p < 0.05, sign of the difference).
func TestDecideOutcomes(t *testing.T) {
	want := map[string]struct {
		outcome Outcome
		gate    Gate
		reason  string // a substring of Reason
	}{
		"holds":            {outcome: Holds},
		"contradicted":     {outcome: Contradicted},
		"inconclusive":     {outcome: Inconclusive},
		"borderline":       {outcome: Inconclusive}, // raw p < 0.05, Holm over 4 claims ≥ 0.05
		"borderline alone": {outcome: Holds},        // the same data alone in its paper
		"lower is better":  {outcome: Holds},
		"n=3":              {outcome: Inconclusive, reason: "n = 3 < 5 seeds"},
		"identical":        {outcome: NotTestable, gate: GateCeiling, reason: "identical on every seed"},
		"at best":          {outcome: NotTestable, gate: GateCeiling, reason: "best (100)"},
		"floor fails":      {outcome: NotTestable, gate: GateFloor, reason: "base 88.62 ± 0.11 does not beat the floor, zero-training 89.35 (one-sided p = 1)"},
		"floor passes":     {outcome: Holds},
		"collapse random":  {outcome: NotTestable, gate: GateCollapse, reason: "within noise of random ranking (10"},
		"collapse epoch":   {outcome: NotTestable, gate: GateCollapse, reason: "ours: best epoch ≤ 1 on seed 2"},
	}
	cases := readRuleCases(t)
	var cs []Comparison
	for _, rc := range cases {
		cs = append(cs, rc.comparison())
	}
	claims, err := Decide(cs)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Outcome]bool{}
	for i, rc := range cases {
		c, w := claims[i], want[rc.Name]
		if w.outcome == "" {
			t.Fatalf("case %q of testdata/rule.json has no expectation here", rc.Name)
		}
		seen[c.Outcome] = true
		if c.Outcome != w.outcome || c.Gate != w.gate || !strings.Contains(c.Reason, w.reason) {
			t.Errorf("%s: %s (gate %q), want %s (gate %q, reason ⊇ %q)", rc.Name, c, c.Gate, w.outcome, w.gate, w.reason)
		}
		if c.N != len(rc.A) || c.Ours == "" {
			t.Errorf("%s: n = %d, ours %q", rc.Name, c.N, c.Ours)
		}
		if (c.Floor != "") != (rc.Floor != nil) {
			t.Errorf("%s: floor %q printed when the comparison has floor %v", rc.Name, c.Floor, rc.Floor)
		}
		// The gates' decisions follow from scipy's one-sided p-values.
		switch rc.Name {
		case "floor fails":
			if rc.FloorPA < 0.05 {
				t.Errorf("golden: A beats the floor (p = %g); the case no longer tests the gate", rc.FloorPA)
			}
		case "floor passes":
			if rc.FloorPA >= 0.05 || rc.FloorPB >= 0.05 {
				t.Errorf("golden: a sample does not beat the floor (p = %g, %g)", rc.FloorPA, rc.FloorPB)
			}
		case "collapse random":
			if rc.RandomPB < 0.05 {
				t.Errorf("golden: B beats random ranking (p = %g)", rc.RandomPB)
			}
		}
		if (c.P != nil) != rc.Family {
			t.Fatalf("%s: tested = %v, golden family member = %v", rc.Name, c.P != nil, rc.Family)
		}
		if !rc.Family {
			continue
		}
		if !near(c.P.Raw, rc.P) || !near(c.P.Holm, rc.PHolm) {
			t.Errorf("%s: p = %.10g (Holm %.10g), scipy %.10g (reference Holm %.10g)", rc.Name, c.P.Raw, c.P.Holm, rc.P, rc.PHolm)
		}
		fromScipy := Inconclusive
		if rc.PHolm < 0.05 {
			fromScipy = Contradicted
			if mean(rc.B) > mean(rc.A) == rc.Higher {
				fromScipy = Holds
			}
		}
		if c.Outcome != fromScipy {
			t.Errorf("%s: %s, but scipy's adjusted p %.4g gives %s", rc.Name, c.Outcome, rc.PHolm, fromScipy)
		}
	}
	for _, o := range []Outcome{Holds, Contradicted, Inconclusive, NotTestable} {
		if !seen[o] {
			t.Errorf("no case reaches %q", o)
		}
	}
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// TestGateTestsMatchScipy: the one-sided tests of the floor and collapse gates against scipy's
// ttest_1samp / ttest_rel with alternative="greater".
func TestGateTestsMatchScipy(t *testing.T) {
	checked := 0
	for _, rc := range readRuleCases(t) {
		check := func(what string, x, ref []float64, want float64) {
			if want == 0 {
				return
			}
			got, err := beats(x, ref, rc.Higher)
			if err != nil || !near(got, want) {
				t.Errorf("%s, %s: one-sided p = %.10g (%v), scipy %.10g", rc.Name, what, got, err, want)
			}
			checked++
		}
		check("A vs floor", rc.A, rc.Floor, rc.FloorPA)
		check("B vs floor", rc.B, rc.Floor, rc.FloorPB)
		check("B vs random", rc.B, []float64{rc.Random}, rc.RandomPB)
	}
	if checked < 5 {
		t.Fatalf("only %d gate p-values checked", checked)
	}
	// Lower is better: x below ref is the better side.
	if p, _ := beats([]float64{1, 2, 1.5, 1.2, 1.1}, []float64{3}, false); p > 0.01 {
		t.Errorf("lower-is-better one-sided p = %g for a sample well below the reference", p)
	}
	// A constant sample equal to the reference is at t = 0: p = 1/2.
	if p, _ := beats([]float64{2, 2, 2}, []float64{2}, true); p != 0.5 {
		t.Errorf("one-sided p at zero variance and zero difference = %g, want 0.5", p)
	}
}

// TestHolmFamilyIsPerPaper: adding claims to one paper leaves another paper's adjustment unchanged.
func TestHolmFamilyIsPerPaper(t *testing.T) {
	var onlyP, withMore []Comparison
	for _, rc := range readRuleCases(t) {
		if rc.Paper == "P" {
			onlyP = append(onlyP, rc.comparison())
		}
		withMore = append(withMore, rc.comparison())
		if rc.Name == "borderline alone" {
			extra := rc.comparison()
			extra.Claim = "another claim of Q"
			withMore = append(withMore, extra, extra)
		}
	}
	a, err := Decide(onlyP)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Decide(withMore)
	if err != nil {
		t.Fatal(err)
	}
	holm := map[string]float64{}
	for _, c := range b {
		if c.P != nil {
			holm[c.Paper+"/"+c.Claim] = c.P.Holm
		}
	}
	for _, c := range a {
		if c.P != nil && holm["P/"+c.Claim] != c.P.Holm {
			t.Errorf("%s: Holm p %g alone, %g with other papers' claims", c.Claim, c.P.Holm, holm["P/"+c.Claim])
		}
		if c.P != nil && c.P.Family != 4 {
			t.Errorf("%s: family of %d, want paper P's 4 tested claims", c.Claim, c.P.Family)
		}
	}
	// Q now has three identical claims: each raw p is multiplied by 3 (then the running max).
	for _, c := range b {
		if c.Paper == "Q" && (c.P.Family != 3 || !near(c.P.Holm, min(1, 3*c.P.Raw))) {
			t.Errorf("paper Q: %+v, want family 3 and Holm = 3·raw", *c.P)
		}
	}
}

func TestDecideRefusesUnpairedSamples(t *testing.T) {
	ok := func() Comparison {
		return Comparison{Paper: "P", Claim: "c", Data: "synthetic", Metric: "R@1", Higher: true,
			A: Sample{Name: "a", Seeds: []int64{1, 2, 3, 4, 5}, Values: []float64{1, 2, 3, 4, 5}},
			B: Sample{Name: "b", Seeds: []int64{1, 2, 3, 4, 5}, Values: []float64{2, 3, 4, 5, 7}}}
	}
	if _, err := Decide([]Comparison{ok()}); err != nil {
		t.Fatalf("the well-formed comparison: %v", err)
	}
	bad := map[string]func(*Comparison){
		"seeds in another order": func(c *Comparison) { c.B.Seeds = []int64{2, 1, 3, 4, 5} },
		"other seeds":            func(c *Comparison) { c.B.Seeds = []int64{1, 2, 3, 4, 6} },
		"fewer values":           func(c *Comparison) { c.B.Values = c.B.Values[:4]; c.B.Seeds = c.B.Seeds[:4] },
		"seeds ≠ values":         func(c *Comparison) { c.A.Seeds = c.A.Seeds[:4] },
		"a seed twice":           func(c *Comparison) { c.A.Seeds = []int64{1, 1, 3, 4, 5}; c.B.Seeds = c.A.Seeds },
		"NaN":                    func(c *Comparison) { c.B.Values = []float64{2, math.NaN(), 4, 5, 7} },
		"best epochs ≠ seeds":    func(c *Comparison) { c.B.BestEpoch = []int{3, 3} },
		"floor on other seeds": func(c *Comparison) {
			c.Floor = &Sample{Name: "f", Seeds: []int64{5, 4, 3, 2, 1}, Values: []float64{0, 0, 0, 0, 0}}
		},
		"no data":   func(c *Comparison) { c.Data = "" },
		"no metric": func(c *Comparison) { c.Metric = "" },
		"no values": func(c *Comparison) { c.A = Sample{Name: "a"}; c.B = Sample{Name: "b"} },
	}
	for name, mutate := range bad {
		c := ok()
		mutate(&c)
		if _, err := Decide([]Comparison{ok(), c}); err == nil {
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), `claim "c"`) {
			t.Errorf("%s: the error does not name the claim: %v", name, err)
		}
	}
}

func TestTautologyDescriptiveUntestable(t *testing.T) {
	cs, err := Decide([]Comparison{
		{Paper: "P", Claim: "random vectors are near-orthogonal", Data: "synthetic", Tautology: "a fact of random vectors in high dimension"},
		{Paper: "P", Claim: "the loss falls", Data: "synthetic", Metric: "loss", Tautology: "an identity of softmax cross-entropy",
			A: Sample{Name: "a", Seeds: []int64{1, 2}, Values: []float64{3, 4}},
			B: Sample{Name: "b", Seeds: []int64{1, 2}, Values: []float64{1, 2}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if c.Outcome != Tautology || c.P != nil || !strings.HasPrefix(c.Verdict(), "tautology: ") {
			t.Errorf("%s: %s", c.Claim, c)
		}
	}
	if cs[1].N != 2 || cs[1].Diff == nil || cs[1].Diff.Mean != -2 {
		t.Errorf("a tautology with samples still shows them: %+v", cs[1])
	}
	if d := Describe("P", "the angle shrinks", "Fig. 2", "synthetic", "85.91°"); d.Outcome != Descriptive || d.Verdict() != "descriptive" {
		t.Errorf("Describe: %+v", d)
	}
	if u := Untestable("P", "ITM reranking helps", "Table 3", "no BERT here"); u.Outcome != NotTestable || u.Verdict() != "not testable: no BERT here" {
		t.Errorf("Untestable: %+v", u)
	}
}

func TestRuleTextStatesTheConstants(t *testing.T) {
	r := RuleText()
	for _, want := range []string{"0.05", "fewer than 5 seeds", "Holm", "**ceiling**", "**floor**", "**collapse**",
		"**holds**", "**contradicted**", "**inconclusive**", "**not testable: <gate>**", "**descriptive**", "**tautology**"} {
		if !strings.Contains(r, want) {
			t.Errorf("RuleText lacks %q:\n%s", want, r)
		}
	}
}

// A comparison the study marks Untestable is not testable by the data gate, after the ceiling gate,
// and stays out of the Holm family: the other claim's adjusted p is its raw p.
func TestDecideDataGate(t *testing.T) {
	seeds := []int64{1, 2, 3, 4, 5}
	mk := func(name string, a, b []float64, untestable string) Comparison {
		return Comparison{Paper: "P", Claim: name, Data: "d", Metric: "R@1", Higher: true, Best: 100, Untestable: untestable,
			A: Sample{Name: "a", Seeds: seeds, Values: a}, B: Sample{Name: "b", Seeds: seeds, Values: b}}
	}
	tested := mk("tested", []float64{10, 11, 12, 13, 14}, []float64{12, 14, 13, 16, 15}, "")
	cs, err := Decide([]Comparison{
		mk("ten texts", []float64{90, 92, 91, 95, 93}, []float64{96, 97, 94, 98, 95}, "10 distinct texts"),
		mk("ten texts at ceiling", []float64{100, 100, 100, 100, 100}, []float64{100, 100, 90, 100, 100}, "10 distinct texts"),
		tested,
	})
	if err != nil {
		t.Fatal(err)
	}
	if cs[0].Outcome != NotTestable || cs[0].Gate != GateData || cs[0].Reason != "10 distinct texts" || cs[0].P != nil {
		t.Errorf("untestable claim: %+v", cs[0])
	}
	if cs[1].Outcome != NotTestable || cs[1].Gate != GateCeiling {
		t.Errorf("untestable claim at the ceiling: %+v, want the ceiling gate first", cs[1])
	}
	if cs[2].P == nil || cs[2].P.Family != 1 || cs[2].P.Holm != cs[2].P.Raw {
		t.Errorf("the gated claims joined the Holm family: %+v", cs[2].P)
	}
}
