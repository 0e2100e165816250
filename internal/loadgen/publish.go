package loadgen

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/murlog/murlog/internal/waitfor"
	"github.com/murlog/murlog/store"
)

// ClearMarks clears every artifact mark of st: the steady state a publish
// is timed from (what seeding marked is done with, as if every artifact
// had been rendered), without rendering tens of thousands of pages first.
func ClearMarks(ctx context.Context, st store.Store) error {
	for {
		var left int
		if err := st.Update(ctx, func(tx store.Tx) error {
			ks, err := tx.DirtyKeys().Newest(store.MaxMarkKeys, time.Time{})
			if err == nil {
				_, err = tx.DirtyKeys().Clear(ks...)
			}
			left = len(ks)
			return err
		}); err != nil || left == 0 {
			return err
		}
	}
}

// WaitVisible waits, checking every 5 ms (a publish figure's resolution)
// and for at most max, until every path answers 200 with word in its
// body through get. It returns the paths that never did.
func WaitVisible(ctx context.Context, max time.Duration, word string, paths []string, get func(path string) (int, string)) []string {
	want := slices.Clone(paths)
	waitfor.Until(ctx, 5*time.Millisecond, max, func() bool {
		want = slices.DeleteFunc(want, func(path string) bool {
			st, b := get(path)
			return st == 200 && strings.Contains(b, word)
		})
		return len(want) == 0
	})
	return want
}

// PublishFigures sums up the publishes of a run: how long each took to
// be visible everywhere and how many artifacts it rebuilt, against the
// issue's targets. It returns the lines to log and the targets missed.
func PublishFigures(where string, posts int, took []time.Duration, rebuilt []int, maxTook time.Duration, maxRebuilt int) (logs, missed []string) {
	logs = append(logs, fmt.Sprintf("each publish: visible after %v, rebuilt %v", took, rebuilt))
	took, rebuilt = slices.Clone(took), slices.Clone(rebuilt)
	slices.Sort(took)
	slices.Sort(rebuilt)
	slow, most := took[len(took)-1], rebuilt[len(rebuilt)-1]
	logs = append(logs,
		fmt.Sprintf("publish on a %d-post site (%s): visible on the post page, the persona's and home pages and the tag page after median %v, max %v",
			posts, where, took[len(took)/2].Round(time.Millisecond), slow.Round(time.Millisecond)),
		fmt.Sprintf("artifacts rebuilt per publish: median %d, max %d", rebuilt[len(rebuilt)/2], most))
	if slow > maxTook {
		missed = append(missed, fmt.Sprintf("a publish took %v to be visible everywhere; want ≤ %v", slow, maxTook))
	}
	if most > maxRebuilt {
		missed = append(missed, fmt.Sprintf("a publish rebuilt %d artifacts; want ≤ %d", most, maxRebuilt))
	}
	return logs, missed
}
