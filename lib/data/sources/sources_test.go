package sources

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/geoalign/geoalign/lib/data"
)

// The fixtures under testdata/upstream, with their sha256 and size as `sha256sum` and `wc -c`
// print them (computed outside this package).
var fixtures = []File{
	{Path: "notes/words.txt", SHA256: "1dff8a0389ac0c3447eade7737fb528102b06ec62bcbfec45c5c4c798b0e11b2", Bytes: 19},
	{Path: "digits/0.txt", SHA256: "3eef88565f1beba03ca6324dac4e7dd4b664d3419be905d12abd64eb4dd72b49", Bytes: 30},
	{Path: "digits/1.txt", SHA256: "3f50537758882a15375fcf935f88d01515bd0f5de5dd6ce02e3be98087411847", Bytes: 30},
	{Path: "digits/2.txt", SHA256: "9f34bac351b40bf54c39d08c9b1782b56c9c86dc0288ae5f5f70f72f45c580e3", Bytes: 30},
	{Path: "digits/3.txt", SHA256: "fb43dcdb572651cae74e256524451c985f999d33b772a18e67f24b8e32d4aa46", Bytes: 30},
	{Path: "digits/4.txt", SHA256: "f59dbe3b2cbf1761d2e000389258a64e4d0d455240f667ff247199ff6c850a47", Bytes: 30},
	{Path: "digits/5.txt", SHA256: "c6ab114612aeb5abfce2c26cda1c5cad711c7236615ef99fab647a2f866ff039", Bytes: 30},
}

