package metrics_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/murlog/murlog/dbstat"
	"github.com/murlog/murlog/metrics"
	"github.com/murlog/murlog/queue"
)

// TestExpositionParsesWithPrometheus reads /metrics with Prometheus's own
// text parser (test-only dependency): every family is well formed, has
// its HELP and TYPE, and the expected ones are there with their types; a
// histogram's buckets are cumulative and end at +Inf = count.
func TestExpositionParsesWithPrometheus(t *testing.T) {
	t.Parallel()
	db, q, c := open(t)
	for _, topic := range []string{"test.a", "test.a", "test.b_2"} {
		must(t, q.Enqueue(ctx, queue.NewJob(topic, []byte(`{}`))))
	}
	run(t, q, queue.Result{Status: queue.Success, Duration: time.Second / 32}, queue.Result{Status: queue.Retry, Err: errors.New("x"), Duration: time.Second},
		queue.Result{Status: queue.Dead, Err: errors.New("gone"), Duration: time.Millisecond})
	c.Add(time.Second)
	must(t, db.Queue().SetGauge(ctx, "worker_concurrency", 3))

	const token = "metrics-token-0123456789"
	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	// Statement counts as a process leaves them: flushed to the file, and
	// some not yet.
	stmts := &dbstat.Log{Path: filepath.Join(t.TempDir(), "statements"), Counter: &dbstat.Counter{}}
	stmts.Counter.Add(dbstat.Public, 40)
	must(t, stmts.Flush())
	stmts.Counter.Add(dbstat.Public, 2)
	stmts.Counter.Add(dbstat.Worker, 5)
	stmts.Counter.Drop(dbstat.ShieldSearch)
	metrics.Handler(token, statSource{source{q, db}, stmts}).ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("/metrics = %d", rec.Code)
	}
	if f := expfmt.ResponseFormat(rec.Result().Header); f.FormatType() != expfmt.TypeTextPlain {
		t.Errorf("Content-Type %q is not Prometheus text (%v)", rec.Header().Get("Content-Type"), f)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatalf("Prometheus's parser refuses /metrics: %v\n%s", err, rec.Body)
	}
	want := map[string]dto.MetricType{
		"queue_depth": dto.MetricType_GAUGE, "queue_enqueued_total": dto.MetricType_COUNTER,
		"queue_processed_total": dto.MetricType_COUNTER, "queue_dlq_total": dto.MetricType_COUNTER,
		"queue_duration_seconds": dto.MetricType_HISTOGRAM, "worker_concurrency": dto.MetricType_GAUGE,
		"db_statements_total": dto.MetricType_COUNTER, "write_breaker_open": dto.MetricType_GAUGE,
		"shield_drops_total": dto.MetricType_COUNTER,
	}
	for name, typ := range want {
		f := fams[name]
		if f == nil {
			t.Errorf("family %s missing", name)
			continue
		}
		if f.GetType() != typ || f.GetHelp() == "" || len(f.GetMetric()) == 0 {
			t.Errorf("family %s: type %v, help %q, %d metrics; want %v, a help text and metrics", name, f.GetType(), f.GetHelp(), len(f.GetMetric()), typ)
		}
	}
	for name, f := range fams {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected family %s (add it to this test)", name)
		}
		if err := validate(f); err != nil {
			t.Errorf("family %s: %v", name, err)
		}
	}
	classes := map[string]float64{}
	for _, m := range fams["db_statements_total"].GetMetric() {
		classes[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
	}
	if len(classes) != len(dbstat.Classes()) || classes["public"] != 42 || classes["worker"] != 5 || classes["owner"] != 0 {
		t.Errorf("db_statements_total by class %v; want every class, public 42 (flushed and not), worker 5", classes)
	}
	topics := map[string]bool{}
	for _, m := range fams["queue_enqueued_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "topic" {
				topics[l.GetValue()] = true
			}
		}
	}
	if !topics["test.a"] || !topics["test.b_2"] {
		t.Errorf("topics read back %v; want test.a and test.b_2", topics)
	}
}

// validate checks what the parser leaves to its user: histogram buckets
// ascending and cumulative, ending in +Inf equal to the count.
func validate(f *dto.MetricFamily) error {
	for _, m := range f.GetMetric() {
		h := m.GetHistogram()
		if f.GetType() != dto.MetricType_HISTOGRAM {
			continue
		}
		bs := h.GetBucket()
		if len(bs) == 0 {
			return errors.New("a histogram without buckets")
		}
		for i := 1; i < len(bs); i++ {
			if bs[i].GetUpperBound() <= bs[i-1].GetUpperBound() || bs[i].GetCumulativeCount() < bs[i-1].GetCumulativeCount() {
				return errors.New("buckets not ascending and cumulative")
			}
		}
		// The parser folds the +Inf bucket into the sample count.
		if last := bs[len(bs)-1]; last.GetCumulativeCount() > h.GetSampleCount() {
			return errors.New("a bucket counts more than the histogram")
		}
	}
	return nil
}

// statSource is source with statement counts, as the app's is.
type statSource struct {
	source
	log *dbstat.Log
}

func (s statSource) Statements() (map[dbstat.Class]uint64, error) { return s.log.Totals() }

func (s statSource) WriteBreakerOpen() bool { return s.db.WriteBreakerOpen() }

func (s statSource) Drops() (map[dbstat.Shield]uint64, error) { return s.log.DropTotals() }
