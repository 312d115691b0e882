package sources

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/progress"
)

// Options says where Resolve looks and how it downloads.
type Options struct {
	Shared string       // the staged data directory (tracks.SharedDir); may be absent
	Cache  string       // the build cache: downloads go to <Cache>/sources (CacheDir)
	Mirror string       // replaces every URL by <Mirror>/<path> when set (MirrorEnv)
	Client *http.Client // nil: a client with a 2-minute limit per file
	// Workers is how many downloads run at once; 0 means 4 (modest: a public host, small files).
	Workers int
	Log     io.Writer // one line per downloaded or re-downloaded file's reason; nil: silent
}

// Local maps each resolved file's Path to its verified local copy.
type Local map[string]string

// Resolve returns a verified local copy of every file (see the package documentation for the
// order: staged, cached, downloaded). It returns what it resolved and, when some file could not
// be had, a data.BadInput error naming every such file.
func Resolve(files []File, opt Options) (Local, error) {
	local := Local{}
	var fetch []File
	var errs []error
	cacheDir := CacheDir(opt.Cache)
	for _, f := range files {
		staged := filepath.Join(opt.Shared, filepath.FromSlash(f.Path))
		if opt.Shared != "" && isFile(staged) {
			if err := verify(staged, f); err != nil {
				errs = append(errs, fmt.Errorf("staged input %w (corrupt, or not the copy %s pins: restore it)", err, ManifestFile))
				continue
			}
			local[f.Path] = staged
			continue
		}
		cached := filepath.Join(cacheDir, filepath.FromSlash(f.Path))
		if isFile(cached) {
			if err := verify(cached, f); err == nil {
				local[f.Path] = cached
				continue
			} else if opt.Log != nil {
				fmt.Fprintf(opt.Log, "sources: downloading again: cached %v\n", err)
			}
		}
		fetch = append(fetch, f)
	}
	if len(errs) > 0 {
		return local, data.BadInput(errors.Join(errs...))
	}
	if len(fetch) == 0 {
		return local, nil
	}
	got, err := download(fetch, opt)
	for p, l := range got {
		local[p] = l
	}
	return local, err
}

// isFile reports whether p exists and is a regular file (or a link to one).
func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// verify checks the sha256 and size of the file at p against f.
func verify(p string, f File) error {
	sum, n, err := HashFile(p)
	if err != nil {
		return err
	}
	if sum != f.SHA256 || n != f.Bytes {
		return fmt.Errorf("%s has sha256 %s (%d bytes), want %s (%d bytes)", p, sum, n, f.SHA256, f.Bytes)
	}
	return nil
}

// HashFile returns the sha256 (lower-case hex) and size of the file at p.
func HashFile(p string) (string, int64, error) {
	r, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// unreachable is a download that did not start: no URL, or the host could not be reached (the
// first such failure stops the downloads not yet started, which are then unreachable too).
type unreachable struct {
	file  File
	cause string
}

// download fetches files with opt.Workers at a time into CacheDir(opt.Cache).
func download(files []File, opt Options) (Local, error) {
	client := opt.Client
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Minute}
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = 4
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bar := progress.New("downloading sources", len(files))
	defer bar.Done()

	var mu sync.Mutex
	local := Local{}
	var broken []error        // started but wrong: partial, corrupt, HTTP error
	var missing []unreachable // never started
	var cause string          // the failure that stopped the downloads
	jobs := make(chan File)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for f := range jobs {
				url := f.Source(opt.Mirror)
				if url == "" {
					mu.Lock()
					missing = append(missing, unreachable{f, "no upstream URL: " + f.Note})
					mu.Unlock()
					bar.Add(1, "")
					continue
				}
				if ctx.Err() != nil {
					mu.Lock()
					missing = append(missing, unreachable{f, "not tried after the first unreachable host"})
					mu.Unlock()
					bar.Add(1, "")
					continue
				}
				dest := filepath.Join(CacheDir(opt.Cache), filepath.FromSlash(f.Path))
				derive := f.Derive
				if opt.Mirror != "" {
					derive = "" // a mirror serves the file itself
				}
				err := fetchOne(ctx, client, url, dest, f, derive)
				mu.Lock()
				var ue *urlError
				switch {
				case err == nil:
					local[f.Path] = dest
				case errors.As(err, &ue):
					missing = append(missing, unreachable{f, ue.Error()})
					if cause == "" && !errors.Is(ue.err, context.Canceled) {
						cause = ue.Error()
					}
					cancel()
				default:
					broken = append(broken, err)
				}
				mu.Unlock()
				bar.Add(1, path.Base(f.Path))
			}
		})
	}
	for _, f := range files {
		jobs <- f
	}
	close(jobs)
	wg.Wait()
	if len(broken) == 0 && len(missing) == 0 {
		return local, nil
	}
	var msg []string
	for _, e := range broken {
		msg = append(msg, e.Error())
	}
	if len(missing) > 0 {
		msg = append(msg, missingMessage(missing, cause, opt))
	}
	return local, data.BadInput(errors.New(strings.Join(msg, "\n")))
}

