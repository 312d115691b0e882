// Package atomicfile writes files so that a reader — or a later run after a crash or a kill -9 —
// sees either the previous content or the complete new content, never a truncated file.
//
// The data goes to a temporary file in the target's directory (".<name>.<random>.tmp", so that
// globs such as *.json never match a leftover), is flushed to stable storage (fsync), and is
// renamed over the target; the directory is then synced so that the rename itself survives a
// power loss. A rename within one directory is atomic on POSIX file systems.
//
// Every result, table, figure and data-cache file of the project is written through this
// package (WriteFile for bytes in memory, Write for a streaming writer, Create for a writer that
// also needs WriteAt, such as lib/data/h5). Files are created with mode 0644.
package atomicfile
