package nb

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"

	"github.com/geoalign/geoalign/lib/runcache"
)

// Memo returns what compute returns, computing it only once for a given name and key: the value
// is kept as <RunCache>/memo/<name>-<hash of key>.gob (runcache.Memo) and read back by later
// cells and later executions. Every GoNB cell is a new program, so this is how a cell reuses a
// value an earlier one built (a batch cut out of a split that takes seconds to load). key must
// determine the value — every argument of compute, and the data's identity (e.g. the track's
// stamp); it is hashed as canonical JSON. T must be gob-encodable. A file that cannot be decoded
// (another type, a damaged file) is computed and written again.
func Memo[T any](name string, key any, compute func() (T, error)) T {
	k := Must1(runcache.Canonical(key))
	sum := sha256.Sum256(append([]byte(name+"\x00"), k...))
	path := filepath.Join(RunCache(), "memo", fmt.Sprintf("%s-%s.gob", name, hex.EncodeToString(sum[:8])))
	return Must1(runcache.Memo(path, compute))
}
