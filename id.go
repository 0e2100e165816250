package murlog

import (
	"github.com/google/uuid"
)

// NewID returns a new UUIDv7 string. UUIDv7 sorts by creation time, so IDs
// double as stable cursor keys and keep B-tree inserts append-only.
func NewID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// ValidID reports whether s is a canonical lower-case UUID string.
func ValidID(s string) bool {
	if len(s) != 36 {
		return false
	}
	u, err := uuid.Parse(s)
	return err == nil && u.String() == s
}
