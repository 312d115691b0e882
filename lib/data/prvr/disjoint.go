package prvr

import "fmt"

// CheckDisjoint reports a video that two splits share (a test video seen in training, say); aFile
// and bFile are the caption files the error names.
func CheckDisjoint(a, b *Split, aFile, bFile string) error {
	in := make(map[string]bool, len(a.VideoIDs))
	for _, v := range a.VideoIDs {
		in[v] = true
	}
	for _, v := range b.VideoIDs {
		if in[v] {
			return fmt.Errorf("%s: video %q is also in %s: the %s and %s splits must not share videos", bFile, v, aFile, a.Name, b.Name)
		}
	}
	return nil
}
