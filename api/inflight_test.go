package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/httpd"
)

// TestAnonymousBatchesInFlightAreCapped holds MaxAnonBatches anonymous
// batches in flight (each runs a method that blocks until the test lets it
// go) and checks that the next one is refused with 503 and Retry-After,
// while single anonymous calls and the owner's batches still go through;
// and that a batch whose body is still arriving holds no slot.
func TestAnonymousBatchesInFlightAreCapped(t *testing.T) {
	t.Parallel()
	s := New(Deps{}, slog.New(slog.DiscardHandler))
	running, release := make(chan struct{}, MaxAnonBatches), make(chan struct{})
	register(s, "test.block", public, false, func(ctx context.Context, _ *noParams) (any, error) {
		running <- struct{}{}
		<-release
		return nil, nil
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Test-Owner") != "" {
			r = r.WithContext(murlog.WithCaller(r.Context(), &murlog.Caller{Owner: true, Via: "token"}))
		}
		s.ServeHTTP(w, r)
	}))
	// Cleanups run last first: on a failure the held batches are let go
	// and the slow bodies ended before the server waits for its handlers.
	t.Cleanup(srv.Close)
	var releaseOnce sync.Once
	letGo := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(letGo)

	post := func(body io.Reader, owner bool) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, body)
		req.Header.Set("Content-Type", "application/json")
		if owner {
			req.Header.Set("X-Test-Owner", "1")
		}
		return http.DefaultClient.Do(req)
	}
	status := func(body io.Reader, owner bool, done chan<- int) {
		resp, err := post(body, owner)
		if err != nil {
			done <- -1
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}

	// Slow bodies first: they are being read, not run, so they take no slot.
	var slow []*io.PipeWriter
	slowDone := make(chan int, MaxAnonBatches)
	for range MaxAnonBatches {
		pr, pw := io.Pipe()
		go status(pr, false, slowDone)
		go pw.Write([]byte(`  [`))
		slow = append(slow, pw)
	}
	t.Cleanup(func() {
		for _, w := range slow {
			w.CloseWithError(io.ErrUnexpectedEOF)
		}
	})
	blocked := `[{"jsonrpc":"2.0","method":"test.block","id":1}]`
	held := make(chan int, MaxAnonBatches)
	for range MaxAnonBatches {
		go status(strings.NewReader(blocked), false, held)
	}
	for i := range MaxAnonBatches {
		select {
		case <-running:
		case got := <-held:
			t.Fatalf("blocking batch %d of %d was answered HTTP %d without running, while %d slow bodies were open; slow bodies must not hold slots",
				i+1, MaxAnonBatches, got, len(slow))
		case <-time.After(10 * time.Second):
			t.Fatalf("only %d of %d blocking batches started while %d slow bodies were open; slow bodies must not hold slots",
				i, MaxAnonBatches, len(slow))
		}
	}

	// The batch past the cap must be refused once anonBatchWait is over,
	// not held until a slot frees (which would be never: the test holds
	// them). A deadline turns such a hang into a failure that says so.
	call := `{"jsonrpc":"2.0","method":"no.such","id":1}`
	pastCap, cancel := context.WithTimeout(context.Background(), anonBatchWait+2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(pastCap, http.MethodPost, srv.URL, strings.NewReader("["+call+"]"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if pastCap.Err() != nil {
		t.Fatalf("anonymous batch %d got no answer in %v while %d were in flight; want 503 after %v (the cap refuses, it does not queue)",
			MaxAnonBatches+1, anonBatchWait+2*time.Second, MaxAnonBatches, anonBatchWait)
	}
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Error struct {
			Message string `json:"message"`
			Data    struct {
				Code string `json:"code"`
			} `json:"data"`
		} `json:"error"`
	}
	json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		v.Error.Data.Code != string(murlog.EUnavailable) || !strings.Contains(v.Error.Message, "in flight") {
		t.Errorf("anonymous batch %d = HTTP %d Retry-After %q %+v; want 503 unavailable with Retry-After naming the limit",
			MaxAnonBatches+1, resp.StatusCode, resp.Header.Get("Retry-After"), v.Error)
	}
	for _, tc := range []struct {
		name  string
		body  string
		owner bool
	}{{"anonymous single call", call, false}, {"owner batch", "[" + call + "]", true}} {
		resp, err := post(strings.NewReader(tc.body), tc.owner)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			t.Errorf("%s while anonymous batches are at the cap = 503; want it served", tc.name)
		}
	}

	letGo()
	for range MaxAnonBatches {
		if got := <-held; got != http.StatusOK {
			t.Errorf("held batch finished with HTTP %d; want 200", got)
		}
	}
	for _, w := range slow {
		w.Write([]byte(call + "]"))
		w.Close()
		if got := <-slowDone; got != http.StatusOK {
			t.Errorf("slow batch finished with HTTP %d; want 200", got)
		}
	}
	resp, err = post(strings.NewReader("["+call+"]"), false)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("anonymous batch after the others finished = %d; want 200 (slots released)", resp.StatusCode)
	}
}

