//go:build !unix

package atomicfile

// isUnsupported: outside POSIX systems directories cannot be synced; renames are as durable as
// the system makes them.
func isUnsupported(error) bool { return true }
