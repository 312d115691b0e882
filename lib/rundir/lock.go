package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/geoalign/geoalign/lib/atomicfile"
	"github.com/gofrs/flock"
)

// LockFile is the lock of a run directory; it holds the process id of the last process that took
// the lock (followed by a newline).
const LockFile = ".geoalign-lock"

// Lock is a held lock on a run directory. Release it when done (the kernel releases it anyway when
// the process exits).
type Lock struct {
	fl  *flock.Flock
	dir string
}

// BusyError is returned by Acquire when another process holds the lock.
type BusyError struct {
	Dir string
	PID string // what the lock file says ("" when the holder has not written it yet)
}

func (e *BusyError) Error() string {
	who := "another process"
	if e.PID != "" {
		who = "process " + e.PID
	}
	return fmt.Sprintf("%s is in use by %s (lock %s held): wait for it to end, or choose another directory",
		e.Dir, who, filepath.Join(e.Dir, LockFile))
}

// Acquire takes the exclusive lock of the existing directory dir without waiting, and writes the
// process id into the lock file. When another process holds it the error is a *BusyError naming
// that process, and nothing in dir changes (the lock file is opened, not written). Locks are per
// open file: a second Acquire in the same process fails as well.
func Acquire(dir string) (*Lock, error) {
	path := filepath.Join(dir, LockFile)
	fl := flock.New(path, flock.SetPermissions(0o644))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("rundir: locking %s: %w", path, err)
	}
	if !ok {
		b, _ := os.ReadFile(path)
		fl.Close()
		return nil, &BusyError{Dir: dir, PID: strings.TrimSpace(string(b))}
	}
	// The lock is held on the file's inode, so a write through another descriptor keeps it (flock
	// locks, unlike fcntl ones, are not released by closing another descriptor of the file).
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		fl.Unlock()
		return nil, fmt.Errorf("rundir: %w", err)
	}
	return &Lock{fl: fl, dir: dir}, nil
}

// IsReadOnly reports whether Acquire failed because the directory cannot be written (permission
// denied, a read-only file system): a run evaluated where it was published, say.
func IsReadOnly(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// Release gives the lock back.
func (l *Lock) Release() error {
	if err := l.fl.Unlock(); err != nil {
		return fmt.Errorf("rundir: unlocking %s: %w", l.fl.Path(), err)
	}
	return nil
}

// Own reports whether a directory entry is housekeeping of a run directory rather than a result:
// the lock file or a temporary file of lib/atomicfile (an interrupted write).
func Own(name string) bool {
	return name == LockFile || atomicfile.IsTemp(name)
}

// IsEmpty reports whether dir does not exist or holds nothing but housekeeping (Own): e.g. a run
// killed before its first file was complete, which may be started again.
func IsEmpty(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if !Own(e.Name()) {
			return false, nil
		}
	}
	return true, nil
}

// Clean removes the temporary files interrupted atomic writes left in dir and in its
// subdirectories subdirs (e.g. train.BestDir). Call it with the lock held: no other process writes.
func Clean(dir string, subdirs ...string) error {
	for _, d := range append([]string{dir}, subdirs...) {
		if d != dir {
			d = filepath.Join(dir, d)
		}
		if err := atomicfile.RemoveTemps(d, ""); err != nil {
			return err
		}
	}
	return nil
}
