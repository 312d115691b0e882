package rundir

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/geoalign/geoalign/lib/atomicfile"
)

// lockHelperEnv makes the test binary a process that holds the lock of a directory until its
// standard input closes (TestLockAcrossProcesses).
const lockHelperEnv = "GEOALIGN_RUNDIR_LOCK_HELPER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(lockHelperEnv); dir != "" {
		l, err := Acquire(dir)
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(3)
		}
		os.Stdout.WriteString("locked\n")
		bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes the pipe
		l.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A second lock on a directory fails naming the holder (locks are per open file, so a second
// Acquire in the same process conflicts too), changes nothing, and succeeds once released.
func TestLockInProcess(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, LockFile))
	if string(before) != strconv.Itoa(os.Getpid())+"\n" {
		t.Fatalf("lock file holds %q, want this process id", before)
	}
	assertBusy(t, dir, os.Getpid(), "second Acquire")
	if after, _ := os.ReadFile(filepath.Join(dir, LockFile)); string(after) != string(before) {
		t.Errorf("a refused Acquire changed the lock file: %q → %q", before, after)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	reacquire(t, dir, "after Release")
}

// The lock holds across processes: a child holding it makes Acquire fail naming the child's PID;
// when the child exits (here: is killed), the kernel releases it.
func TestLockAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("helper: %q, %v", line, err)
	}
	assertBusy(t, dir, cmd.Process.Pid, "Acquire while the child holds the lock")
	cmd.Process.Kill()
	cmd.Wait()
	reacquire(t, dir, "after the holder was killed")
}

// assertBusy checks that Acquire(dir) fails with a BusyError whose PID, also in its message, is pid.
func assertBusy(t *testing.T, dir string, pid int, what string) {
	t.Helper()
	_, err := Acquire(dir)
	var busy *BusyError
	if !errors.As(err, &busy) || busy.PID != strconv.Itoa(pid) || !strings.Contains(err.Error(), "process "+busy.PID) {
		t.Fatalf("%s: %v, want a BusyError naming process %d", what, err, pid)
	}
}

// reacquire checks that Acquire(dir) succeeds (when: after what) and releases the lock again.
func reacquire(t *testing.T, dir, when string) {
	t.Helper()
	l, err := Acquire(dir)
	if err != nil {
		t.Fatalf("Acquire %s: %v", when, err)
	}
	l.Release()
}

