package queue

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	slow := Policy{MaxAttempts: 3, Backoff: func(a int) time.Duration { return time.Duration(a) * time.Minute }}
	boom := errors.New("boom")
	for _, tc := range []struct {
		name      string
		attempt   int
		own       int // the job's own MaxAttempts
		r         Result
		p         Policy
		want      Status
		wantDelay time.Duration
	}{
		{"success", 1, 0, Result{Status: Success}, slow, Success, 0},
		{"first failure", 1, 0, Result{Status: Retry, Err: boom}, slow, Retry, time.Minute},
		{"second failure", 2, 0, Result{Status: Retry, Err: boom}, slow, Retry, 2 * time.Minute},
		{"last attempt by the policy", 3, 0, Result{Status: Retry, Err: boom}, slow, Dead, 0},
		{"the job's own limit wins", 1, 1, Result{Status: Retry, Err: boom}, slow, Dead, 0},
		{"own limit above the policy's", 3, 4, Result{Status: Retry, Err: boom}, slow, Retry, 3 * time.Minute},
		{"permanent", 1, 0, Result{Status: Dead, Err: boom}, slow, Dead, 0},
		{"released", 3, 0, Result{Status: Released}, slow, Released, 0},
		{"zero policy takes the default", 1, 0, Result{Status: Retry, Err: boom}, Policy{}, Retry, time.Second},
		{"zero policy: five attempts", 5, 0, Result{Status: Retry, Err: boom}, Policy{}, Dead, 0},
	} {
		j := &Job{ID: "x", Topic: "t", Attempt: tc.attempt, MaxAttempts: tc.own}
		s := Decide(j, tc.r, tc.p)
		if s.Status != tc.want || s.Delay != tc.wantDelay || s.Job != j {
			t.Errorf("%s: Decide = %v after %v; want %v after %v", tc.name, s.Status, s.Delay, tc.want, tc.wantDelay)
		}
		if tc.r.Err != nil && s.Reason != "boom" {
			t.Errorf("%s: reason %q; want the error text", tc.name, s.Reason)
		}
	}
	long := Decide(&Job{Attempt: 1}, Result{Status: Dead, Err: errors.New(strings.Repeat("é", MaxReason))}, DefaultPolicy)
	if len(long.Reason) > MaxReason || len(long.Reason) < MaxReason-1 || !utf8.ValidString(long.Reason) {
		t.Errorf("reason of %d bytes kept (valid UTF-8: %v); want at most %d, cut between characters",
			len(long.Reason), utf8.ValidString(long.Reason), MaxReason)
	}
}

func TestDefaultAndDeliveryBackoff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    Policy
		want []time.Duration
	}{
		{"default", DefaultPolicy, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}},
		{"delivery", DeliveryPolicy, []time.Duration{30 * time.Second, 2 * time.Minute, 8 * time.Minute, 32 * time.Minute, 32 * time.Minute}},
	} {
		for i, w := range tc.want {
			if got := tc.p.Backoff(i + 1); got != w {
				t.Errorf("%s backoff after attempt %d = %v; want %v", tc.name, i+1, got, w)
			}
		}
	}
	if got := DefaultPolicy.Backoff(30); got != 5*time.Minute {
		t.Errorf("default backoff after attempt 30 = %v; want the 5 minute cap", got)
	}
}

func TestDecideHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	j := &Job{Attempt: 1}
	p := DeliveryPolicy // 30 s after the first attempt
	for _, tc := range []struct {
		name  string
		err   error
		delay time.Duration
	}{
		{"plain error: the backoff", errors.New("503"), 30 * time.Second},
		{"Retry-After shorter than the backoff: the backoff", RetryAfter(errors.New("429"), 5*time.Second), 30 * time.Second},
		{"Retry-After longer: honoured", RetryAfter(errors.New("429"), 10*time.Minute), 10 * time.Minute},
		{"Retry-After of a week: capped", RetryAfter(errors.New("429"), 7*24*time.Hour), MaxRetryAfter},
		{"wrapped further", fmt.Errorf("deliver: %w", RetryAfter(errors.New("503"), 3*time.Minute)), 3 * time.Minute},
	} {
		s := Decide(j, Result{Status: Retry, Err: tc.err}, p)
		if s.Status != Retry || s.Delay != tc.delay {
			t.Errorf("%s: status %v delay %v; want retry after %v", tc.name, s.Status, s.Delay, tc.delay)
		}
	}
	last := &Job{Attempt: 5}
	if s := Decide(last, Result{Status: Retry, Err: RetryAfter(errors.New("429"), time.Minute)}, p); s.Status != Dead {
		t.Errorf("Retry-After on the last attempt: status %v; want dead (it adds no attempt)", s.Status)
	}
}
