//go:build !unix

package fsstore

import "io/fs"

// ino is 0 where there are no inode numbers: the identity is then the
// size and modification time alone.
func ino(fs.FileInfo) uint64 { return 0 }
