// Package metrics serves GET /metrics in the Prometheus text format: queue
// depth by topic and state, job counters and durations, dead letters and
// the worker's concurrency. Counters live in the database (see
// store/sqlite queue_metrics), so every process that enqueues or runs jobs
// — serve, a CGI-spawned worker, cron — adds to the same totals, and any
// process can answer a scrape. With a StatementSource it also shows
// db_statements_total by class (package dbstat). It is off unless a
// metrics_token is set.
package metrics

import (
	"bytes"
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/httpd"
	"github.com/murlog/murlog/queue"
)

// Source is what the endpoint reads.
type Source interface {
	Counts(ctx context.Context) ([]queue.Count, error)
	Samples(ctx context.Context) ([]queue.Sample, error)
}

// BreakerSource is a Source that also reports its process's write
// breaker (write_breaker_open: 1 while writes are refused for failing).
type BreakerSource interface {
	WriteBreakerOpen() bool
}

// DropSource is a Source that also counts requests its shields dropped,
// by shield (every process's totals).
type DropSource interface {
	Drops() (map[dbstat.Shield]uint64, error)
}

// EventSource is a Source that also counts the read path's events
// (artifact hits, misses, rebuilds): every process's totals.
type EventSource interface {
	Events() (dbstat.EventCounts, error)
}

// StatementSource is a Source that also counts database statements by
// class (dbstat): every process's totals, this one's included.
type StatementSource interface {
	Statements() (map[dbstat.Class]uint64, error)
}

// Handler serves /metrics for callers presenting token as a bearer token.
// With an empty token the endpoint does not exist (404).
func Handler(token string, src Source) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token == "" {
			httpd.WriteError(w, r, nil, murlog.NotFound("page"))
			return
		}
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			httpd.WriteError(w, r, nil, murlog.Errorf(murlog.EUnauthorized, "a valid metrics token is required"))
			return
		}
		body, err := Render(r.Context(), src)
		if err != nil {
			httpd.WriteError(w, r, nil, murlog.Errorf(murlog.EUnavailable, "metrics unavailable"))
			return
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		w.Write(body)
	})
}

