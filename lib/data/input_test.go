package data

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestBadInputSurvivesWrapping(t *testing.T) {
	if BadInput(nil) != nil {
		t.Fatal("BadInput(nil) is not nil")
	}
	read := fmt.Errorf("bigfile: feature.bin: %w", fs.ErrNotExist)
	err := fmt.Errorf("hlformer: %w", BadInput(read))
	if !IsBadInput(err) || !errors.Is(err, fs.ErrNotExist) || err.Error() != "hlformer: bigfile: feature.bin: file does not exist" {
		t.Fatalf("%v: IsBadInput %v, Is(ErrNotExist) %v", err, IsBadInput(err), errors.Is(err, fs.ErrNotExist))
	}
	if IsBadInput(read) || IsBadInput(errors.Join(read, errors.New("x"))) {
		t.Fatal("an unmarked error counts as bad input")
	}
	if !IsBadInput(errors.Join(errors.New("x"), err)) {
		t.Fatal("a joined bad input is not found")
	}
	if BadInput(err) != err {
		t.Fatal("marking twice wraps twice")
	}
}

func TestTrimBOM(t *testing.T) {
	for in, want := range map[string]string{
		"\xef\xbb\xbfs0000": "s0000", // the BOM as bytes: what Notepad writes
		"s0000":             "s0000",
		"\ufeff\ufeffx":     "x",
		"a\ufeff":           "a\ufeff", // only a leading mark is one
		"":                  "",
	} {
		if got := TrimBOM(in); got != want {
			t.Errorf("TrimBOM(%q) = %q, want %q", in, got, want)
		}
	}
}
