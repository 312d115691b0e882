// Package encoders names the text encoders whose features the studies train on: GloVe 6B-100d
// (the default: token lists and mean vectors, the glove and charades tracks) and all-MiniLM-L6-v2
// (lib/encoders/minilm: token states and sentence embeddings, the minilm track). `make data` builds
// both; a study picks one with a Text value, which enters its run keys and every result's data
// description (datasets/README.md describes the tracks).
package encoders

import "fmt"

// Text is a text encoder. The zero value is GloVe, the encoder of every result before the minilm
// track, so configurations that do not name one keep their meaning (and their run keys).
type Text string

const (
	// GloVe is GloVe 6B 100-d: per-word vectors (Charades-STA query tokens, Charades descriptions)
	// and their mean (Tux Paint captions).
	GloVe Text = ""
	// MiniLM is all-MiniLM-L6-v2 run in GoMLX (lib/encoders/minilm): last hidden states per
	// WordPiece token, [CLS] and [SEP] included (Charades-STA queries), and mean-pooled, L2-normalised
	// sentence embeddings (Charades descriptions, Tux Paint captions), 384-d.
	MiniLM Text = "minilm"
)

// Texts are the encoders, the default first.
var Texts = []Text{GloVe, MiniLM}

// ParseText reads a command-line name: "glove" (or "") and "minilm".
func ParseText(s string) (Text, error) {
	switch s {
	case "", "glove":
		return GloVe, nil
	case string(MiniLM):
		return MiniLM, nil
	}
	return "", fmt.Errorf("unknown text encoder %q (want glove or minilm)", s)
}

// String is the encoder's command-line name: "glove" or "minilm".
func (t Text) String() string {
	if t == GloVe {
		return "glove"
	}
	return string(t)
}

// Describe names the encoder in data descriptions: "GloVe 6B-100d" or "MiniLM all-MiniLM-L6-v2 text".
func (t Text) Describe() string {
	switch t {
	case GloVe:
		return "GloVe 6B-100d"
	case MiniLM:
		return "MiniLM all-MiniLM-L6-v2 text"
	}
	return "unknown text encoder " + string(t)
}

// Validate reports an unknown encoder (a Text set from a string without ParseText).
func (t Text) Validate() error {
	if t != GloVe && t != MiniLM {
		return fmt.Errorf("unknown text encoder %q (want %q or %q)", string(t), GloVe.String(), MiniLM.String())
	}
	return nil
}
