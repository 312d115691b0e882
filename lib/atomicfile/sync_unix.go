//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// isUnsupported reports a directory sync the file system does not implement.
func isUnsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP)
}
