package encoders

import "testing"

func TestParseText(t *testing.T) {
	for in, want := range map[string]Text{"": GloVe, "glove": GloVe, "minilm": MiniLM} {
		got, err := ParseText(in)
		if err != nil || got != want {
			t.Errorf("ParseText(%q) = %q, %v; want %q", in, got, err, want)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("%q: %v", in, err)
		}
		if back, _ := ParseText(got.String()); back != got {
			t.Errorf("%q: String %q does not parse back", in, got.String())
		}
	}
	if _, err := ParseText("bert"); err == nil {
		t.Error("ParseText(bert): no error")
	}
	if err := Text("bert").Validate(); err == nil {
		t.Error("Validate(bert): no error")
	}
	if GloVe.Describe() != "GloVe 6B-100d" || MiniLM.Describe() != "MiniLM all-MiniLM-L6-v2 text" {
		t.Errorf("Describe: %q, %q", GloVe.Describe(), MiniLM.Describe())
	}
}
