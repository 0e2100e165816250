package murlog_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/murlog/murlog"
)

// TestFound: the one "found, not found or failure" of a lookup, which the
// API's views, the social service and the inbox share.
func TestFound(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk on fire")
	for _, tc := range []struct {
		name    string
		err     error
		want    bool
		wantErr error
	}{
		{"a value", nil, true, nil},
		{"not found", murlog.NotFound("post"), false, nil},
		{"not found, wrapped", fmt.Errorf("lookup: %w", murlog.NotFound("post")), false, nil},
		{"another code", murlog.Errorf(murlog.EForbidden, "no"), false, murlog.Errorf(murlog.EForbidden, "no")},
		{"outside the vocabulary", boom, false, boom},
	} {
		got, err := murlog.Found(&struct{}{}, tc.err)
		if got != tc.want || (err == nil) != (tc.wantErr == nil) || (err != nil && err.Error() != tc.wantErr.Error()) {
			t.Errorf("Found(_, %v) = %v, %v; want %v, %v", tc.err, got, err, tc.want, tc.wantErr)
		}
	}
}
