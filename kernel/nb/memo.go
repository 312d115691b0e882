package nb

import (
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/runcache"
)

// Memo returns what compute returns, computing it only once for a given name and key: the value
// is kept as <RunCache>/memo/<name>-<hash of key>.gob and read back by later cells and later
// executions. Every GoNB cell is a new program, so this is how a cell reuses a value an earlier
// one built (a batch cut out of a split that takes seconds to load). key must determine the
// value — every argument of compute, and the data's identity (e.g. the track's stamp); it is
// hashed as canonical JSON. T must be gob-encodable. A file that cannot be decoded (another
// type, a damaged file) is computed and written again.
func Memo[T any](name string, key any, compute func() (T, error)) T {
	k := Must1(runcache.Canonical(key))
	sum := sha256.Sum256(append([]byte(name+"\x00"), k...))
	path := filepath.Join(RunCache(), "memo", fmt.Sprintf("%s-%s.gob", name, hex.EncodeToString(sum[:8])))
	if f, err := os.Open(path); err == nil {
		var v T
		err := gob.NewDecoder(f).Decode(&v)
		f.Close()
		if err == nil {
			return v
		}
	}
	v := Must1(compute())
	Must(os.MkdirAll(filepath.Dir(path), 0o755))
	Must(atomicfile.Write(path, func(w io.Writer) error { return gob.NewEncoder(w).Encode(v) }))
	return v
}
