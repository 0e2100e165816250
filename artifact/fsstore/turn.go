package fsstore

import (
	"context"
	"os"
)

// turnFile is the lock file renders take turns on (Turn). Its name starts
// with a dot, so no key can name it, List never reports it and Sweep
// leaves it; it is empty, so nothing is served should Apache be asked
// for it.
const turnFile = ".turns"

// Turn waits for a turn to render into the store and returns its end:
// exclusive for a pass over dirty marks, shared for a render on a miss.
// The processes sharing the folder — a CGI request, the worker it
// spawned, the resident server, the CLI — take turns through a lock on a
// file in the folder (flock on Unix), so a render from an older snapshot
// of the database can never be stored after a newer one that cleared its
// mark; goroutines of one process take turns the same way (each turn
// opens the file anew). ctx bounds the wait.
func (s *Store) Turn(ctx context.Context, exclusive bool) (release func(), err error) {
	return s.flock(ctx, turnFile, exclusive)
}

// flock takes an flock on the hidden file name (created empty when
// missing), waiting within ctx, and returns its release.
func (s *Store) flock(ctx context.Context, name string, exclusive bool) (release func(), err error) {
	f, err := s.root.OpenFile(name, os.O_RDONLY|os.O_CREATE, fileMode)
	if err != nil {
		return nil, s.ioError("lock", name, err)
	}
	if err := lockFile(ctx, f, exclusive); err != nil {
		if _, owned := err.(errOwned); !owned {
			f.Close()
		}
		return nil, err
	}
	// Closing the file releases the lock.
	return func() { f.Close() }, nil
}
