package httpsig

import (
	"bytes"
	"crypto"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// benchInbound is a signed inbox POST as the server receives it.
func benchInbound(b *testing.B, scheme Scheme, k Key) *http.Request {
	b.Helper()
	out, _ := http.NewRequest(http.MethodPost, "https://murlog.example/users/bob/inbox", bytes.NewReader(inboxBody))
	out.Header.Set("Content-Type", "application/activity+json")
	sign := SignCavage
	if scheme == RFC9421 {
		sign = SignRFC9421
	}
	if err := sign(out, inboxBody, k, now); err != nil {
		b.Fatal(err)
	}
	in := httptest.NewRequest(http.MethodPost, "https://murlog.example/users/bob/inbox", bytes.NewReader(inboxBody))
	in.Header = out.Header
	return in
}

// benchParseVerify is the inbox's whole check with a warm key: Parse,
// VerifyDigest, Verify.
func benchParseVerify(b *testing.B, scheme Scheme, k Key, pub crypto.PublicKey) {
	r := benchInbound(b, scheme, k)
	b.ReportAllocs()
	for b.Loop() {
		sig, err := Parse(r, true, murlogOpts)
		if err != nil {
			b.Fatal(err)
		}
		if err := VerifyDigest(r, inboxBody); err != nil {
			b.Fatal(err)
		}
		if err := sig.Verify(pub); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseVerifyCavageRSA(b *testing.B) {
	k := loadKeys(b)
	benchParseVerify(b, Cavage, k.rsaAKey, k.rsaAPub)
}

func BenchmarkParseVerifyRFC9421RSA(b *testing.B) {
	k := loadKeys(b)
	benchParseVerify(b, RFC9421, k.rsaAKey, k.rsaAPub)
}

func BenchmarkParseVerifyRFC9421Ed25519(b *testing.B) {
	k := loadKeys(b)
	benchParseVerify(b, RFC9421, k.edK, k.edAPub)
}

// BenchmarkParseOnly is the cheap step alone: what a garbage or unsigned
// flood costs before any key fetch.
func BenchmarkParseOnly(b *testing.B) {
	k := loadKeys(b)
	r := benchInbound(b, RFC9421, k.rsaAKey)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(r, true, murlogOpts); err != nil {
			b.Fatal(err)
		}
	}
}

func benchSign(b *testing.B, sign func(*http.Request, []byte, Key, time.Time) error, k Key) {
	b.ReportAllocs()
	for b.Loop() {
		r, _ := http.NewRequest(http.MethodPost, "https://remote.example/inbox", bytes.NewReader(inboxBody))
		r.Header.Set("Content-Type", "application/activity+json")
		if err := sign(r, inboxBody, k, now); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSignCavageRSA(b *testing.B)      { benchSign(b, SignCavage, loadKeys(b).rsaAKey) }
func BenchmarkSignRFC9421RSA(b *testing.B)     { benchSign(b, SignRFC9421, loadKeys(b).rsaAKey) }
func BenchmarkSignRFC9421Ed25519(b *testing.B) { benchSign(b, SignRFC9421, loadKeys(b).edK) }
