package httpsig

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

const mastoBody = `{"@context":"https://www.w3.org/ns/activitystreams","type":"Follow"}`

// mastodonRequest is an inbound POST signed the way Mastodon signs one: the
// signing string is written out here by hand from draft-cavage §2.3, not by
// the package, and signed with RSA PKCS#1 v1.5 SHA-256.
type cavageCase struct {
	method, target string
	headers        string // the headers parameter
	lines          []string
	extra          string // more parameters (algorithm, created, expires …)
	key            crypto.Signer
}

func (c cavageCase) request(t *testing.T) *http.Request {
	t.Helper()
	var r *http.Request
	if c.method == http.MethodPost {
		r = httptest.NewRequest(c.method, "https://murlog.example"+c.target, strings.NewReader(mastoBody))
		sum := sha256.Sum256([]byte(mastoBody))
		r.Header.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
		r.Header.Set("Content-Type", "application/activity+json")
	} else {
		r = httptest.NewRequest(c.method, "https://murlog.example"+c.target, nil)
	}
	r.Header.Set("Date", "Tue, 01 Dec 2026 10:00:00 GMT")
	base := []byte(strings.Join(c.lines, "\n"))
	var sig []byte
	var err error
	switch k := c.key.(type) {
	case *rsa.PrivateKey:
		h := sha256.Sum256(base)
		sig, err = rsa.SignPKCS1v15(nil, k, crypto.SHA256, h[:])
	case ed25519.PrivateKey:
		sig = ed25519.Sign(k, base)
	}
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Signature", `keyId="https://mastodon.example/users/alice#main-key",`+c.extra+
		`headers="`+c.headers+`",signature="`+base64.StdEncoding.EncodeToString(sig)+`"`)
	return r
}

func TestCavageInbound(t *testing.T) {
	t.Parallel()
	k := loadKeys(t)
	digest := func() string {
		sum := sha256.Sum256([]byte(mastoBody))
		return "digest: SHA-256=" + base64.StdEncoding.EncodeToString(sum[:])
	}()
	created := strconv.FormatInt(now.Unix(), 10)
	expires := strconv.FormatInt(now.Unix()+300, 10)
	tests := []struct {
		name string
		c    cavageCase
		pub  crypto.PublicKey
	}{
		{"mastodon POST rsa-sha256", cavageCase{http.MethodPost, "/users/bob/inbox",
			"(request-target) host date digest content-type",
			[]string{"(request-target): post /users/bob/inbox", "host: murlog.example", "date: Tue, 01 Dec 2026 10:00:00 GMT", digest, "content-type: application/activity+json"},
			`algorithm="rsa-sha256",`, k.rsaA}, k.rsaAPub},
		{"gotosocial-style hs2019 with an RSA key", cavageCase{http.MethodPost, "/inbox",
			"(request-target) host date digest",
			[]string{"(request-target): post /inbox", "host: murlog.example", "date: Tue, 01 Dec 2026 10:00:00 GMT", digest},
			`algorithm="hs2019",`, k.rsaA}, k.rsaAPub},
		{"no algorithm means hs2019", cavageCase{http.MethodGet, "/@bob",
			"(request-target) host date",
			[]string{"(request-target): get /@bob", "host: murlog.example", "date: Tue, 01 Dec 2026 10:00:00 GMT"},
			``, k.rsaA}, k.rsaAPub},
		{"(created) and (expires) tolerated", cavageCase{http.MethodPost, "/inbox",
			"(request-target) (created) (expires) host date digest",
			[]string{"(request-target): post /inbox", "(created): " + created, "(expires): " + expires, "host: murlog.example", "date: Tue, 01 Dec 2026 10:00:00 GMT", digest},
			`algorithm="hs2019",created=` + created + `,expires=` + expires + `,`, k.rsaA}, k.rsaAPub},
		{"hs2019 ed25519", cavageCase{http.MethodGet, "/@bob/outbox?page=1",
			"(request-target) host date",
			[]string{"(request-target): get /@bob/outbox?page=1", "host: murlog.example", "date: Tue, 01 Dec 2026 10:00:00 GMT"},
			`algorithm="hs2019",`, k.edA}, k.edAPub},
		{"query left out of (request-target), as older Mastodon signed", cavageCase{http.MethodGet, "/@bob/outbox?page=1",
			"(request-target) host date",
			[]string{"(request-target): get /@bob/outbox", "host: murlog.example", "date: Tue, 01 Dec 2026 10:00:00 GMT"},
			`algorithm="rsa-sha256",`, k.rsaA}, k.rsaAPub},
		{"upper-case header names", cavageCase{http.MethodGet, "/@bob",
			"(request-target) Host Date",
			[]string{"(request-target): get /@bob", "host: murlog.example", "date: Tue, 01 Dec 2026 10:00:00 GMT"},
			`algorithm="rsa-sha256",`, k.rsaA}, k.rsaAPub},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.c.request(t)
			post := tt.c.method == http.MethodPost
			sig, err := Parse(r, post, VerifyOptions{Now: now, Base: "https://murlog.example"})
			if err != nil {
				t.Fatalf("Parse: %v (Signature %q)", err, r.Header.Get("Signature"))
			}
			if post {
				if err := VerifyDigest(r, []byte(mastoBody)); err != nil {
					t.Fatalf("VerifyDigest: %v", err)
				}
			}
			if err := sig.Verify(tt.pub); err != nil {
				t.Fatalf("Verify: %v (base %q)", err, sig.base)
			}
			if sig.Scheme != Cavage || sig.KeyID != "https://mastodon.example/users/alice#main-key" {
				t.Fatalf("got %v %q", sig.Scheme, sig.KeyID)
			}
		})
	}
}

func TestCavageRequiredHeaders(t *testing.T) {
	t.Parallel()
	k := loadKeys(t)
	line := map[string]string{
		"(request-target)": "(request-target): post /inbox",
		"host":             "host: murlog.example",
		"date":             "date: Tue, 01 Dec 2026 10:00:00 GMT",
		"digest":           "digest: SHA-256=x",
		"content-type":     "content-type: application/activity+json",
	}
	tests := []struct {
		headers, want string
		hasBody       bool
	}{
		{"(request-target) host digest", "date header not signed", true},
		{"(request-target) host date", "digest header not signed", true},
		{"(request-target) date digest", "host header not signed", true},
		{"host date digest", "(request-target) header not signed", true},
		{"(request-target) host", "date header not signed", false},
		{"", "(request-target) header not signed", false},
	}
	for _, tt := range tests {
		var lines []string
		for _, h := range strings.Fields(tt.headers) {
			lines = append(lines, line[h])
		}
		c := cavageCase{http.MethodPost, "/inbox", tt.headers, lines, `algorithm="rsa-sha256",`, k.rsaA}
		r := c.request(t)
		if tt.headers == "" {
			r.Header.Set("Signature", `keyId="k",signature="AAAA"`) // headers absent: the draft's default is date
		}
		_, err := Parse(r, tt.hasBody, VerifyOptions{Now: now, Base: "https://murlog.example"})
		wantReason(t, "headers="+tt.headers, err, tt.want)
	}
}
