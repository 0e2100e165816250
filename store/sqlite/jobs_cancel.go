package sqlite

import (
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/queue"
)

// Cancel implements store.Jobs. It deletes only jobs that have not been
// claimed: a running job's row is the worker's, which acks it later.
func (j jobs) Cancel(ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	if len(ids) > queue.MaxBatch {
		return murlog.Invalid("ids", "cancel at most %d jobs at once, not %d", queue.MaxBatch, len(ids))
	}
	args := make([]any, 0, len(ids)+2)
	args = append(args, string(queue.StatePending), string(queue.StateScheduled))
	for _, id := range ids {
		args = append(args, id)
	}
	_, err := j.t.exec("DELETE FROM queue_jobs WHERE state IN (?, ?) AND id IN ("+
		strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ")+")", args...)
	return err
}
