package fsstore

import "time"

// SetSettle sets how long reads of s wait for a writer in another
// process to finish its renames.
func SetSettle(s *Store, d time.Duration) { s.settle = d }
