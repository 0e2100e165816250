package fedtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Timeout bounds every Eventually and Settle.
const Timeout = 10 * time.Second

// Eventually polls check every 100 ms until it reports ok, for at most
// Timeout. On timeout it fails the test with what was awaited, check's
// last observation and the state of the given instances (their failed
// and retrying jobs, their warnings), which names the component at fault.
func Eventually(tb testing.TB, what string, check func() (ok bool, got string), ins ...*Instance) {
	tb.Helper()
	EventuallyEvery(tb, 100*time.Millisecond, what, check, ins...)
}

// EventuallyEvery is Eventually polling every interval: a test that
// measures how soon something shows polls more often than 100 ms.
func EventuallyEvery(tb testing.TB, every time.Duration, what string, check func() (ok bool, got string), ins ...*Instance) {
	tb.Helper()
	deadline := time.Now().Add(Timeout)
	var got string
	for {
		var ok bool
		ok, got = check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(every)
	}
	tb.Fatalf("after %s, still not %s\nlast seen: %s\n%s", Timeout, what, got, Diagnose(ins...))
}

// Settle waits until no instance has a job pending or running (jobs
// scheduled for later — retries, maintenance — do not count).
func Settle(tb testing.TB, ins ...*Instance) {
	tb.Helper()
	SettleEvery(tb, 100*time.Millisecond, ins...)
}

// SettleEvery is Settle polling every interval.
func SettleEvery(tb testing.TB, every time.Duration, ins ...*Instance) {
	tb.Helper()
	EventuallyEvery(tb, every, "settled (no job pending or running)", func() (bool, string) {
		var busy []string
		for _, in := range ins {
			var st struct{ Pending, Running int }
			if err := in.Try("queue.stats", nil, &st); err != nil {
				return false, in.Name + ": queue.stats: " + err.Error()
			}
			if st.Pending+st.Running > 0 {
				busy = append(busy, fmt.Sprintf("%s: %d pending, %d running", in.Name, st.Pending, st.Running))
			}
		}
		return len(busy) == 0, strings.Join(busy, "; ")
	}, ins...)
}

// job is what Diagnose shows of a queued job.
type job struct {
	Topic     string          `json:"topic"`
	State     string          `json:"state"`
	Attempt   int             `json:"attempt"`
	LastError string          `json:"last_error"`
	Payload   json.RawMessage `json:"payload"`
}

// Diagnose describes, per instance, the jobs that failed (dead) or wait
// for a retry with an error, and the last warnings and errors logged.
func Diagnose(ins ...*Instance) string {
	var b strings.Builder
	for _, in := range ins {
		fmt.Fprintf(&b, "--- %s (%s)\n", in.Name, in.Domain)
		for _, state := range []string{"dead", "scheduled"} {
			var page struct{ Items []job }
			if err := in.Try("queue.list", map[string]any{"state": state, "limit": 20}, &page); err != nil {
				fmt.Fprintf(&b, "queue.list %s: %v\n", state, err)
				continue
			}
			for _, j := range page.Items {
				if j.LastError == "" {
					continue
				}
				fmt.Fprintf(&b, "job %s %s (attempt %d): %s payload=%s\n", j.Topic, j.State, j.Attempt, j.LastError, clip(string(j.Payload), 200))
			}
		}
		for _, l := range Warnings(in, 15) {
			fmt.Fprintln(&b, l)
		}
	}
	return b.String()
}

// Warnings returns the last n log lines of in at level WARN or ERROR, and
// request lines with a status of 400 or more.
func Warnings(in *Instance, n int) []string {
	var out []string
	for _, line := range strings.Split(in.LogText(), "\n") {
		var l struct {
			Level  string `json:"level"`
			Msg    string `json:"msg"`
			Status int    `json:"status"`
		}
		if json.Unmarshal([]byte(line), &l) != nil {
			continue
		}
		if l.Level == "WARN" || l.Level == "ERROR" || (l.Msg == "request" && l.Status >= 400) {
			out = append(out, clip(line, 600))
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
