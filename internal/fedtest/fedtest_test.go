package fedtest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/murlog/murlog/queue"
	"github.com/murlog/murlog/worker"
)

// Two instances start side by side in one process, each set up under its
// own name with a logged-in owner and a running worker, and each reaches
// the other by name through the shared table.
func TestTwoInstances(t *testing.T) {
	t.Parallel()
	names := NewNames()
	a := Start(t, names, Options{Name: "alpha.test", Username: "alice"})
	b := Start(t, names, Options{Name: "beta.test", Username: "bob"})
	if a.Domain == b.Domain {
		t.Fatalf("both instances have domain %s", a.Domain)
	}
	for _, in := range []*Instance{a, b} {
		var ps struct {
			Items []struct {
				Username string `json:"username"`
			} `json:"items"`
		}
		in.Call(t, "personas.list", nil, &ps)
		if len(ps.Items) != 1 || ps.Items[0].Username != in.Username {
			t.Errorf("%s: personas.list %+v; want one persona %q", in.Name, ps.Items, in.Username)
		}
		if in.Domain != in.Name && !strings.HasPrefix(in.Domain, in.Name+":") {
			t.Errorf("domain %q is not the name %q (with a port off port 80)", in.Domain, in.Name)
		}
	}
	// alpha's owner client reaches beta by name (what alpha's outbound
	// client will do), and beta answers as a set-up site.
	if status, body := a.Get(t, "/healthz", ""); status != http.StatusOK {
		t.Errorf("alpha /healthz: %d %s", status, body)
	}
	if status, body := b.Get(t, "/healthz", ""); status != http.StatusOK {
		t.Errorf("beta /healthz: %d %s", status, body)
	}
	// Each worker runs: a job enqueued in its queue gets done.
	for _, in := range []*Instance{a, b} {
		if err := in.App.Queue().Enqueue(context.Background(), queue.NewJob(worker.TopicNoop, []byte("{}"))); err != nil {
			t.Fatal(err)
		}
		Eventually(t, in.Name+"'s worker running a queue.noop job", func() (bool, string) {
			var st struct {
				Topics map[string]map[string]int `json:"topics"`
			}
			in.Call(t, "queue.stats", nil, &st)
			return st.Topics[worker.TopicNoop]["done"] == 1, compact(st.Topics)
		}, in)
	}
	Settle(t, a, b)
}

func TestNamesResolveOnlyWhatTheyHold(t *testing.T) {
	t.Parallel()
	n := NewNames()
	n.Add("Alpha.Test", loopback)
	ctx := context.Background()
	for _, tc := range []struct {
		network, host string
		ok            bool
	}{
		{"ip", "alpha.test", true},
		{"ip4", "ALPHA.test.", true},
		{"ip6", "alpha.test", false},
		{"ip", "beta.test", false},
		{"ip", "example.com", false},
		{"ip", "127.0.0.2", true},
	} {
		got, err := n.LookupNetIP(ctx, tc.network, tc.host)
		if tc.ok != (err == nil) {
			t.Errorf("LookupNetIP(%s, %s) = %v, %v; want ok=%v", tc.network, tc.host, got, err, tc.ok)
		}
		var dnsErr *net.DNSError
		if err != nil && (!errors.As(err, &dnsErr) || !dnsErr.IsNotFound) {
			t.Errorf("LookupNetIP(%s, %s): error %v is not a not-found DNS error", tc.network, tc.host, err)
		}
	}
}

// A cavage-only peer refuses an inbox POST signed with RFC 9421 before
// its inbox sees it; an ordinary instance lets the same request through
// to its inbox.
func TestCavageOnlyPeerRefusesRFC9421(t *testing.T) {
	t.Parallel()
	names := NewNames()
	peer := Start(t, names, Options{Name: "cavage.test", CavageOnly: true})
	plain := Start(t, names, Options{Name: "plain.test"})
	post := func(in *Instance, path string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, in.Base+path, strings.NewReader(`{"type":"Follow"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/activity+json")
		req.Header.Set("Signature-Input", `sig1=("@method" "@target-uri");created=1;keyid="https://x.example/@a#main-key"`)
		req.Header.Set("Signature", "sig1=:AAAA:")
		resp, err := (&http.Client{Transport: &http.Transport{DialContext: names.DialContext}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, path := range []string{"/inbox", "/@owner/inbox"} {
		if status, body := post(peer, path); status != http.StatusUnauthorized || !strings.Contains(body, "only draft-cavage") {
			t.Errorf("cavage-only peer: POST %s signed with RFC 9421 = %d %q; want 401 from the knob", path, status, body)
		}
		if _, body := post(plain, path); strings.Contains(body, "only draft-cavage") {
			t.Errorf("ordinary instance: POST %s refused by the cavage-only knob: %q", path, body)
		}
	}
}
