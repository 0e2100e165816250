package federation

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/httpsig"
	"github.com/murlog/murlog/outbound"
	"github.com/murlog/murlog/persona"
)

func testPersona(t *testing.T) *murlog.Persona {
	t.Helper()
	pub, priv, err := persona.NewKeyPair()
	if err != nil {
		t.Fatal(err)
	}
	return &murlog.Persona{ID: murlog.NewID(), Username: "alice", PublicKeyPEM: pub, PrivateKeyPEM: priv}
}

func TestKeysSignBothSchemes(t *testing.T) {
	t.Parallel()
	site := murlog.Site{Scheme: "https", Domain: "a.example"}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	p := testPersona(t)
	pub, err := httpsig.ParsePublicKeyPEM(p.PublicKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		keys *Keys
		ask  outbound.Scheme
		want httpsig.Scheme
	}{
		{"rfc9421 asked", NewKeys(site, func() time.Time { return now }), outbound.SchemeRFC9421, httpsig.RFC9421},
		{"cavage asked", NewKeys(site, func() time.Time { return now }), outbound.SchemeCavage, httpsig.Cavage},
		{"cavage-only peer asked for rfc9421", NewKeys(site, func() time.Time { return now }, outbound.SchemeCavage), outbound.SchemeRFC9421, httpsig.Cavage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.keys.Signer(p)
			if err != nil {
				t.Fatal(err)
			}
			body := []byte(`{"type":"Create"}`)
			r, _ := http.NewRequest("POST", "https://b.example/inbox", bytes.NewReader(body))
			r.Header.Set("Content-Type", "application/activity+json")
			if err := s.Sign(r, body, tt.ask); err != nil {
				t.Fatalf("Sign: %v", err)
			}
			sig, err := httpsig.Parse(r, true, httpsig.VerifyOptions{Now: now, Base: "https://b.example"})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if sig.Scheme != tt.want || sig.KeyID != "https://a.example/@alice#main-key" {
				t.Fatalf("signed as %v with keyId %q; want %v with https://a.example/@alice#main-key", sig.Scheme, sig.KeyID, tt.want)
			}
			if err := sig.Verify(pub); err != nil {
				t.Fatalf("Verify: %v", err)
			}
		})
	}
}

func TestKeysParseOncePerPEM(t *testing.T) {
	t.Parallel()
	k := NewKeys(murlog.Site{Scheme: "https", Domain: "a.example"}, nil)
	p := testPersona(t)
	a, err := k.private(p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := k.private(p)
	if a != b {
		t.Fatal("second Signer for the same key: parsed again; want the cached key")
	}
	q := testPersona(t)
	q.ID = p.ID // the same persona after a key rotation
	c, _ := k.private(q)
	if c == a {
		t.Fatal("rotated key: got the old cached key; want the new one parsed")
	}
	p.PrivateKeyPEM = "not a key"
	p.ID = murlog.NewID()
	if _, err := k.Signer(p); err == nil || bytes.Contains([]byte(err.Error()), []byte("not a key")) {
		t.Fatalf("unreadable key: got %v; want an error that does not echo the PEM", err)
	}
}
