package fsstore

import (
	"context"
	"os"
)

// ownersFile is the lock file through which the owner's requests make the
// rebuild job give way (Owner), hidden as turnFile is.
const ownersFile = ".owners"

// Owner marks an owner's request in progress until done: a shared lock
// on a file in the folder, which every process sharing it sees. The job
// rendering a backlog — in the worker a CGI request spawned, or in the
// resident server — stops between two marks while one is held
// (OwnersBusy) and waits for them before its next pass (WaitOwners), so
// the request's own pass gets the turns it needs at once: flock grants a
// released lock to no one in particular, and the job asks again within
// microseconds of every mark.
func (s *Store) Owner(ctx context.Context) (done func(), err error) {
	return s.flock(ctx, ownersFile, false)
}

// OwnersBusy reports whether an owner's request of any process holds
// Owner. It never waits.
func (s *Store) OwnersBusy() bool {
	f, err := s.root.OpenFile(ownersFile, os.O_RDONLY|os.O_CREATE, fileMode)
	if err != nil {
		return false // no folder to share: nobody to give way to
	}
	defer f.Close()
	free, err := tryLock(f, true)
	return err == nil && !free
}

// WaitOwners returns when no owner's request holds Owner, or ctx ends.
func (s *Store) WaitOwners(ctx context.Context) error {
	release, err := s.flock(ctx, ownersFile, true)
	if err != nil {
		return err
	}
	release() // the lock was only to know: others may have it at once
	return nil
}
