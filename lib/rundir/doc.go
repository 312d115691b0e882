// Package rundir keeps a run directory (`geoalign train --out RUNDIR`, docs in the README's
// "Use your own features") trustworthy as a record:
//
//   - Lock: one process at a time. An exclusive advisory lock (flock(2) through gofrs/flock) on
//     RUNDIR/.geoalign-lock, which holds the holder's process id; the kernel releases it when the
//     process ends, however it ends, so a killed run never leaves a stale lock.
//   - Record: what made the run — the configuration's sha256 (over its canonical JSON), size,
//     modification time and sha256 of every data file read, the code version (git commit) and the
//     backend. Check verifies a run's record against the files as they are now and names the file
//     that changed; a file whose size and modification time are unchanged is not hashed again.
//   - Own names: the files a run directory holds besides its results (the lock file and lib/atomicfile's
//     temporary files), which can never collide with a researcher's own files.
package rundir
