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
	// Newest returns up to limit dirty keys (1–MaxMarkKeys) marked at or
	// after since (the zero time: all), the most recently marked first —
	// a backlog never holds up what was just written — each with the
	// generation it has now. Mark times have millisecond resolution and
	// come from the store's clock (the wall clock), not the site's.
	Newest(limit int, since time.Time) ([]DirtyKey, error)
	// Clear removes the keys given whose generation is still the one
	// given (rebuilt, and not dirtied again since), and returns how many.
	// A key given that is no longer dirty at all is marked again: another
	// rebuild took it meanwhile, and this one's render, which may have
	// read the database before theirs, may be the one that was stored
	// last. One more render settles it.
	Clear(done ...DirtyKey) (int, error)
	// Reap removes the keys first marked before the time given (marks
	// whose pages kept failing), and returns how many.
	Reap(before time.Time) (int, error)
	// Count returns how many keys are dirty: the rebuild's progress.
	Count() (int, error)
}

// DirtyKey is one dirty artifact key.
type DirtyKey struct {
	Key     string
	Gen     int64
	Since   time.Time // first marked
	Touched time.Time // last marked
}

// The limits of DirtyKeys.
const (
	MaxDirtyKey = 1024 // bytes: artifact.MaxKey
	MaxMarkKeys = 1000 // keys in one Mark, Clear or Newest
)
