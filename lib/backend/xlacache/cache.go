package xlacache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/runcache"
)

// DirEnv names the environment variable that sets the persistent cache's directory (Dir).
const DirEnv = "GEOALIGN_XLA_CACHE"

// LogEnv names the environment variable that, set to a file, has every compilation appended to it
// as one line: event (compiled: the plugin's compilation; stored: its serialization and writing;
// reused, loaded, rejected), seconds, key (12 hex digits), bytes of the serialized executable. The counters of a whole `go test` run or of several processes are then
// summed from the file (docs/xla.md §5.1).
const LogEnv = "GEOALIGN_XLA_CACHE_LOG"

// Off is the value of DirEnv that turns the persistent cache off (the in-process one stays).
const Off = "off"

// DefaultDir is the persistent cache's directory relative to the checkout.
const DefaultDir = "build/xla-cache"

// Dir is the persistent cache's directory: $GEOALIGN_XLA_CACHE when set and not empty, else
// build/xla-cache of the checkout (runcache.InCheckout); "" when $GEOALIGN_XLA_CACHE is "off".
func Dir() string {
	switch d := os.Getenv(DirEnv); d {
	case Off:
		return ""
	case "":
		return runcache.InCheckout(filepath.FromSlash(DefaultDir))
	default:
		return d
	}
}

// Stats counts what the caching compile did in this process since it started.
type Stats struct {
	// Compiles is the number of programs the plugin compiled, CompileSeconds their wall time
	// (serialization included).
	Compiles       int     `json:"compiles"`
	CompileSeconds float64 `json:"compile_seconds"`
	// Reuses is the number of programs loaded from this process's memory (compiled before in the
	// process), Loads from the persistent cache; LoadSeconds is the wall time of both.
	Reuses      int     `json:"reuses"`
	Loads       int     `json:"loads"`
	LoadSeconds float64 `json:"load_seconds"`
	// Rejected counts entries of the persistent cache that were damaged, foreign or refused by the
	// plugin, and so ignored and rebuilt.
	Rejected int `json:"rejected"`
}

// Sub returns s − t: what happened between two readings.
func (s Stats) Sub(t Stats) Stats {
	return Stats{
		Compiles: s.Compiles - t.Compiles, CompileSeconds: s.CompileSeconds - t.CompileSeconds,
		Reuses: s.Reuses - t.Reuses, Loads: s.Loads - t.Loads, LoadSeconds: s.LoadSeconds - t.LoadSeconds,
		Rejected: s.Rejected - t.Rejected,
	}
}

// String formats the counters on one line, e.g. "2 compiled (61.3s), 1 reused, 0 loaded (0.4s)".
func (s Stats) String() string {
	out := fmt.Sprintf("%d compiled (%.1fs), %d reused, %d loaded (%.1fs)",
		s.Compiles, s.CompileSeconds, s.Reuses, s.Loads, s.LoadSeconds)
	if s.Rejected > 0 {
		out += fmt.Sprintf(", %d damaged cache entries rebuilt", s.Rejected)
	}
	return out
}

var (
	mu      sync.Mutex
	stats   Stats
	memory  = map[[32]byte][]byte{}      // key → serialized executable, for this process
	pending = map[[32]byte]*sync.Mutex{} // key → held while that program is compiled or loaded
)

// Read returns the counters of this process.
func Read() Stats {
	mu.Lock()
	defer mu.Unlock()
	return stats
}

func count(f func(*Stats)) {
	mu.Lock()
	f(&stats)
	mu.Unlock()
}

// logEvent appends one line to the file LogEnv names, if any.
func logEvent(event string, seconds float64, key [32]byte, size int) {
	path := os.Getenv(LogEnv)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s\t%.3f\t%x\t%d\n", event, seconds, key[:6], size)
	f.Close()
}

// lockKey serializes the work on one key, so that two goroutines asking for the same program
// compile it once.
func lockKey(key [32]byte) func() {
	mu.Lock()
	l, ok := pending[key]
	if !ok {
		l = new(sync.Mutex)
		pending[key] = l
	}
	mu.Unlock()
	l.Lock()
	return l.Unlock
}

// Key is the fingerprint of one compilation: sha256 over length-prefixed fields — a version tag,
// the plugin (its path and its file's identity, PluginFile), the host (GOARCH, the CPU model and flags of
// /proc/cpuinfo, which the CPU plugin compiles for), XLA_FLAGS, the program's format and bytes,
// and its serialized CompileOptionsProto.
func Key(plugin Plugin, format string, program, options []byte) [32]byte {
	h := sha256.New()
	for _, field := range [][]byte{
		[]byte("geoalign-xlacache-1"), []byte(plugin.Path), []byte(plugin.File), []byte(host()),
		[]byte(os.Getenv("XLA_FLAGS")), []byte(format), program, options,
	} {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(field)))
		h.Write(n[:])
		h.Write(field)
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// Plugin identifies a plugin file: its path, and File, its identity on disk (size, modification
// time, inode: PluginFile). A plugin replaced by another build (kernel/pjrt.sh writes a new file and
// renames it into place) is another plugin.
type Plugin struct {
	Path string
	File string
}

