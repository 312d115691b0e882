package reproduce

// Evidence collects one paper's claims in the order a study produces them: Comparisons for the rule
// to decide, and Claims that need no test (Describe, Untestable). Deciding them together is what
// makes the Holm adjustment cover the paper's whole family, so a study adds everything it finds to
// one Evidence and calls Decide once. The zero value is empty and ready to use.
type Evidence struct {
	items []evidenceItem
}

// evidenceItem is a comparison to decide or a claim already decided (cmp nil).
type evidenceItem struct {
	cmp   *Comparison
	claim Claim
}

// Compare adds comparisons for Decide.
func (e *Evidence) Compare(cs ...Comparison) {
	for i := range cs {
		e.items = append(e.items, evidenceItem{cmp: &cs[i]})
	}
}

// Add adds claims that are not tested: descriptive findings, untestable claims.
func (e *Evidence) Add(cs ...Claim) {
	for _, c := range cs {
		e.items = append(e.items, evidenceItem{claim: c})
	}
}

// Decide applies the rule (Decide) to the comparisons, together, and returns every claim in the
// order it was added.
func (e *Evidence) Decide() ([]Claim, error) {
	var cs []Comparison
	for _, it := range e.items {
		if it.cmp != nil {
			cs = append(cs, *it.cmp)
		}
	}
	decided, err := Decide(cs)
	if err != nil {
		return nil, err
	}
	out := make([]Claim, 0, len(e.items))
	k := 0
	for _, it := range e.items {
		if it.cmp != nil {
			out = append(out, decided[k])
			k++
			continue
		}
		out = append(out, it.claim)
	}
	return out, nil
}
