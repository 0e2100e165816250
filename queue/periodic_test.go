package queue_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/murlog/murlog/inbox"
	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/social"
	"github.com/murlog/murlog/worker"
)

// TestOncePer: the jobs of one period share an id, whatever the time
// zone of the clock; the next period's differ; and the periodic jobs of
// worker, social and inbox keep the ids they had before they shared the
// helper (a job an older process enqueued is the same job).
func TestOncePer(t *testing.T) {
	t.Parallel()
	ns := uuid.MustParse("00000000-0000-4000-8000-000000000001")
	jst := time.FixedZone("JST", 9*3600)
	id := func(layout string, at time.Time) string {
		return queue.OncePer(layout, ns, at, queue.NewJob("t", nil)).ID
	}
	day := time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC)
	if a, b := id(queue.Daily, day), id(queue.Daily, day.Add(23*time.Hour+59*time.Minute)); a != b {
		t.Errorf("one UTC day, two daily ids: %s, %s", a, b)
	}
	if a, b := id(queue.Daily, day), id(queue.Daily, day.Add(8*time.Hour).In(jst)); a != b {
		t.Errorf("the same instant in JST gives another daily id: %s, %s", a, b)
	}
	if a, b := id(queue.Daily, day), id(queue.Daily, day.Add(24*time.Hour)); a == b {
		t.Errorf("two days share the daily id %s", a)
	}
	if a, b := id(queue.Hourly, day), id(queue.Hourly, day.Add(59*time.Minute)); a != b {
		t.Errorf("one hour, two hourly ids: %s, %s", a, b)
	}
	if a, b := id(queue.Hourly, day), id(queue.Hourly, day.Add(time.Hour)); a == b {
		t.Errorf("two hours share the hourly id %s", a)
	}
	if j := queue.OncePer(queue.Daily, ns, day, queue.NewJob("t", nil)); j.Priority != 9 || j.Topic != "t" {
		t.Errorf("OncePer job = %+v; want topic t at priority 9", j)
	}

	at := time.Date(2026, 3, 4, 23, 30, 0, 0, jst)
	for _, tc := range []struct {
		name string
		j    queue.Job
		want string
	}{
		{"inbox.DailyPrune", inbox.DailyPrune(at), "4b840669-4fc0-5774-ade2-53b827518792"},
		{"social.DailyPrune", social.DailyPrune(at), "c0fc1224-4ad1-5816-8d74-2db250375a5b"},
		{"worker.CleanupJob", worker.CleanupJob(at), "84473bdf-173b-5a61-8064-bb5d2801f94f"},
	} {
		if tc.j.ID != tc.want || tc.j.Priority != 9 {
			t.Errorf("%s(%v) = id %s priority %d; want %s priority 9", tc.name, at, tc.j.ID, tc.j.Priority, tc.want)
		}
	}
}
