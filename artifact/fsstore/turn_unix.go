//go:build unix

package fsstore

import (
	"context"
	"errors"
	"os"
	"syscall"
)

// lockFile takes an flock on f. The blocking call cannot be interrupted,
// so it runs aside; when ctx ends first, the lock it takes later is let
// go at once (f closed) and ctx's error returned.
func lockFile(ctx context.Context, f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	fd := int(f.Fd())
	if err := syscall.Flock(fd, how|syscall.LOCK_NB); err == nil {
		return nil
	} else if !errors.Is(err, syscall.EWOULDBLOCK) {
		return err
	}
	got := make(chan error, 1)
	go func() {
		for {
			err := syscall.Flock(fd, how)
			if !errors.Is(err, syscall.EINTR) {
				got <- err
				return
			}
		}
	}()
	select {
	case err := <-got:
		return err
	case <-ctx.Done():
		// The flock still waits on f: f is closed when it returns, which
		// lets go at once whatever it was granted.
		go func() {
			<-got
			f.Close()
		}()
		return errOwned{ctx.Err()}
	}
}

// errOwned is a wait that ctx ended while the flock still waits: f is
// closed by lockFile, not by its caller.
type errOwned struct{ err error }

func (e errOwned) Error() string { return "waiting for a render turn: " + e.err.Error() }
func (e errOwned) Unwrap() error { return e.err }

// tryLock takes an flock on f if it is free at once, reporting whether it
// did (the lock goes with f).
func tryLock(f *os.File, exclusive bool) (bool, error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
