//go:build unix

package fsstore

import (
	"io/fs"
	"syscall"
)

// ino returns the inode number of st, part of the identity a sidecar
// records.
func ino(st fs.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}
