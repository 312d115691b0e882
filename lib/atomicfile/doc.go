// Package atomicfile writes files so that a reader — or the next run after a crash, a kill -9 or
// a full disk — sees either the old content or the new one, never a prefix of the new one: the
// data goes to a temporary file in the target's directory (".geoalign-tmp-<name>.<random>", TempPrefix:
// a hidden name that globs such as *.json never match, and that no file of a user's can be
// mistaken for; RemoveTemps clears leftovers), is synced, and is renamed over the target (rename is
// atomic within a file system on POSIX systems). The directory is synced afterwards so that the
// rename itself survives a power loss.
//
// Every result, table, figure, checkpoint, history and data-cache file of the project is written
// through this package: WriteFile and WriteJSON for bytes in memory, Write for a streaming
// writer, Create for a writer that also needs WriteAt or Seek (such as lib/data/h5).
package atomicfile
