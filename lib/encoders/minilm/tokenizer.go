package minilm

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Token ids of BERT's special tokens in the uncased vocabulary (vocab.txt lines 1, 101–104, counted
// from 0); LoadTokenizer checks them against the file.
const (
	PadID  = 0
	UnkID  = 100
	ClsID  = 101
	SepID  = 102
	MaskID = 103
)

// maxInputCharsPerWord: a word longer than this many characters becomes one [UNK] without being
// split (tokenizer.json's "max_input_chars_per_word": 100).
const maxInputCharsPerWord = 100

// specialTokens are tokenizer.json's "added_tokens": matched in the raw text before normalisation
// ("normalized": false), each becoming its id.
var specialTokens = []struct {
	text string
	id   int32
}{{"[PAD]", PadID}, {"[UNK]", UnkID}, {"[CLS]", ClsID}, {"[SEP]", SepID}, {"[MASK]", MaskID}}

// Tokenizer is the tokenizer of all-MiniLM-L6-v2 as its tokenizer.json configures Hugging Face's
// fast tokenizer and sentence-transformers calls it (lib/encoders/minilm/README.md):
//
//  1. added tokens ([CLS], [SEP], [PAD], [UNK], [MASK]) are cut out of the raw text;
//  2. BertNormalizer: drop NUL, U+FFFD and control characters (Unicode category C except \t \n
//     \r), map whitespace to ' ', put spaces around CJK ideographs, strip accents (NFD, then drop
//     non-spacing marks), lower-case;
//  3. BertPreTokenizer: split on whitespace, and isolate every punctuation character (ASCII
//     punctuation or Unicode category P);
//  4. WordPiece: greedy longest match from the left, continuation pieces prefixed "##"; a word
//     with no full cover, or longer than 100 characters, is one [UNK];
//  5. [CLS] … [SEP], truncated so that the whole sequence has at most MaxLength ids.
type Tokenizer struct {
	vocab map[string]int32
	// MaxLength is the longest sequence Encode returns, [CLS] and [SEP] included:
	// sentence_bert_config.json's max_seq_length (256).
	MaxLength int
}

// LoadTokenizer reads vocab.txt (one token per line, the id being the line number from 0).
func LoadTokenizer(vocabPath string, maxLength int) (*Tokenizer, error) {
	if maxLength < 2 {
		return nil, fmt.Errorf("minilm: max length %d leaves no room for [CLS] and [SEP]", maxLength)
	}
	f, err := os.Open(vocabPath)
	if err != nil {
		return nil, fmt.Errorf("minilm: %w", err)
	}
	defer f.Close()
	t := &Tokenizer{vocab: map[string]int32{}, MaxLength: maxLength}
	sc := bufio.NewScanner(f)
	for id := int32(0); sc.Scan(); id++ {
		tok := sc.Text()
		if _, dup := t.vocab[tok]; dup {
			return nil, fmt.Errorf("minilm: %s line %d: token %q listed twice", vocabPath, id+1, tok)
		}
		t.vocab[tok] = id
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("minilm: %s: %w", vocabPath, err)
	}
	for _, s := range specialTokens {
		if id, ok := t.vocab[s.text]; !ok || id != s.id {
			return nil, fmt.Errorf("minilm: %s: %s has id %d, want %d (not BERT's uncased vocabulary)", vocabPath, s.text, id, s.id)
		}
	}
	return t, nil
}

// VocabSize is the number of tokens in the vocabulary.
func (t *Tokenizer) VocabSize() int { return len(t.vocab) }

// Encode returns the token ids of text: [CLS], the word pieces (at most MaxLength−2), [SEP].
func (t *Tokenizer) Encode(text string) []int32 {
	ids := []int32{ClsID}
	for len(text) > 0 {
		cut, id, n := nextSpecial(text)
		for _, w := range Words(text[:cut]) {
			ids = t.appendPieces(ids, w)
		}
		if n == 0 {
			break
		}
		ids = append(ids, id)
		text = text[cut+n:]
	}
	if len(ids) > t.MaxLength-1 {
		ids = ids[:t.MaxLength-1]
	}
	return append(ids, SepID)
}