// upstream serves testdata/upstream under /repo/<commit>/ (as raw.githubusercontent.com would),
// counting requests; handler, when set, answers instead for the paths it claims.
type upstream struct {
	*httptest.Server
	requests atomic.Int64
	override func(w http.ResponseWriter, r *http.Request) bool
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{}
	files := http.StripPrefix("/repo/abc123", http.FileServer(http.Dir(filepath.Join("testdata", "upstream"))))
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.requests.Add(1)
		if u.override != nil && u.override(w, r) {
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// files returns the fixtures with their URLs on u.
func (u *upstream) files() []File {
	out := append([]File(nil), fixtures...)
	for i := range out {
		out[i].URL = u.URL + "/repo/abc123/" + out[i].Path
		out[i].License = "test"
	}
	return out
}

// leftovers lists every file under dir (temporary ones included).
func leftovers(t *testing.T, dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// A fresh cache downloads every file, verified, to <cache>/sources/<path>; a second run finds
// them there and makes no request.
func TestFreshCacheDownloadsThenSecondRunDownloadsNothing(t *testing.T) {
	u := newUpstream(t)
	cache := t.TempDir()
	opt := Options{Shared: filepath.Join(t.TempDir(), "absent"), Cache: cache}
	local, err := Resolve(u.files(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.requests.Load(); got != int64(len(fixtures)) {
		t.Errorf("%d requests for %d files", got, len(fixtures))
	}
	for _, f := range fixtures {
		want := filepath.Join(cache, "sources", filepath.FromSlash(f.Path))
		if local[f.Path] != want {
			t.Errorf("%s resolved to %q, want %q", f.Path, local[f.Path], want)
		}
		got, err := os.ReadFile(want)
		src, _ := os.ReadFile(filepath.Join("testdata", "upstream", filepath.FromSlash(f.Path)))
		if err != nil || string(got) != string(src) {
			t.Errorf("%s: downloaded %q (%v), want %q", f.Path, got, err, src)
		}
	}
	if n := len(leftovers(t, cache)); n != len(fixtures) {
		t.Errorf("%d files in the cache, want %d: %v", n, len(fixtures), leftovers(t, cache))
	}
	u.requests.Store(0)
	if _, err := Resolve(u.files(), opt); err != nil {
		t.Fatal(err)
	}
	if got := u.requests.Load(); got != 0 {
		t.Errorf("second run made %d requests, want none", got)
	}
}

// A body whose sha256 is not the pinned one is refused, named, and not kept; the other files
// still download.
func TestCorruptDownloadIsRefusedAndDeleted(t *testing.T) {
	u := newUpstream(t)
	u.override = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/notes/words.txt") {
			w.Write([]byte("zero one two thre3\n")) // same size, one byte differs
			return true
		}
		return false
	}
	cache := t.TempDir()
	local, err := Resolve(u.files(), Options{Cache: cache})
	dest := filepath.Join(cache, "sources", "notes", "words.txt")
	if !data.IsBadInput(err) || !strings.Contains(err.Error(), dest) || !strings.Contains(err.Error(), fixtures[0].SHA256) {
		t.Fatalf("error %v, want a bad-input error naming %s and the pinned sha256", err, dest)
	}
	if _, ok := local["notes/words.txt"]; ok {
		t.Error("the corrupt file was resolved")
	}
	for _, p := range leftovers(t, cache) {
		if strings.Contains(p, "words.txt") {
			t.Errorf("left behind: %s", p)
		}
	}
	if len(local) != len(fixtures)-1 {
		t.Errorf("%d files resolved, want the %d good ones", len(local), len(fixtures)-1)
	}
}

// A server that stops in the middle of a file leaves nothing behind, and the error names the
// file and the URL.
func TestDownloadBrokenOffLeavesNothing(t *testing.T) {
	u := newUpstream(t)
	u.override = func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("Content-Length", "30")
		w.Write([]byte("recording 2 of"))
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // drops the connection mid-body
	}
	files := u.files()[3:4] // digits/2.txt
	cache := t.TempDir()
	_, err := Resolve(files, Options{Cache: cache})
	if !data.IsBadInput(err) || !strings.Contains(err.Error(), files[0].URL) || !strings.Contains(err.Error(), "broke off") {
		t.Fatalf("error %v, want a bad-input error naming %s as broken off", err, files[0].URL)
	}
	if left := leftovers(t, cache); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// GEOALIGN_SOURCES_MIRROR's rule: every URL becomes <mirror>/<path>, exactly.
func TestMirrorRewritesEveryURL(t *testing.T) {
	f := File{Path: "charades/charades_sta_train.txt", URL: "https://raw.githubusercontent.com/microsoft/2D-TAN/2f7410f0/data/Charades-STA/charades_sta_train.txt"}
	for mirror, want := range map[string]string{
		"":                       f.URL,
		"http://127.0.0.1:8000":  "http://127.0.0.1:8000/charades/charades_sta_train.txt",
		"http://127.0.0.1:8000/": "http://127.0.0.1:8000/charades/charades_sta_train.txt",
	} {
		if got := f.Source(mirror); got != want {
			t.Errorf("Source(%q) = %q, want %q", mirror, got, want)
		}
	}
	if got := (File{Path: "charades/classes.tsv"}).Source("http://m"); got != "http://m/charades/classes.tsv" {
		t.Errorf("a file without a URL on a mirror: %q", got)
	}
	// Resolve asks the mirror for /<path> and nothing else.
	var asked []string
	mirror := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		http.FileServer(http.Dir(filepath.Join("testdata", "upstream"))).ServeHTTP(w, r)
	}))
	defer mirror.Close()
	files := []File{fixtures[0]}
	files[0].URL = "http://upstream.invalid/never/asked"
	if _, err := Resolve(files, Options{Cache: t.TempDir(), Mirror: mirror.URL, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != "/notes/words.txt" {
		t.Errorf("the mirror was asked for %v, want [/notes/words.txt]", asked)
	}
}

// A staged copy is used in place (no request); a corrupt one is an error naming it, never
// replaced by a download.
func TestStagedCopyWinsAndACorruptOneIsNamed(t *testing.T) {
	u := newUpstream(t)
	shared := filepath.Join("testdata", "upstream")
	local, err := Resolve(u.files(), Options{Shared: shared, Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if u.requests.Load() != 0 || local["digits/3.txt"] != filepath.Join(shared, "digits", "3.txt") {
		t.Errorf("%d requests, digits/3.txt → %q: want the staged copy and no request", u.requests.Load(), local["digits/3.txt"])
	}
	files := u.files()
	files[2].SHA256 = strings.Repeat("0", 64)
	_, err = Resolve(files, Options{Shared: shared, Cache: t.TempDir()})
	if p := filepath.Join(shared, "digits", "1.txt"); !data.IsBadInput(err) || !strings.Contains(err.Error(), p) {
		t.Fatalf("error %v, want a bad-input error naming %s", err, p)
	}
	if u.requests.Load() != 0 {
		t.Error("a corrupt staged copy was replaced by a download")
	}
}

// Offline: one bad-input error lists every file with its URL and destination; six or more
// files of one folder with one URL pattern are one line.
func TestOfflineListsMissingFilesAndURLs(t *testing.T) {
	u := newUpstream(t)
	files := u.files()
	u.Close() // nothing listens any more
	files = append(files, File{Path: "notes/derived.tsv", SHA256: strings.Repeat("a", 64), Bytes: 1, Note: "made by hand from notes/words.txt"})
	cache := t.TempDir()
	_, err := Resolve(files, Options{Cache: cache})
	if !data.IsBadInput(err) {
		t.Fatalf("error %v, want bad input", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"8 source file(s) could not be had (offline? first error: ",
		"connection refused",
		filepath.Join(cache, "sources"),
		"notes/words.txt  ← " + files[0].URL,
		"digits/<name>  (6 files, 0.txt … 5.txt; every name in datasets/sources.json)  ← " + u.URL + "/repo/abc123/digits/<name>",
		"notes/derived.tsv  (no upstream URL: made by hand from notes/words.txt)",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "context canceled") {
		t.Errorf("the message blames the cancellation, not the unreachable host:\n%s", msg)
	}
	if left := leftovers(t, cache); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// stagedShared is the staged data directory beside the checkout, or "" when absent.
func stagedShared() string {
	if s := os.Getenv("GEOALIGN_SHARED"); s != "" {
		return s
	}
	p := filepath.Join("..", "..", "..", "..", "shared", "data")
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return p
	}
	return ""
}

// The project's manifest reads, lists FSDD's 3,000 recordings, and agrees with the pins that were
// computed before it: the data survey's sha256 of the Charades and WordNet files, and the FSDD
// directory digest (Python's hashlib over the sorted "<name> <sha256>\n" lines).
func TestProjectManifestAgreesWithTheSurveyPins(t *testing.T) {
	m, err := Read(filepath.Join("..", "..", "..", "datasets", "sources.json"))
	if err != nil {
		t.Fatal(err)
	}
	pins := map[string]string{
		"charades/Charades_v1_test.csv":   "8b8b207b55fb95b949018027f69d83bd46cd844d15834f8f592ee8e7446173eb",
		"charades/Charades_v1_train.csv":  "59273c6dc2139ec7eb95b980fd26bc8529774b1ede0602f6ca90b546ed12f0fc",
		"charades/charades_sta_test.txt":  "fab341679c20b0917173dcffffde367a71113fe63f3a645558cef2ebfbfefb55",
		"charades/charades_sta_train.txt": "47ec9b6b488fca753373d9cc29b07a959f7237a922cb29463cd088cd6198e805",
		"charades/classes.tsv":            "8d6165bb03cccbfd46df39da53a77e76ef2eb43c56dcb1bf68d724a34cdd454c",
		"wordnet/mammals_filter.txt":      "f3d46ca7275a1fc20c4fea2f48c02bba1b491a7ec61ddb73bbabdd499bda0060",
	}
	var lines []string
	for _, f := range m.Files {
		if want, ok := pins[f.Path]; ok && f.SHA256 != want {
			t.Errorf("%s: sha256 %s, the survey's %s", f.Path, f.SHA256, want)
		}
		delete(pins, f.Path)
		if strings.HasPrefix(f.Path, "fsdd/recordings/") {
			lines = append(lines, strings.TrimPrefix(f.Path, "fsdd/recordings/")+" "+f.SHA256+"\n")
		}
	}
	if len(pins) != 0 {
		t.Errorf("not in the manifest: %v", pins)
	}
	sort.Strings(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "")))
	if len(lines) != 3000 || hex.EncodeToString(sum[:]) != "dbd573d7cafe79c4b49f65718115e1304e24e067fa39eff18a660dc6cb9c360f" {
		t.Errorf("FSDD: %d recordings with digest %x, want 3,000 with dbd573d7…", len(lines), sum)
	}
	for _, f := range m.Files {
		if f.URL != "" && !strings.HasPrefix(f.URL, "https://raw.githubusercontent.com/") {
			t.Errorf("%s: URL %s is not a raw file of a pinned repository", f.Path, f.URL)
		}
	}
}

// Where the staged data is present, every staged file matches the manifest (no download: the
// client refuses every request) and a mirror serving the staged directory yields the same files
// (a few of them, to stay quick).
func TestStagedDataMatchesTheManifest(t *testing.T) {
	shared := stagedShared()
	if shared == "" {
		t.Skip("no staged data (../shared/data or GEOALIGN_SHARED): nothing to compare")
	}
	m, err := Read(filepath.Join("..", "..", "..", "datasets", "sources.json"))
	if err != nil {
		t.Fatal(err)
	}
	refuse := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("request for %s: the staged data should need none", r.URL)
		return nil, http.ErrServerClosed
	})}
	local, err := Resolve(m.Files, Options{Shared: shared, Cache: t.TempDir(), Client: refuse})
	if err != nil || len(local) != len(m.Files) {
		t.Fatalf("%d of %d staged files resolved: %v", len(local), len(m.Files), err)
	}
	mirror := httptest.NewServer(http.FileServer(http.Dir(shared)))
	defer mirror.Close()
	some := append(m.Under("wordnet/", "charades/charades_sta_test.txt"), m.Under("fsdd/recordings/0_george_")...)
	cache := t.TempDir()
	if _, err := Resolve(some, Options{Cache: cache, Mirror: mirror.URL}); err != nil {
		t.Fatal(err)
	}
	if n := len(leftovers(t, cache)); n != len(some) {
		t.Errorf("%d files downloaded from the mirror, want %d", n, len(some))
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A manifest with a bad entry is bad input naming the entry.
func TestReadRefusesBadEntries(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"licenses":{"x":"y"},"files":[{"path":"../a","url":"u","sha256":"` + strings.Repeat("a", 64) + `","license":"x"}]}`, `files[0].path "../a"`},
		{`{"licenses":{"x":"y"},"files":[{"path":"a","url":"u","sha256":"abc","license":"x"}]}`, `files[0] (a): sha256`},
		{`{"licenses":{"x":"y"},"files":[{"path":"a","url":"u","sha256":"` + strings.Repeat("a", 64) + `","license":"z"}]}`, `licence "z"`},
		{`{"licenses":{"x":"y"},"files":[{"path":"a","sha256":"` + strings.Repeat("a", 64) + `","license":"x"}]}`, `no url and no note`},
	} {
		p := filepath.Join(t.TempDir(), "sources.json")
		os.WriteFile(p, []byte(tc.body), 0o644)
		_, err := Read(p)
		if !data.IsBadInput(err) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("Read(%s) error %v, want bad input naming the file and %q", tc.body, err, tc.want)
		}
	}
}

// A file with no upstream copy of its own (Derive) is written from its URL's file by the rule and
// checked like any download (sha256 of the expected TSV by `printf … | sha256sum`); a mirror
// serves the derived file itself.
func TestDerivedFileIsWrittenFromItsUpstream(t *testing.T) {
	u := newUpstream(t)
	f := File{Path: "notes/classes.tsv", URL: u.URL + "/repo/abc123/notes/classes.py", Derive: PythonDictToTSV,
		SHA256: "f9af400d4f92cf768e3996727e0f966fa2dd8bdb01a3450e925ca12623a5f58e", Bytes: 75}
	cache := t.TempDir()
	local, err := Resolve([]File{f}, Options{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(local[f.Path])
	if want := "c000\tHolding some clothes\nc001\tOpening a door\nc002\tWatching/Reading a book\n"; string(got) != want {
		t.Errorf("derived %q, want %q", got, want)
	}
	bad := f
	bad.SHA256 = strings.Repeat("b", 64)
	if _, err := Resolve([]File{bad}, Options{Cache: t.TempDir()}); !data.IsBadInput(err) || !strings.Contains(err.Error(), "refused and deleted") {
		t.Errorf("a derivation that does not give the pinned file: %v", err)
	}
	// On a mirror, the derived file itself is fetched from <mirror>/<path>.
	staged := t.TempDir()
	os.MkdirAll(filepath.Join(staged, "notes"), 0o755)
	os.WriteFile(filepath.Join(staged, "notes", "classes.tsv"), got, 0o644)
	mirror := httptest.NewServer(http.FileServer(http.Dir(staged)))
	defer mirror.Close()
	if _, err := Resolve([]File{f}, Options{Cache: t.TempDir(), Mirror: mirror.URL}); err != nil {
		t.Errorf("from the mirror: %v", err)
	}
	// Offline, the message says it is written from the upstream file, not a copy of it.
	u.Close()
	_, err = Resolve([]File{f}, Options{Cache: t.TempDir()})
	if want := "notes/classes.tsv  ← written from " + f.URL + " as the \"key\": \"value\" lines"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("offline: %v, want it to say %q", err, want)
	}
}
