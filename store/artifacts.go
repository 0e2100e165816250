package store

import "time"

// DirtyKeys are the artifact keys writes dirtied, waiting for the rebuild
// job (issue 16, point 3). A write marks what it changes in its own
// transaction, so a committed change always has its keys recorded and a
// rolled-back one never does.
type DirtyKeys interface {
	// Mark records keys as dirty now. A key already dirty keeps the time
	// it was first marked and its generation moves on, so a rebuild that
	// read it before cannot clear the newer mark. At most MaxMarkKeys
	// keys of at most MaxDirtyKey bytes each.
	Mark(keys ...string) error
	// Oldest returns up to limit dirty keys (1–MaxMarkKeys), the longest
	// dirty first, each with the generation it has now.
	Oldest(limit int) ([]DirtyKey, error)
	// Clear removes the keys given whose generation is still the one
	// given (rebuilt, and not dirtied again since), and returns how many.
	Clear(done ...DirtyKey) (int, error)
	// Count returns how many keys are dirty: the rebuild's progress.
	Count() (int, error)
}

// DirtyKey is one dirty artifact key.
type DirtyKey struct {
	Key   string
	Gen   int64
	Since time.Time
}

// The limits of DirtyKeys.
const (
	MaxDirtyKey = 1024 // bytes: artifact.MaxKey
	MaxMarkKeys = 1000 // keys in one Mark, Clear or Oldest
)