// nextSpecial finds the leftmost special token in s: its byte offset, id and length (n = 0 and
// cut = len(s) when there is none). No special token is a prefix of another, so leftmost is
// also leftmost-longest, the rule of tokenizers' AddedVocabulary.
func nextSpecial(s string) (cut int, id int32, n int) {
	cut = len(s)
	for _, sp := range specialTokens {
		if i := strings.Index(s[:cut], sp.text); i >= 0 && (n == 0 || i < cut) {
			cut, id, n = i, sp.id, len(sp.text)
		}
	}
	return cut, id, n
}

// appendPieces appends the WordPiece ids of one pre-tokenized word.
func (t *Tokenizer) appendPieces(ids []int32, word string) []int32 {
	if utf8.RuneCountInString(word) > maxInputCharsPerWord {
		return append(ids, UnkID)
	}
	first := len(ids)
	for start := 0; start < len(word); {
		end := len(word)
		found := int32(-1)
		for start < end {
			piece := word[start:end]
			if start > 0 {
				piece = "##" + piece
			}
			if id, ok := t.vocab[piece]; ok {
				found = id
				break
			}
			_, size := utf8.DecodeLastRuneInString(word[start:end])
			end -= size
		}
		if found < 0 {
			return append(ids[:first], UnkID)
		}
		ids = append(ids, found)
		start = end
	}
	return ids
}

// Words returns the normalised, pre-tokenized words of text (steps 2 and 3 of Tokenizer).
func Words(text string) []string {
	var b strings.Builder
	for _, r := range text {
		switch {
		case r == 0 || r == utf8.RuneError || isControl(r):
			continue // clean_text drops them (a RuneError from invalid UTF-8 too: Rust strings cannot hold one)
		case isWhitespace(r):
			b.WriteByte(' ')
		case isCJK(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	var words []string
	var w strings.Builder
	flush := func() {
		if w.Len() > 0 {
			words = append(words, w.String())
			w.Reset()
		}
	}
	for _, r := range norm.NFD.String(b.String()) {
		switch {
		case unicode.Is(unicode.Mn, r):
			continue // strip_accents
		case isWhitespace(r):
			flush()
		case isPunctuation(r):
			flush()
			words = append(words, string(unicode.ToLower(r)))
		default:
			w.WriteRune(unicode.ToLower(r))
		}
	}
	flush()
	return words
}

// isWhitespace is tokenizers' BertNormalizer is_whitespace: \t \n \r or Unicode White_Space.
func isWhitespace(r rune) bool { return r == '\t' || r == '\n' || r == '\r' || unicode.IsSpace(r) }

// isControl is BertNormalizer's is_control: Unicode category C (Cc, Cf, Cs, Co and unassigned
// Cn) except \t \n \r, which count as whitespace.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// isPunctuation is BertPreTokenizer's is_bert_punc: ASCII punctuation (which includes the symbols
// $ + < = > ^ ` | ~) or Unicode category P.
func isPunctuation(r rune) bool {
	if r < utf8.RuneSelf {
		return (r >= '!' && r <= '/') || (r >= ':' && r <= '@') || (r >= '[' && r <= '`') || (r >= '{' && r <= '~')
	}
	return unicode.IsPunct(r)
}

// isCJK is BertNormalizer's is_chinese_char: the CJK Unified Ideographs blocks and their
// extensions and compatibility blocks.
func isCJK(r rune) bool {
	switch {
	case r >= 0x4E00 && r <= 0x9FFF, r >= 0x3400 && r <= 0x4DBF, r >= 0x20000 && r <= 0x2A6DF,
		r >= 0x2A700 && r <= 0x2B73F, r >= 0x2B740 && r <= 0x2B81F, r >= 0x2B920 && r <= 0x2CEAF,
		r >= 0xF900 && r <= 0xFAFF, r >= 0x2F800 && r <= 0x2FA1F:
		return true
	}
	return false
}
