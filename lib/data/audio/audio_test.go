package audio

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writePCM16 writes a mono 16-bit PCM WAV by hand (RIFF layout), independently of any library.
func writePCM16(t *testing.T, path string, rate int, samples []int16) {
	t.Helper()
	data := make([]byte, 2*len(samples))
	for i, s := range samples {
		binary.LittleEndian.PutUint16(data[2*i:], uint16(s))
	}
	var b []byte
	put32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	put16 := func(v uint16) { b = binary.LittleEndian.AppendUint16(b, v) }
	b = append(b, "RIFF"...)
	put32(uint32(36 + len(data)))
	b = append(b, "WAVEfmt "...)
	put32(16)
	put16(1) // PCM
	put16(1) // mono
	put32(uint32(rate))
	put32(uint32(rate * 2))
	put16(2)
	put16(16)
	b = append(b, "data"...)
	put32(uint32(len(data)))
	b = append(b, data...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadWAVAndLogMelPeak(t *testing.T) {
	const rate = 8000
	// A 1 kHz tone at half scale for 0.5 s.
	s := make([]int16, rate/2)
	for i := range s {
		s[i] = int16(16384 * math.Sin(2*math.Pi*1000*float64(i)/rate))
	}
	p := filepath.Join(t.TempDir(), "tone.wav")
	writePCM16(t, p, rate, s)
	x, r, err := ReadWAV(p)
	if err != nil || r != rate || len(x) != len(s) {
		t.Fatalf("ReadWAV: %v rate %d n %d", err, r, len(x))
	}
	if math.Abs(float64(x[2])-float64(s[2])/32768) > 1e-6 {
		t.Fatalf("scaling: %v vs %v", x[2], float64(s[2])/32768)
	}
	lm, frames, err := LogMel(x, rate)
	if err != nil {
		t.Fatal(err)
	}
	// 0.5 s with 25 ms windows every 10 ms: 1 + (4000-200)/80 = 48 frames.
	if frames != 48 {
		t.Fatalf("%d frames, want 48", frames)
	}
	// The loudest band must be the one whose centre is nearest 1 kHz on the mel scale.
	fmax := 4000.0
	best, bestBand := math.Inf(-1), -1
	for m := 0; m < MelBands; m++ {
		if v := float64(lm[10*MelBands+m]); v > best {
			best, bestBand = v, m
		}
	}
	centre := melToHz(hzToMel(fmax) * float64(bestBand+1) / float64(MelBands+1))
	next := melToHz(hzToMel(fmax) * float64(bestBand+2) / float64(MelBands+1))
	if math.Abs(centre-1000) > (next - centre) {
		t.Fatalf("peak band %d centred at %.0f Hz, want ≈ 1000 Hz", bestBand, centre)
	}
	v, err := Pooled(x, rate)
	if err != nil || len(v) != PooledDim {
		t.Fatalf("Pooled: %v len %d", err, len(v))
	}
}

func TestReadWAVErrors(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.wav")
	os.WriteFile(p, []byte("not a wav file at all"), 0o644)
	if _, _, err := ReadWAV(p); err == nil || !strings.Contains(err.Error(), "bad.wav") {
		t.Fatalf("bad file: %v", err)
	}
	if _, _, err := LogMel([]float32{1}, 0); err == nil {
		t.Fatal("rate 0 accepted")
	}
}
