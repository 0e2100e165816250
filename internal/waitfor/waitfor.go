// Package waitfor waits, in tests and benchmarks, for a condition that
// something the test cannot hear from brings about — another process's
// progress, a server's metric — by checking it on a ticker until it holds
// or the time is up. Where an event can be waited on (a channel, a hook,
// a barrier), tests wait on that instead.
package waitfor

import (
	"context"
	"time"
)

// Until checks cond at once and then at every tick of every, and reports
// whether it held before max passed or ctx ended.
func Until(ctx context.Context, every, max time.Duration, cond func() bool) bool {
	if cond() {
		return true
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	deadline := time.NewTimer(max)
	defer deadline.Stop()
	for {
		select {
		case <-tick.C:
			if cond() {
				return true
			}
		case <-deadline.C:
			return cond()
		case <-ctx.Done():
			return false
		}
	}
}
