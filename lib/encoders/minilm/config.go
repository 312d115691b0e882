package minilm

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/runcache"
)

// Files of the model directory (what kernel/minilm.sh installs into build/minilm, the folder
// sentence-transformers/all-MiniLM-L6-v2 of the pinned wheel).
const (
	ConfigFile          = "config.json"               // BERT's hyper-parameters (Config)
	SentenceConfigFile  = "sentence_bert_config.json" // max_seq_length
	PoolingConfigFile   = "1_Pooling/config.json"     // the pooling sentence-transformers applies
	VocabFile           = "vocab.txt"                 // WordPiece vocabulary
	WeightsFile         = "model.safetensors"         // the weights
	DefaultDirRelToRepo = "build/minilm"              // where `make setup` installs them
)

// DefaultDir is build/minilm under the checkout (runcache.InCheckout), where `make setup` installs
// the model (kernel/minilm.sh).
func DefaultDir() string { return runcache.InCheckout(DefaultDirRelToRepo) }

// Config is the part of config.json (Hugging Face BertConfig) that the encoder uses.
type Config struct {
	ModelType             string  `json:"model_type"`
	VocabSize             int     `json:"vocab_size"`
	HiddenSize            int     `json:"hidden_size"`
	NumHiddenLayers       int     `json:"num_hidden_layers"`
	NumAttentionHeads     int     `json:"num_attention_heads"`
	IntermediateSize      int     `json:"intermediate_size"`
	HiddenAct             string  `json:"hidden_act"`
	MaxPositionEmbeddings int     `json:"max_position_embeddings"`
	TypeVocabSize         int     `json:"type_vocab_size"`
	LayerNormEps          float64 `json:"layer_norm_eps"`
	PositionEmbeddingType string  `json:"position_embedding_type"`
}

// sentenceConfig is sentence_bert_config.json.
type sentenceConfig struct {
	MaxSeqLength int  `json:"max_seq_length"`
	DoLowerCase  bool `json:"do_lower_case"` // an extra lower-casing by sentence-transformers (false here)
}

// poolingConfig is 1_Pooling/config.json.
type poolingConfig struct {
	WordEmbeddingDimension int  `json:"word_embedding_dimension"`
	CLSToken               bool `json:"pooling_mode_cls_token"`
	MeanTokens             bool `json:"pooling_mode_mean_tokens"`
	MaxTokens              bool `json:"pooling_mode_max_tokens"`
	MeanSqrtLenTokens      bool `json:"pooling_mode_mean_sqrt_len_tokens"`
}

// readJSON decodes dir/name into v.
func readJSON(dir, name string, v any) error {
	path := filepath.Join(dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("minilm: %w (run `make setup`: kernel/minilm.sh installs the model)", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("minilm: %s: %w", path, err)
	}
	return nil
}

// readConfigs reads and checks the three configuration files of dir: what this package implements
// is a BERT encoder with absolute positions and exact GELU, mean pooling, no extra lower-casing.
func readConfigs(dir string) (Config, sentenceConfig, error) {
	var c Config
	var s sentenceConfig
	var p poolingConfig
	if err := readJSON(dir, ConfigFile, &c); err != nil {
		return c, s, err
	}
	if err := readJSON(dir, SentenceConfigFile, &s); err != nil {
		return c, s, err
	}
	if err := readJSON(dir, PoolingConfigFile, &p); err != nil {
		return c, s, err
	}
	bad := func(file, format string, args ...any) error {
		return fmt.Errorf("minilm: %s: %s", filepath.Join(dir, file), fmt.Sprintf(format, args...))
	}
	switch {
	case c.ModelType != "bert":
		return c, s, bad(ConfigFile, "model_type %q, want \"bert\"", c.ModelType)
	case c.HiddenAct != "gelu":
		return c, s, bad(ConfigFile, "hidden_act %q, want \"gelu\" (exact, erf)", c.HiddenAct)
	case c.PositionEmbeddingType != "absolute":
		return c, s, bad(ConfigFile, "position_embedding_type %q, want \"absolute\"", c.PositionEmbeddingType)
	case c.HiddenSize <= 0 || c.NumAttentionHeads <= 0 || c.HiddenSize%c.NumAttentionHeads != 0:
		return c, s, bad(ConfigFile, "hidden_size %d is not a multiple of num_attention_heads %d", c.HiddenSize, c.NumAttentionHeads)
	case c.NumHiddenLayers <= 0 || c.IntermediateSize <= 0 || c.VocabSize <= 0 || c.TypeVocabSize <= 0 || !(c.LayerNormEps > 0):
		return c, s, bad(ConfigFile, "non-positive size or layer_norm_eps in %+v", c)
	case s.MaxSeqLength < 2 || s.MaxSeqLength > c.MaxPositionEmbeddings:
		return c, s, bad(SentenceConfigFile, "max_seq_length %d outside [2, max_position_embeddings %d]", s.MaxSeqLength, c.MaxPositionEmbeddings)
	case s.DoLowerCase:
		return c, s, bad(SentenceConfigFile, "do_lower_case true is not implemented")
	case !p.MeanTokens || p.CLSToken || p.MaxTokens || p.MeanSqrtLenTokens:
		return c, s, bad(PoolingConfigFile, "only mean pooling is implemented, got %+v", p)
	case p.WordEmbeddingDimension != c.HiddenSize:
		return c, s, bad(PoolingConfigFile, "word_embedding_dimension %d, hidden_size %d", p.WordEmbeddingDimension, c.HiddenSize)
	}
	return c, s, nil
}
