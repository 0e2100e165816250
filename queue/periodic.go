package queue

import (
	"time"

	"github.com/google/uuid"
)

// The periods of OncePer, as time layouts of the period's start in UTC.
const (
	Daily  = "2006-01-02"
	Hourly = "2006-01-02T15"
)

// OncePer makes j the one job of its period for the worker's periodic
// schedule (worker.Options.Periodic): its id is a name-based UUID in the
// caller's namespace ns of its topic and the period of t in UTC (layout
// Daily or Hourly), so every worker that schedules it within the period
// enqueues the same job and the queue keeps it once; it runs at the
// lowest priority, behind every job a person waits for.
func OncePer(layout string, ns uuid.UUID, t time.Time, j Job) Job {
	j.ID = uuid.NewSHA1(ns, []byte(j.Topic+"/"+t.UTC().Format(layout))).String()
	j.Priority = 9
	return j
}