// urlError is a download that could not reach its host (the request failed before a response).
type urlError struct{ err error }

func (e *urlError) Error() string { return e.err.Error() }

// fetchOne downloads url into dest through a temporary file (written by the derivation derive
// from the body when set), checking size and sha256 against f before the rename; on any failure
// nothing is left at dest or beside it.
func fetchOne(ctx context.Context, client *http.Client, url, dest string, f File, derive string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return &urlError{err}
	}
	resp, err := client.Do(req)
	if err != nil {
		return &urlError{err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("downloading %s (for %s): HTTP %s", url, f.Path, resp.Status)
	}
	var body io.Reader = resp.Body
	if derive != "" {
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			return fmt.Errorf("downloading %s (for %s) broke off after %d bytes (%v)", url, f.Path, len(raw), err)
		}
		out, err := Derivations[derive].Apply(raw)
		if err != nil {
			return fmt.Errorf("deriving %s from %s (%s): %v", f.Path, url, derive, err)
		}
		body = bytes.NewReader(out)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	w, err := atomicfile.Create(dest)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), body)
	if err != nil {
		w.Abort()
		return fmt.Errorf("downloading %s into %s broke off after %d of %d bytes (%v): the partial file was deleted", url, dest, n, f.Bytes, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != f.SHA256 || n != f.Bytes {
		w.Abort()
		return fmt.Errorf("downloaded %s for %s: sha256 %s (%d bytes), want %s (%d bytes): refused and deleted (not the pinned file)", url, dest, sum, n, f.SHA256, f.Bytes)
	}
	return w.Commit()
}

// groupMin is the number of missing files of one directory, sharing one URL prefix, from which
// they are listed as one line (FSDD's recordings) rather than one line each.
const groupMin = 6

// missingMessage lists the files that could not be had, each with its URL and destination, after
// cause (the first failure to reach a host; the first file's reason when there was none); the files
// of one directory whose URLs share a prefix form one line when there are groupMin or more.
func missingMessage(missing []unreachable, cause string, opt Options) string {
	sort.Slice(missing, func(i, j int) bool { return missing[i].file.Path < missing[j].file.Path })
	dest := CacheDir(opt.Cache)
	if cause == "" {
		cause = missing[0].cause
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d source file(s) could not be had (offline? first error: %s). Download each from its URL to the path shown under %s (or stage the same tree under $GEOALIGN_SHARED, or point %s at a mirror of it), then run again:",
		len(missing), cause, dest, MirrorEnv)
	for i := 0; i < len(missing); {
		f := missing[i].file
		dir := path.Dir(f.Path)
		url := f.Source(opt.Mirror)
		prefix := strings.TrimSuffix(url, path.Base(f.Path))
		j := i + 1
		for j < len(missing) && path.Dir(missing[j].file.Path) == dir && prefix != "" && prefix != url &&
			missing[j].file.Source(opt.Mirror) == prefix+path.Base(missing[j].file.Path) {
			j++
		}
		if j-i >= groupMin {
			fmt.Fprintf(&b, "\n  %s/<name>  (%d files, %s … %s; every name in %s)  ← %s<name>",
				dir, j-i, path.Base(f.Path), path.Base(missing[j-1].file.Path), ManifestFile, prefix)
			i = j
			continue
		}
		for ; i < j; i++ {
			m := missing[i]
			if src := m.file.Source(opt.Mirror); src != "" && m.file.Derive != "" && opt.Mirror == "" {
				fmt.Fprintf(&b, "\n  %s  ← written from %s as %s", m.file.Path, src, Derivations[m.file.Derive].Doc)
			} else if src != "" {
				fmt.Fprintf(&b, "\n  %s  ← %s", m.file.Path, src)
			} else {
				fmt.Fprintf(&b, "\n  %s  (%s)", m.file.Path, m.cause)
			}
		}
	}
	return b.String()
}