// Render produces the exposition text.
func Render(ctx context.Context, src Source) ([]byte, error) {
	counts, err := src.Counts(ctx)
	if err != nil {
		return nil, err
	}
	samples, err := src.Samples(ctx)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	family(&b, "queue_depth", "gauge", "Jobs in the queue by topic and state.")
	depth := map[[2]string]int{}
	topics := map[string]bool{}
	for _, c := range counts {
		depth[[2]string{c.Topic, string(c.State)}] += c.N
		topics[c.Topic] = true
	}
	for _, topic := range sorted(topics) {
		for _, st := range []queue.State{queue.StatePending, queue.StateScheduled, queue.StateRunning, queue.StateDone, queue.StateDead} {
			fmt.Fprintf(&b, "queue_depth{topic=%s,state=%q} %d\n", quote(topic), st, depth[[2]string{topic, string(st)}])
		}
	}

	by := map[string][]queue.Sample{}
	for _, s := range samples {
		by[s.Name] = append(by[s.Name], s)
	}
	family(&b, "queue_enqueued_total", "counter", "Jobs enqueued, by topic.")
	for _, s := range by["queue_enqueued_total"] {
		fmt.Fprintf(&b, "queue_enqueued_total{topic=%s} %s\n", quote(s.Topic), num(s.Value))
	}
	family(&b, "queue_processed_total", "counter", "Job runs finished, by topic and result (success, retry, dead).")
	for _, s := range by["queue_processed_total"] {
		fmt.Fprintf(&b, "queue_processed_total{topic=%s,result=%s} %s\n", quote(s.Topic), quote(s.Label), num(s.Value))
	}
	family(&b, "queue_dlq_total", "counter", "Jobs sent to the dead letters (<topic>.dead), by topic.")
	for _, s := range by["queue_dlq_total"] {
		fmt.Fprintf(&b, "queue_dlq_total{topic=%s} %s\n", quote(s.Topic), num(s.Value))
	}
	family(&b, "queue_duration_seconds", "histogram", "How long job runs took, by topic.")
	histogram(&b, by["queue_duration_seconds_bucket"], by["queue_duration_seconds_sum"])
	family(&b, "worker_concurrency", "gauge", "Jobs the worker runs at once (0 when idle or stopped).")
	v := 0.0
	for _, s := range by["worker_concurrency"] {
		v = s.Value
	}
	fmt.Fprintf(&b, "worker_concurrency %s\n", num(v))
	if bs, ok := src.(BreakerSource); ok {
		family(&b, "write_breaker_open", "gauge", "1 while this process refuses database writes because the writer is failing.")
		open := 0
		if bs.WriteBreakerOpen() {
			open = 1
		}
		fmt.Fprintf(&b, "write_breaker_open %d\n", open)
	}
	if ds, ok := src.(DropSource); ok {
		drops, err := ds.Drops()
		if err != nil {
			return nil, err
		}
		family(&b, "shield_drops_total", "counter", "Requests dropped by a shield before they cost anything, by shield.")
		for _, s := range dbstat.Shields() {
			fmt.Fprintf(&b, "shield_drops_total{shield=%q} %d\n", s, drops[s])
		}
	}
	if es, ok := src.(EventSource); ok {
		ev, err := es.Events()
		if err != nil {
			return nil, err
		}
		for _, e := range []struct {
			ev   dbstat.Event
			help string
		}{
			{dbstat.ArtifactHit, "Public reads answered from an artifact (the resident server's and CGI's; Apache's own hits are in its access log)."},
			{dbstat.ArtifactMiss, "Public reads that rendered their artifact."},
			{dbstat.ArtifactStale, "Public reads answered with the last artifact because rendering it failed."},
			{dbstat.ArtifactRebuild, "Artifacts rendered again by the rebuild after a write."},
		} {
			name := e.ev.String() + "_total"
			family(&b, name, "counter", e.help)
			fmt.Fprintf(&b, "%s %d\n", name, ev.N[e.ev])
		}
		family(&b, "artifact_rebuild_seconds", "histogram", "How long rendering and storing one artifact took in the rebuild.")
		var cum uint64
		for i, le := range dbstat.RebuildBuckets {
			cum += ev.Buckets[i]
			fmt.Fprintf(&b, "artifact_rebuild_seconds_bucket{le=%q} %d\n", strconv.FormatFloat(le, 'g', -1, 64), cum)
		}
		cum += ev.Buckets[len(dbstat.RebuildBuckets)]
		fmt.Fprintf(&b, "artifact_rebuild_seconds_bucket{le=\"+Inf\"} %d\n", cum)
		fmt.Fprintf(&b, "artifact_rebuild_seconds_sum %s\n", num(ev.Seconds))
		fmt.Fprintf(&b, "artifact_rebuild_seconds_count %d\n", cum)
	}
	if ss, ok := src.(StatementSource); ok {
		counts, err := ss.Statements()
		if err != nil {
			return nil, err
		}
		family(&b, "db_statements_total", "counter", "Database statements run (BEGIN and COMMIT included), by the class of request or job that ran them.")
		for _, c := range dbstat.Classes() {
			fmt.Fprintf(&b, "db_statements_total{class=%q} %d\n", c, counts[c])
		}
	}
	return b.Bytes(), nil
}

// histogram turns per-bucket counts into Prometheus's cumulative buckets.
func histogram(b *bytes.Buffer, buckets, sums []queue.Sample) {
	perTopic := map[string]map[string]float64{}
	for _, s := range buckets {
		if perTopic[s.Topic] == nil {
			perTopic[s.Topic] = map[string]float64{}
		}
		perTopic[s.Topic][s.Label] += s.Value
	}
	sum := map[string]float64{}
	for _, s := range sums {
		sum[s.Topic] += s.Value
	}
	topics := map[string]bool{}
	for t := range perTopic {
		topics[t] = true
	}
	for _, topic := range sorted(topics) {
		cum := 0.0
		for _, le := range queue.DurationBuckets {
			l := strconv.FormatFloat(le, 'g', -1, 64)
			cum += perTopic[topic][l]
			fmt.Fprintf(b, "queue_duration_seconds_bucket{topic=%s,le=%q} %s\n", quote(topic), l, num(cum))
		}
		cum += perTopic[topic]["+Inf"]
		fmt.Fprintf(b, "queue_duration_seconds_bucket{topic=%s,le=\"+Inf\"} %s\n", quote(topic), num(cum))
		fmt.Fprintf(b, "queue_duration_seconds_sum{topic=%s} %s\n", quote(topic), num(sum[topic]))
		fmt.Fprintf(b, "queue_duration_seconds_count{topic=%s} %s\n", quote(topic), num(cum))
	}
}

func family(b *bytes.Buffer, name, kind, help string) {
	fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, kind)
}

// quote renders a label value with the escapes the format requires.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(s) + `"`
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
