package httpsig

import (
	"bytes"
	"crypto"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// result is what the loopback server saw of one signed request.
type result struct {
	sig *Signature
	err error
}

// verifyingServer is a real HTTP server on loopback that verifies every
// request it receives as an inbox would: Parse, VerifyDigest, Verify.
func verifyingServer(t *testing.T, pub crypto.PublicKey, clock time.Time) (*httptest.Server, <-chan result) {
	t.Helper()
	results := make(chan result, 1)
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hasBody := r.Method == http.MethodPost
		sig, err := Parse(r, hasBody, VerifyOptions{Now: clock, Base: srv.URL})
		if err == nil && hasBody {
			var body []byte
			body, err = io.ReadAll(io.LimitReader(r.Body, 1<<20))
			if err == nil {
				err = VerifyDigest(r, body)
			}
		}
		if err == nil {
			err = sig.Verify(pub)
		}
		results <- result{sig, err}
		if err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	return srv, results
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	k := loadKeys(t)
	body := []byte(`{"type":"Create","actor":"https://remote.example/users/alice"}`)
	signers := []struct {
		name   string
		scheme Scheme
		sign   func(*http.Request, []byte, Key, time.Time) error
	}{
		{"cavage", Cavage, SignCavage},
		{"rfc9421", RFC9421, SignRFC9421},
	}
	keys := []struct {
		name    string
		key     Key
		pub     crypto.PublicKey
		wantAlg map[Scheme]string
	}{
		{"rsa", k.rsaAKey, k.rsaAPub, map[Scheme]string{Cavage: "rsa-sha256", RFC9421: "rsa-v1_5-sha256"}},
		{"ed25519", k.edK, k.edAPub, map[Scheme]string{Cavage: "hs2019", RFC9421: "ed25519"}},
	}
	for _, s := range signers {
		for _, kk := range keys {
			for _, method := range []string{http.MethodGet, http.MethodPost} {
				t.Run(s.name+"/"+kk.name+"/"+method, func(t *testing.T) {
					srv, results := verifyingServer(t, kk.pub, now.Add(30*time.Second))
					var b []byte
					var rd io.Reader
					if method == http.MethodPost {
						b, rd = body, bytes.NewReader(body)
					}
					req, err := http.NewRequest(method, srv.URL+"/users/bob/inbox?page=2", rd)
					if err != nil {
						t.Fatal(err)
					}
					if b != nil {
						req.Header.Set("Content-Type", "application/activity+json")
					}
					if err := s.sign(req, b, kk.key, now); err != nil {
						t.Fatalf("sign: %v", err)
					}
					resp, err := srv.Client().Do(req)
					if err != nil {
						t.Fatal(err)
					}
					resp.Body.Close()
					got := <-results
					if got.err != nil {
						t.Fatalf("server refused: %v (Signature-Input %q, Signature %q)", got.err,
							req.Header.Get("Signature-Input"), req.Header.Get("Signature"))
					}
					if resp.StatusCode != http.StatusAccepted {
						t.Fatalf("status %d; want 202", resp.StatusCode)
					}
					sig := got.sig
					if sig.Scheme != s.scheme || sig.KeyID != kk.key.ID || sig.Algorithm != kk.wantAlg[s.scheme] || !sig.Created.Equal(now) {
						t.Fatalf("got scheme %v keyId %q alg %q created %v; want %v %q %q %v",
							sig.Scheme, sig.KeyID, sig.Algorithm, sig.Created, s.scheme, kk.key.ID, kk.wantAlg[s.scheme], now)
					}
					if method == http.MethodPost && !contains(sig.Components, "content-type") {
						t.Fatalf("components %q: content-type not signed on a POST", sig.Components)
					}
				})
			}
		}
	}
}

// TestSignHeaders pins the exact header shapes other servers parse.
func TestSignHeaders(t *testing.T) {
	t.Parallel()
	k := loadKeys(t)
	body := []byte(`{}`)
	r, _ := http.NewRequest(http.MethodPost, "https://remote.example/inbox", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/activity+json")
	if err := SignRFC9421(r, body, k.rsaAKey, now); err != nil {
		t.Fatal(err)
	}
	wantInput := `sig1=("@method" "@target-uri" "content-digest" "content-type");created=1796119200;keyid="https://remote.example/users/alice#main-key";alg="rsa-v1_5-sha256"`
	if got := r.Header.Get("Signature-Input"); got != wantInput {
		t.Errorf("Signature-Input %q; want %q", got, wantInput)
	}
	if got := r.Header.Get("Content-Digest"); got != "sha-256=:RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o=:" {
		t.Errorf("Content-Digest %q", got)
	}
	if got := r.Header.Get("Date"); got != "Tue, 01 Dec 2026 10:00:00 GMT" {
		t.Errorf("Date %q", got)
	}
	if r.Host != "remote.example" {
		t.Errorf("Host %q; want remote.example", r.Host)
	}
	if sig := r.Header.Get("Signature"); !strings.HasPrefix(sig, "sig1=:") || !strings.HasSuffix(sig, ":") {
		t.Errorf("Signature %q; want sig1=:…:", sig)
	}

	r, _ = http.NewRequest(http.MethodPost, "https://remote.example/inbox", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/activity+json")
	if err := SignCavage(r, body, k.rsaAKey, now); err != nil {
		t.Fatal(err)
	}
	if got := r.Header.Get("Digest"); got != "SHA-256=RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o=" {
		t.Errorf("Digest %q", got)
	}
	wantPrefix := `keyId="https://remote.example/users/alice#main-key",algorithm="rsa-sha256",headers="(request-target) host date digest content-type",signature="`
	if got := r.Header.Get("Signature"); !strings.HasPrefix(got, wantPrefix) {
		t.Errorf("Signature %q; want prefix %q", got, wantPrefix)
	}

	r, _ = http.NewRequest(http.MethodGet, "https://remote.example/users/bob", nil)
	if err := SignCavage(r, nil, k.edK, now); err != nil {
		t.Fatal(err)
	}
	if got := r.Header.Get("Signature"); !strings.Contains(got, `algorithm="hs2019",headers="(request-target) host date",`) {
		t.Errorf("GET Signature %q; want hs2019 over (request-target) host date", got)
	}
	if r.Header.Get("Digest") != "" {
		t.Errorf("GET got a Digest header")
	}
}

// TestRoundTripEscapedTarget: a percent-encoded path and query are signed
// and verified byte for byte over a real connection.
func TestRoundTripEscapedTarget(t *testing.T) {
	t.Parallel()
	k := loadKeys(t)
	for _, sign := range []func(*http.Request, []byte, Key, time.Time) error{SignCavage, SignRFC9421} {
		srv, results := verifyingServer(t, k.rsaAPub, now)
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/tags/caf%C3%A9/%7Eme?q=a%20b&x=%2F", nil)
		if err := sign(req, nil, k.rsaAKey, now); err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := <-results; got.err != nil {
			t.Fatalf("server refused %s: %v", req.URL.RequestURI(), got.err)
		}
	}
}
