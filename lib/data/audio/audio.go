package audio

import (
	"bytes"
	"fmt"
	"math"
	"math/cmplx"
	"os"

	"github.com/go-audio/wav"
	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/geoalign/geoalign/lib/data/prvr"
)

// Front-end constants (see the package doc).
const (
	WindowSeconds = 0.025
	HopSeconds    = 0.010
	MelBands      = 40
	MaxHz         = 8000.0
	Segments      = 16
	// LogFloor keeps log finite on silent frames; 1e-10 is −100 dB relative to a full-scale
	// sinusoid's power, far below the quietest recording in either dataset.
	LogFloor = 1e-10
)

// PooledDim is the length of a Pooled vector.
const PooledDim = Segments * MelBands

// ReadWAV reads a PCM WAV file, mixes channels to mono and scales samples to [-1, 1]. The file is
// read into memory first: the WAV decoder reads sample by sample, one system call each on a file.
func ReadWAV(path string) ([]float32, int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("audio: %w", err)
	}
	d := wav.NewDecoder(bytes.NewReader(raw))
	if !d.IsValidFile() {
		return nil, 0, fmt.Errorf("audio: %s is not a valid PCM WAV file", path)
	}
	buf, err := d.FullPCMBuffer()
	if err != nil {
		return nil, 0, fmt.Errorf("audio: %s: %w", path, err)
	}
	ch := buf.Format.NumChannels
	depth := int(d.BitDepth)
	if ch < 1 || depth < 8 || depth > 32 {
		return nil, 0, fmt.Errorf("audio: %s: %d channels of %d bits not supported", path, ch, depth)
	}
	n := len(buf.Data) / ch
	if n == 0 {
		return nil, 0, fmt.Errorf("audio: %s has no samples", path)
	}
	scale := 1 / float64(int64(1)<<(depth-1))
	out := make([]float32, n)
	for i := range out {
		var s float64
		for c := 0; c < ch; c++ {
			v := buf.Data[i*ch+c]
			if depth == 8 { // 8-bit WAV is unsigned
				v -= 128
			}
			s += float64(v)
		}
		out[i] = float32(s / float64(ch) * scale)
	}
	return out, buf.Format.SampleRate, nil
}

// hzToMel is the HTK mel scale.
func hzToMel(f float64) float64 { return 2595 * math.Log10(1+f/700) }
func melToHz(m float64) float64 { return 700 * (math.Pow(10, m/2595) - 1) }

// LogMel returns the T×MelBands log-mel spectrogram of x sampled at rate (T ≥ 1: a signal
// shorter than one window is zero-padded to one frame).
func LogMel(x []float32, rate int) ([]float32, int, error) {
	if rate <= 0 {
		return nil, 0, fmt.Errorf("audio: sample rate %d", rate)
	}
	win := int(math.Round(WindowSeconds * float64(rate)))
	hop := int(math.Round(HopSeconds * float64(rate)))
	nfft := 1
	for nfft < win {
		nfft *= 2
	}
	t := 1
	if len(x) > win {
		t = 1 + (len(x)-win)/hop
	}
	hann := make([]float64, win)
	for i := range hann {
		hann[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(win-1))
	}
	// Triangular mel filters on the FFT bins.
	fmax := math.Min(float64(rate)/2, MaxHz)
	edges := make([]float64, MelBands+2)
	for i := range edges {
		edges[i] = melToHz(hzToMel(fmax) * float64(i) / float64(MelBands+1))
	}
	nbins := nfft/2 + 1
	binHz := float64(rate) / float64(nfft)
	fft := fourier.NewFFT(nfft)
	seq := make([]float64, nfft)
	coef := make([]complex128, nbins)
	power := make([]float64, nbins)
	out := make([]float32, t*MelBands)
	for f := 0; f < t; f++ {
		clear(seq)
		for i := 0; i < win && f*hop+i < len(x); i++ {
			seq[i] = float64(x[f*hop+i]) * hann[i]
		}
		coef = fft.Coefficients(coef, seq)
		for k, c := range coef {
			a := cmplx.Abs(c)
			power[k] = a * a
		}
		for m := 0; m < MelBands; m++ {
			lo, mid, hi := edges[m], edges[m+1], edges[m+2]
			var e float64
			for k := 0; k < nbins; k++ {
				hz := float64(k) * binHz
				var w float64
				switch {
				case hz > lo && hz <= mid:
					w = (hz - lo) / (mid - lo)
				case hz > mid && hz < hi:
					w = (hi - hz) / (hi - mid)
				}
				e += w * power[k]
			}
			out[f*MelBands+m] = float32(math.Log(e + LogFloor))
		}
	}
	return out, t, nil
}

// Pooled is LogMel averaged into Segments time segments (prvr.AverageToFixedLength) and
// flattened: a PooledDim vector.
func Pooled(x []float32, rate int) ([]float32, error) {
	lm, t, err := LogMel(x, rate)
	if err != nil {
		return nil, err
	}
	return prvr.AverageToFixedLength(lm, t, MelBands, Segments), nil
}
