//go:build !unix

package fsstore

import (
	"context"
	"os"
)

// lockFile takes no lock outside Unix (murlog's hosts are Unix): renders
// do not take turns there, and a stale render may be stored last until
// the next write marks its page again.
func lockFile(context.Context, *os.File, bool) error { return nil }

func tryLock(*os.File, bool) (bool, error) { return true, nil }

type errOwned struct{ err error }

func (e errOwned) Error() string { return e.err.Error() }
