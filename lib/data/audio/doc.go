// Package audio is the small, documented audio front-end of the tri-modal real tracks (FSDD
// spoken digits, Tux Paint spoken captions): WAV reading (PCM, mixed to mono, scaled to [-1, 1])
// and a log-mel spectrogram pooled to a fixed number of time segments, so every utterance
// becomes one fixed-size vector an encoder can be trained on from scratch.
//
// LogMel: frames of WindowSeconds (25 ms) every HopSeconds (10 ms), Hann window, power spectrum
// by FFT (gonum dsp/fourier) of the next power of two ≥ the window, MelBands (40) triangular
// filters evenly spaced on the HTK mel scale mel(f) = 2595·log10(1 + f/700) between 0 Hz and
// min(rate/2, MaxHz), then log(energy + LogFloor). Pooled averages the frames into Segments
// (16) uniform segments with the same segment averaging as the PRVR clips (prvr.AverageToFixedLength)
// and flattens time-major: Segments×MelBands = 640 values.
//
// These are textbook choices (Davis & Mermelstein 1980; the 25/10 ms framing of speech
// recognisers), not the encoders of the papers (GRAM uses pretrained audio encoders, which are not
// obtainable here; docs/data-sources.md §5).
package audio
