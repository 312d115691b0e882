package report

import (
	"image/color"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The palette: Okabe & Ito's colour-blind-safe set ("Color Universal Design", 2008), with a
// darker yellow (their #F0E442 is unreadable as a line on white) and a grey for baselines.
var (
	paletteBlue      = color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF}
	paletteVermilion = color.RGBA{R: 0xD5, G: 0x5E, B: 0x00, A: 0xFF}
	paletteGreen     = color.RGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF}
	paletteOrange    = color.RGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF}
	palettePurple    = color.RGBA{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF}
	paletteSky       = color.RGBA{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF}
	paletteYellow    = color.RGBA{R: 0xB5, G: 0x89, B: 0x00, A: 0xFF}
	paletteBrown     = color.RGBA{R: 0x8C, G: 0x56, B: 0x4B, A: 0xFF}
	paletteGrey      = color.RGBA{R: 0x77, G: 0x77, B: 0x77, A: 0xFF}
	paletteBlack     = color.RGBA{A: 0xFF}
)

// methodColors fixes the colour of every method and geometry the notebooks compare, by the
// lower-case start of its label: blue is Euclidean (GRAM's volume, Euclidean-only attention),
// green hyperbolic (Lorentz), vermilion HyperGRAM's mix, purple HLFormer's hybrid, orange GARE,
// grey the baseline a paper improves on, black a zero-training floor.
var methodColors = map[string]color.Color{
	"pairwise cosine":        paletteGrey,
	"baseline":               paletteGrey,
	"gram":                   paletteBlue,
	"gram (cosine → volume)": paletteSky,
	"hypergram":              paletteVermilion,
	"pure hyperbolic":        paletteGreen,
	"gare":                   paletteOrange,
	"hlformer":               palettePurple,
	"hybrid":                 palettePurple,
	"euclidean":              paletteBlue,
	"euclidean-only":         paletteBlue,
	"hyperbolic":             paletteGreen,
	"lorentz":                paletteGreen,
	"lorentz-only":           paletteGreen,
	"poincaré":               paletteBrown,
	"poincare":               paletteBrown,
	"ms-sl":                  paletteYellow,
	"zero-training":          paletteBlack,
	"floor":                  paletteBlack,
}

// fallbackColors are handed out, in this order, to series whose name is no known method.
var fallbackColors = []color.Color{paletteBlue, paletteVermilion, paletteGreen, paletteOrange,
	palettePurple, paletteSky, paletteYellow, paletteBrown, paletteBlack, paletteGrey}

// MethodColor is the fixed colour of a method or geometry named at the start of label (case
// is ignored; the longest known name wins, so "HyperGRAM α₀ = 0.2" is HyperGRAM's and
// "Euclidean-only, GMMFormer-like" Euclidean-only's), else of one named anywhere in it
// ("TV + TA (pairwise cosine)"). Names match whole words only ("histogram" is not GRAM). ok is
// false when the label names none.
func MethodColor(label string) (c color.Color, ok bool) {
	l := strings.ToLower(label)
	best, bestAt := "", -1
	for name := range methodColors {
		at := wordIndex(l, name)
		if at < 0 {
			continue
		}
		// A prefix beats any inner match; among equals the longer name is the more specific.
		prefix, bestPrefix := at == 0, bestAt == 0
		if best == "" || (prefix && !bestPrefix) || (prefix == bestPrefix && len(name) > len(best)) {
			best, bestAt = name, at
		}
	}
	if best == "" {
		return nil, false
	}
	return methodColors[best], true
}

// wordIndex is the byte index of the first occurrence of word in s that is neither preceded
// nor followed by a letter or digit, or −1.
func wordIndex(s, word string) int {
	for from := 0; ; {
		i := strings.Index(s[from:], word)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(word):])
		if !isWordRune(before) && !isWordRune(after) {
			return i
		}
		from = i + 1
	}
}

func isWordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// Colors returns one colour per series label, for every figure of the project: a label naming
// a method or geometry gets that method's colour (MethodColor), the same in every notebook and
// figure; the others get the palette's remaining colours in order, distinct from each other and,
// while colours last, from the methods' in the same call.
func Colors(labels ...string) []color.Color {
	out := make([]color.Color, len(labels))
	var used []color.Color
	for i, l := range labels {
		if c, ok := MethodColor(l); ok {
			out[i] = c
			used = append(used, c)
		}
	}
	next := 0
	for i := range labels {
		if out[i] != nil {
			continue
		}
		for next < len(fallbackColors) && slices.Contains(used, fallbackColors[next]) {
			next++
		}
		if next == len(fallbackColors) { // more series than colours: cycle
			used, next = nil, 0
		}
		out[i] = fallbackColors[next]
		used = append(used, out[i])
	}
	return out
}
