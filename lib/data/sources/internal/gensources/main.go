// Command gensources writes datasets/sources.json from the staged data directory: one entry per
// file that the tracks read, with its sha256 and size computed from the staged copy and its URL at
// the pinned commit of its upstream repository (datasets/README.md). Run by `go generate
// ./lib/data/sources`.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/data/sources"
)

// origin is one staged folder and where its files come from.
type origin struct {
	dir     string            // staged folder, slash-separated
	match   func(string) bool // which of its files the tracks read
	url     func(name string) string
	license string
	note    func(name string) string
	derive  string // sources.Derivations
}

const (
	twoDTAN  = "https://raw.githubusercontent.com/microsoft/2D-TAN/2f7410f0de5e764ac7d84817f173732ef34e1545/data/Charades-STA/"
	fsdd     = "https://raw.githubusercontent.com/Jakobovski/free-spoken-digit-dataset/26eb9aaf76e81b692f806f9140c2d2777410d7a1/"
	poincare = "https://raw.githubusercontent.com/facebookresearch/poincare-embeddings/35c232207bc62f13c35fee844ccb6932aae70709/wordnet/"
	classes  = "https://raw.githubusercontent.com/omarorajain/Hugging-Face-Dataset-Charades/7b92916d57338affc8c9ec0fb726f52ee0964df5/classes.py"
)

var origins = []origin{
	{dir: "charades", match: func(n string) bool { return n != "classes.tsv" },
		url: func(n string) string { return twoDTAN + n }, license: "charades"},
	{dir: "charades", match: func(n string) bool { return n == "classes.tsv" }, license: "charades",
		url: func(string) string { return classes }, derive: sources.PythonDictToTSV,
		note: func(string) string {
			return "no upstream file at a pinned commit holds this list as a file (the official Charades_v1_classes.txt is only " +
				"in AI2's Charades annotation zip): it is derived from the 157 \"cNNN\": \"name\" pairs of url's classes.py " +
				"(derive: " + sources.PythonDictToTSV + ")"
		}},
	{dir: "fsdd/recordings", match: func(n string) bool { return strings.HasSuffix(n, ".wav") },
		url: func(n string) string { return fsdd + "recordings/" + n }, license: "CC-BY-SA-4.0"},
	{dir: "fsdd", match: func(n string) bool { return n == "README.upstream.md" },
		url: func(string) string { return fsdd + "README.md" }, license: "CC-BY-SA-4.0"},
	{dir: "wordnet", match: func(n string) bool { return n == "mammals_filter.txt" },
		url: func(n string) string { return poincare + n }, license: "CC-BY-NC-4.0"},
}

var licenses = map[string]string{
	"charades": "Charades (AI2, \"Hollywood in Homes\"): non-commercial research use; its licence.txt must accompany the data, " +
		"but it is only in AI2's annotation zip and cannot be fetched at a pinned sha256 (datasets/README.md, Licences). " +
		"Charades-STA (Gao et al., TALL): no licence file; 2D-TAN's MIT licence covers its code.",
	"CC-BY-SA-4.0": "Creative Commons Attribution-ShareAlike 4.0 (Free Spoken Digit Dataset, Jakobovski et al.); " +
		"fsdd/README.upstream.md, the upstream README with the attribution, is fetched beside the recordings.",
	"CC-BY-NC-4.0": "Creative Commons Attribution-NonCommercial 4.0, the licence of facebookresearch/poincare-embeddings " +
		"(reference data of its wordnet/ folder).",
}

var about = []string{
	"The external files the data tracks read (lib/data/sources; datasets/README.md). Generated from the staged files by `go generate ./lib/data/sources`.",
	"path: where the file is staged (under $GEOALIGN_SHARED or ../shared/data) and where a download goes (under datasets/cache/sources).",
	"url: the upstream file at the pinned commit; $GEOALIGN_SOURCES_MIRROR=M replaces it by M/<path>.",
}

func main() {
	shared := flag.String("shared", "../../../../shared/data", "staged data directory")
	out := flag.String("out", "../../../datasets/sources.json", "manifest to write")
	flag.Parse()
	if err := run(*shared, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gensources:", err)
		os.Exit(2)
	}
}

func run(shared, out string) error {
	var files []sources.File
	for _, o := range origins {
		ents, err := os.ReadDir(filepath.Join(shared, filepath.FromSlash(o.dir)))
		if err != nil {
			return err
		}
		for _, e := range ents {
			if e.IsDir() || !o.match(e.Name()) {
				continue
			}
			sum, n, err := sources.HashFile(filepath.Join(shared, filepath.FromSlash(o.dir), e.Name()))
			if err != nil {
				return err
			}
			f := sources.File{Path: o.dir + "/" + e.Name(), SHA256: sum, Bytes: n, License: o.license, Derive: o.derive}
			if o.url != nil {
				f.URL = o.url(e.Name())
			}
			if o.note != nil {
				f.Note = o.note(e.Name())
			}
			files = append(files, f)
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	// One entry per line: diffs stay readable.
	var b strings.Builder
	head := marshal(struct {
		About    []string          `json:"about"`
		Licenses map[string]string `json:"licenses"`
	}{about, licenses}, "  ")
	b.WriteString(strings.TrimSuffix(head, "\n}\n"))
	b.WriteString(",\n  \"files\": [\n")
	for i, f := range files {
		b.WriteString("    ")
		b.WriteString(strings.TrimSuffix(marshal(f, ""), "\n"))
		if i < len(files)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  ]\n}\n")
	return atomicfile.WriteFile(out, []byte(b.String()), 0o644)
}

// marshal is JSON without HTML escaping (URLs and notes hold < and >), indented by indent.
func marshal(v any, indent string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		panic(err) // plain structs of strings and numbers
	}
	return b.String()
}