// TestAnonBatchSlotsAreCapped asserts the cap itself: MaxAnonBatches
// slots are granted, the next is refused by its own short wait (not by
// the request ending, and not after hanging), and a slot given back is
// granted again at once.
func TestAnonBatchSlotsAreCapped(t *testing.T) {
	t.Parallel()
	s := New(Deps{}, slog.New(slog.DiscardHandler))
	// acquire runs acquireAnonBatch in a request that ends after bound,
	// and gives up on it a second later, so a broken cap that blocks fails
	// here with a message instead of at the test timeout. A second is
	// ample slack for a 100 ms timer on a loaded machine.
	bound := anonBatchWait + time.Second
	acquire := func(what string) (ok, ended bool) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		got := make(chan bool, 1)
		go func() { got <- s.acquireAnonBatch(httptest.NewRequestWithContext(ctx, http.MethodPost, "/", nil)) }()
		select {
		case ok = <-got:
			return ok, ctx.Err() != nil
		case <-time.After(bound + time.Second):
			t.Fatalf("%s: acquireAnonBatch still waiting after %v, past its request's end; want an answer within %v", what, bound+time.Second, anonBatchWait)
			return false, true
		}
	}
	for i := range MaxAnonBatches {
		if ok, _ := acquire(fmt.Sprintf("slot %d", i+1)); !ok {
			t.Fatalf("slot %d of %d refused with none in use; want granted", i+1, MaxAnonBatches)
		}
	}
	ok, ended := acquire("slot past the cap")
	if ok {
		t.Fatalf("slot %d granted with %d in use; want refused (MaxAnonBatches is %d)", MaxAnonBatches+1, MaxAnonBatches, MaxAnonBatches)
	}
	if ended {
		t.Errorf("slot past the cap refused only when its request ended (%v); want refused after anonBatchWait (%v)", bound, anonBatchWait)
	}
	s.releaseAnonBatch()
	if ok, _ := acquire("a slot given back"); !ok {
		t.Errorf("slot refused after one was released; want granted")
	}
	for range MaxAnonBatches {
		s.releaseAnonBatch()
	}
	if n := s.anonBatches.InUse(); n != 0 {
		t.Errorf("%d slots in use after every one was released; want 0", n)
	}
}

// TestBudgetRefusesWhatDoesNotFit checks the budget on its own: a result
// larger than what is left is replaced by an error naming the limit, and
// every later call gets the same error.
func TestBudgetRefusesWhatDoesNotFit(t *testing.T) {
	t.Parallel()
	b := &budget{Budget: httpd.Budget{Limit: 200}}
	small := &response{JSONRPC: "2.0", ID: json.RawMessage("1"), Result: "ok"}
	big := &response{JSONRPC: "2.0", ID: json.RawMessage("2"), Result: strings.Repeat("x", 300)}
	out, sent := b.encode(small)
	if sent != small || !bytes.Contains(out, []byte(`"result":"ok"`)) {
		t.Fatalf("small result = %s; want it sent as is", out)
	}
	out, sent = b.encode(big)
	if sent.Error == nil || !strings.Contains(sent.Error.Message, "response budget of 200 bytes") || len(out) > 400 {
		t.Fatalf("result over the budget = %s; want the budget error", out)
	}
	if sent.status != http.StatusBadRequest || sent.Error.Data.Code != murlog.EInvalid || !bytes.Contains(out, []byte(`"id":2`)) {
		t.Errorf("budget error = HTTP %d %s; want 400 invalid with the call's id", sent.status, out)
	}
	if out, sent = b.encode(small); sent.Error == nil {
		t.Errorf("call after the budget was spent = %s; want the budget error", out)
	}
}