func TestIsEmptyAndClean(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if empty, err := IsEmpty(run); err != nil || !empty {
		t.Fatalf("missing directory: %v, %v", empty, err)
	}
	os.MkdirAll(filepath.Join(run, "best"), 0o755)
	// What a kill leaves: the lock file and a half-written config.json, in the run and in best/.
	for _, p := range []string{LockFile, atomicfile.TempPrefix + "config.json.123", "best/" + atomicfile.TempPrefix + "x.json.9"} {
		os.WriteFile(filepath.Join(run, p), []byte("x"), 0o644)
	}
	if empty, err := IsEmpty(run); err != nil || empty { // best/ is a result directory
		t.Fatalf("with best/: %v, %v", empty, err)
	}
	os.WriteFile(filepath.Join(run, ".notes.tmpl"), []byte("mine"), 0o644) // a user's file that looks temporary
	if err := Clean(run, "best"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{atomicfile.TempPrefix + "config.json.123", "best/" + atomicfile.TempPrefix + "x.json.9"} {
		if _, err := os.Stat(filepath.Join(run, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s not removed", p)
		}
	}
	for _, p := range []string{LockFile, ".notes.tmpl"} {
		if _, err := os.Stat(filepath.Join(run, p)); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	os.Remove(filepath.Join(run, ".notes.tmpl"))
	os.RemoveAll(filepath.Join(run, "best"))
	if empty, err := IsEmpty(run); err != nil || !empty {
		t.Fatalf("only the lock file: %v, %v", empty, err)
	}
}

func TestConfigHash(t *testing.T) {
	a, err := ConfigHash([]byte(`{"Model": {"Seed": 9007199254740993, "Geometry": 0}}`))
	if err != nil {
		t.Fatal(err)
	}
	// Formatting and key order are not the configuration.
	if b, _ := ConfigHash([]byte("{\n  \"Model\": {\n    \"Geometry\": 0,\n    \"Seed\": 9007199254740993\n  }\n}\n")); b != a {
		t.Errorf("reformatted: %s, want %s", b, a)
	}
	// A value is: the Geometry edit of issue 31, and a seed that float64 would round to the same number.
	for _, edited := range []string{`{"Model": {"Seed": 9007199254740993, "Geometry": 2}}`, `{"Model": {"Seed": 9007199254740992, "Geometry": 0}}`} {
		if b, _ := ConfigHash([]byte(edited)); b == a {
			t.Errorf("%s hashes as the original", edited)
		}
	}
	r := &Record{ConfigSHA256: a}
	err = r.CheckConfig([]byte(`{"Model": {"Seed": 9007199254740993, "Geometry": 2}}`), "R/config.json")
	var ch *ChangedError
	if !errors.As(err, &ch) || ch.Path != "R/config.json" || !strings.Contains(err.Error(), "edited") {
		t.Errorf("edited configuration: %v", err)
	}
}

// The data check: a file whose content changed (rows reversed: same size), a file gone, a file
// new (a val.txt that would change the splits) are each named; a touched file with the same
// content is not a change.
func TestCheckData(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := write("a.npy", "row1row2"), write("train.txt", "x\ny\n")
	stamps, err := Stamp([]string{b, a, a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// sha256("row1row2") computed independently (Python hashlib).
	if len(stamps) != 2 || stamps[0].Path != a || stamps[0].SHA256 != "336ac3ec0d09c8db23f987263ee4c446cad16c2f56d06eb57b66a02af24ace49" || stamps[0].Size != 8 {
		t.Fatalf("stamps %+v", stamps)
	}
	r := &Record{Data: stamps}
	if err := r.CheckData([]string{a, b}); err != nil {
		t.Fatalf("unchanged: %v", err)
	}
	later := time.Now().Add(time.Hour)
	os.Chtimes(a, later, later) // touched: hashed again, same content
	if err := r.CheckData([]string{a, b}); err != nil {
		t.Fatalf("touched: %v", err)
	}
	write("a.npy", "row2row1")
	var ch *ChangedError
	if err := r.CheckData([]string{a, b}); !errors.As(err, &ch) || ch.Path != a || !strings.Contains(err.Error(), "content changed") {
		t.Errorf("reversed rows: %v", err)
	}
	write("a.npy", "row1row2")
	v := write("val.txt", "z\n")
	if err := r.CheckData([]string{a, b, v}); !errors.As(err, &ch) || ch.Path != v {
		t.Errorf("new file: %v", err)
	}
	os.Remove(b)
	if err := r.CheckData([]string{a}); !errors.As(err, &ch) || ch.Path != b || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("removed file: %v", err)
	}
	if err := r.CheckData([]string{a, b}); !errors.As(err, &ch) || ch.Path != b {
		t.Errorf("removed file still listed: %v", err)
	}
}

// A file with the recorded size and modification time is not read again (the cache): a stamp
// with a made-up hash is taken as is.
func TestStampReusesKnown(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.bin")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	st, _ := os.Stat(p)
	known := []FileStamp{{Path: p, Size: 10, ModTime: st.ModTime(), SHA256: "cached"}}
	got, err := Stamp([]string{p}, known)
	if err != nil || got[0].SHA256 != "cached" {
		t.Fatalf("%+v, %v: want the known stamp", got, err)
	}
	os.Chtimes(p, st.ModTime().Add(time.Second), st.ModTime().Add(time.Second))
	if got, _ := Stamp([]string{p}, known); got[0].SHA256 == "cached" {
		t.Error("a moved modification time must be hashed again")
	}
}