// PluginFile is the identity on disk of the file at path: size, modification time and inode. It
// stands for the content's hash, which would cost every process seconds of CPU (the CPU plugin is
// 200 MB); the run cache's keys, computed once per study, hash the content (runcache.Backend).
func PluginFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	id := fmt.Sprintf("size %d mtime %d", st.Size(), st.ModTime().UnixNano())
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		id += fmt.Sprintf(" dev %d inode %d", sys.Dev, sys.Ino)
	}
	return id, nil
}

var host = sync.OnceValue(func() string {
	id := runtime.GOARCH
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			name, _, _ := strings.Cut(line, ":")
			switch strings.TrimSpace(name) {
			case "vendor_id", "model name", "flags":
				id += "\n" + line
			}
			if line == "" && id != runtime.GOARCH { // the first processor is enough
				break
			}
		}
	}
	return id
})

// An entry of the persistent cache is magic, key, payload length (uint64, little-endian), sha256
// of the payload, payload (the serialized executable).
var magic = []byte("geoalign xla executable 1\n")

const headerSize = 26 + 32 + 8 + 32

// encode returns the entry of payload under key.
func encode(key [32]byte, payload []byte) []byte {
	out := make([]byte, 0, headerSize+len(payload))
	out = append(out, magic...)
	out = append(out, key[:]...)
	out = binary.LittleEndian.AppendUint64(out, uint64(len(payload)))
	sum := sha256.Sum256(payload)
	out = append(out, sum[:]...)
	return append(out, payload...)
}

// errDamaged is returned by decode for an entry that is not a whole, intact entry of key.
var errDamaged = errors.New("damaged or foreign cache entry")

// decode returns the payload of entry if it is an intact entry of key.
func decode(key [32]byte, entry []byte) ([]byte, error) {
	if len(entry) < headerSize || !bytes.Equal(entry[:len(magic)], magic) {
		return nil, errDamaged
	}
	rest := entry[len(magic):]
	if !bytes.Equal(rest[:32], key[:]) {
		return nil, errDamaged
	}
	n := binary.LittleEndian.Uint64(rest[32:40])
	payload := rest[72:]
	if uint64(len(payload)) != n {
		return nil, errDamaged
	}
	if sum := sha256.Sum256(payload); !bytes.Equal(sum[:], rest[40:72]) {
		return nil, errDamaged
	}
	return payload, nil
}

// File is the path of key's entry in dir.
func File(dir string, key [32]byte) string {
	return filepath.Join(dir, hex.EncodeToString(key[:])+".xla")
}

// lookup returns the serialized executable of key from memory (fromDisk false) or from the
// persistent cache (fromDisk true), or nil. A damaged entry counts as Rejected.
func lookup(key [32]byte) (payload []byte, fromDisk bool) {
	mu.Lock()
	payload = memory[key]
	mu.Unlock()
	if payload != nil {
		return payload, false
	}
	dir := Dir()
	if dir == "" {
		return nil, false
	}
	entry, err := os.ReadFile(File(dir, key))
	if err != nil {
		return nil, false
	}
	now := time.Now()
	os.Chtimes(File(dir, key), now, now) // used now: the last to be pruned
	if payload, err = decode(key, entry); err != nil {
		count(func(s *Stats) { s.Rejected++ })
		logEvent("rejected", 0, key, len(entry))
		return nil, false
	}
	return payload, true
}

// MaxBytes bounds the persistent cache: after each write, the entries used least recently (by
// modification time, which a load renews) are removed until the rest fit.
const MaxBytes = 4 << 30

// prune removes the least recently used entries of dir until its entries total at most max bytes.
func prune(dir string, max int64) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.xla"))
	if err != nil {
		return err
	}
	type entry struct {
		path string
		size int64
		used time.Time
	}
	var entries []entry
	var total int64
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			continue // removed by another process meanwhile
		}
		entries = append(entries, entry{f, st.Size(), st.ModTime()})
		total += st.Size()
	}
	slices.SortFunc(entries, func(a, b entry) int { return a.used.Compare(b.used) })
	for _, e := range entries {
		if total <= max {
			break
		}
		if err := os.Remove(e.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		total -= e.size
	}
	return nil
}

// keep stores the serialized executable of key in memory and, when the persistent cache is on, on
// disk. A failure to write is reported on stderr and otherwise ignored: the cache is an optimisation.
func keep(key [32]byte, payload []byte) {
	remember(key, payload)
	dir := Dir()
	if dir == "" {
		return
	}
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = atomicfile.WriteFile(File(dir, key), encode(key, payload), 0o644)
	}
	if err == nil {
		err = prune(dir, MaxBytes)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "xlacache: not saved: %v\n", err)
	}
}

// remember keeps the serialized executable of key in this process's memory.
func remember(key [32]byte, payload []byte) {
	mu.Lock()
	memory[key] = payload
	mu.Unlock()
}

// forget drops key from memory (after the plugin refused to load its payload).
func forget(key [32]byte) {
	mu.Lock()
	delete(memory, key)
	mu.Unlock()
}

// ForgetProcess empties this process's memory of compiled programs, as if the process had just
// started: for tests of the persistent cache.
func ForgetProcess() {
	mu.Lock()
	memory = map[[32]byte][]byte{}
	mu.Unlock()
}

func since(t time.Time) float64 { return time.Since(t).Seconds() }
