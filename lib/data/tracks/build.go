package tracks

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/glove"
)

// builder is one track: the words its texts need from GloVe, and its build.
type builder struct {
	name  string
	vocab func(env Env, vocab map[string]bool) error
	build func(env Env, g *glove.Vectors, gloveSubset string) (*Manifest, error)
	// sources are the prefixes of the staged paths (datasets/sources.json) the track reads;
	// vocabSources says that vocab reads them too, so every build needs them.
	sources      []string
	vocabSources bool
}

// builders lists the tracks in build order (glove, which every other track uses, comes first).
var builders = []builder{
	{name: "charades", vocab: CharadesVocabulary, build: BuildCharades, sources: []string{"charades/"}, vocabSources: true},
	{name: "digits", vocab: DigitsVocabulary, build: BuildDigits, sources: []string{"fsdd/"}},
	{name: "tuxpaint", vocab: TuxPaintVocabulary, build: BuildTuxPaint},
	{name: "tuxpaint-langs", vocab: TuxPaintLangsVocabulary, build: BuildTuxPaintLangs},
	{name: "wordnet", vocab: WordNetVocabulary, build: BuildWordNet, sources: []string{"wordnet/"}},
	// after charades, tuxpaint and tuxpaint-langs, whose texts it encodes (no GloVe words)
	{name: "minilm", vocab: func(Env, map[string]bool) error { return nil }, build: BuildMiniLM},
}

// TrackNames are the names accepted by BuildAll.
func TrackNames() []string {
	names := []string{"glove"}
	for _, b := range builders {
		names = append(names, b.name)
	}
	return names
}

// BuildAll builds the tracks named in only (all when empty) and returns their manifests; the
// GloVe subset is built first, from the vocabulary of every track whose texts can be read. A
// track is rebuilt unless its manifest's inputs and every output's sha256 still match. A failing
// track does not stop the others; the errors are returned together (errors.Join), those caused
// by missing or corrupt inputs marked data.BadInput.
func BuildAll(env Env, only []string) ([]*Manifest, error) {
	want := map[string]bool{}
	for _, n := range only {
		if !contains(TrackNames(), n) {
			return nil, fmt.Errorf("unknown track %q (want one of %s)", n, strings.Join(TrackNames(), ", "))
		}
		want[n] = true
	}
	selected := func(n string) bool { return len(only) == 0 || want[n] }
	var errs []error
	vocab := map[string]bool{}
	for _, b := range builders {
		if err := b.vocab(env, vocab); err != nil && selected(b.name) {
			errs = append(errs, fmt.Errorf("%s: %w", b.name, data.BadInput(err)))
		}
	}
	if len(errs) > 0 {
		// A track whose texts cannot be read would also change the GloVe subset: stop here.
		return nil, errors.Join(errs...)
	}
	g, gm, err := BuildGloVe(env, vocab)
	if err != nil {
		return nil, fmt.Errorf("glove: %w", err)
	}
	out := []*Manifest{gm}
	subset := GloVeSubset(env.Cache)
	for _, b := range builders {
		if !selected(b.name) {
			continue
		}
		env.logf("%s: building", b.name)
		m, err := b.build(env, g, subset)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", b.name, err))
			continue
		}
		out = append(out, m)
	}
	return out, errors.Join(errs...)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// PrintSummary writes the summary table (counts, with the expected values of docs/data-sources.md §1 where known)
// and every artifact with its size and sha256.
func PrintSummary(w io.Writer, ms []*Manifest) {
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "track\tkind\tsplit\tqueries\titems\texpected\tcheck")
	for _, m := range ms {
		for _, c := range m.Counts {
			check := ""
			if c.Expected != "" {
				check = "ok"
				if fmt.Sprintf("%d/%d", c.Queries, c.Items) != c.Expected {
					check = "MISMATCH"
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d %s\t%s\t%s\n", m.Track, m.Kind, c.Split, c.Queries, c.Items, c.ItemKind, c.Expected, check)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "artifact\tbytes\tsha256")
	for _, m := range ms {
		arts := append([]Artifact(nil), m.Outputs...)
		sort.Slice(arts, func(i, j int) bool { return arts[i].Path < arts[j].Path })
		for _, a := range arts {
			fmt.Fprintf(tw, "%s\t%d\t%s\n", a.Path, a.Bytes, a.SHA256)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, m := range ms {
		fmt.Fprintf(w, "%s provenance: %s\n", m.Track, m.Provenance)
	}
}
