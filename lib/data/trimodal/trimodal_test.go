package trimodal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/geoalign/geoalign/lib/npy"
)

func TestLoadDigitsPairsSameClass(t *testing.T) {
	cache := t.TempDir()
	dir := filepath.Join(cache, "digits")
	os.MkdirAll(dir, 0o755)
	// 4 recordings (digits 0 0 1 1), 3 images (digits 1 0 1) whose pixel equals 10·label + index.
	npy.WriteFile(filepath.Join(dir, "audio_test.npy"), []int{4, 2}, []float32{0, 0, 1, 1, 2, 2, 3, 3})
	npy.WriteFile(filepath.Join(dir, "audio_test_labels.npy"), []int{4}, []int64{0, 0, 1, 1})
	npy.WriteFile(filepath.Join(dir, "image_test.npy"), []int{3, 1}, []float32{10, 1, 12})
	npy.WriteFile(filepath.Join(dir, "image_test_labels.npy"), []int{3}, []int64{1, 0, 1})
	words := make([]float32, 10*3)
	for d := 0; d < 10; d++ {
		words[3*d] = float32(d)
	}
	npy.WriteFile(filepath.Join(dir, "words.npy"), []int{10, 3}, words)
	s, err := LoadDigits(cache, "test", 7)
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 4 || s.ImageDim != 1 || s.TextDim != 3 {
		t.Fatalf("%+v", s)
	}
	for i := 0; i < s.N; i++ {
		y := s.Labels[i]
		img := int(s.Image[i])
		if img/10 != y || int(s.Text[3*i]) != y {
			t.Fatalf("triplet %d: label %d image %v word %v", i, y, s.Image[i], s.Text[3*i])
		}
	}
	again, _ := LoadDigits(cache, "test", 7)
	for i := range s.Image {
		if again.Image[i] != s.Image[i] {
			t.Fatal("same seed, different pairing")
		}
	}
}

func TestLoadTuxPaintMissingCache(t *testing.T) {
	_, err := LoadTuxPaint(t.TempDir(), "train")
	if err == nil || !strings.Contains(err.Error(), "text_train.npy") || !strings.Contains(err.Error(), "make data") {
		t.Fatalf("error %v", err)
	}
}
