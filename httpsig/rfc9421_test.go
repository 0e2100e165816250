package httpsig

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The RFC 9421 Appendix B material: the test request of B.2, the Ed25519
// key of B.1.4 and the signatures of B.2.
const (
	rfcBody          = `{"hello": "world"}`
	rfcContentDigest = "sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:"
	rfcEdPrivate     = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF\n-----END PRIVATE KEY-----\n"
	rfcEdPublic      = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=\n-----END PUBLIC KEY-----\n"
	b26Input         = `sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`
	b26Signature     = "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:"
)

var rfcCreated = time.Unix(1618884473, 0)

// rfcRequest is the B.2 test request as a server receives it.
func rfcRequest() *http.Request {
	r := httptest.NewRequest(http.MethodPost, "https://example.com/foo?param=Value&Pet=dog", strings.NewReader(rfcBody))
	r.Header.Set("Date", "Tue, 20 Apr 2021 02:07:55 GMT")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Content-Digest", rfcContentDigest)
	r.Header.Set("Content-Length", "18")
	return r
}

func rfcOptions() VerifyOptions { return VerifyOptions{Now: rfcCreated, Base: "https://example.com"} }

func TestRFC9421VectorB26(t *testing.T) {
	t.Parallel()
	r := rfcRequest()
	r.Header.Set("Signature-Input", b26Input)
	r.Header.Set("Signature", b26Signature)
	tg, _ := targetOf(r, "https://example.com")

	// B.2.6 does not sign @target-uri, so only the lenient parse (no
	// murlog requirements) reads it; Parse refuses it.
	sig, err := parseRFC9421(r, tg, true, rfcOptions(), false)
	if err != nil {
		t.Fatalf("parse B.2.6: %v", err)
	}
	wantBase := `"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@authority": example.com
"content-type": application/json
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`
	if got := string(sig.base); got != wantBase {
		t.Fatalf("signature base:\n%s\nwant:\n%s", got, wantBase)
	}
	pub, err := ParsePublicKeyPEM(rfcEdPublic)
	if err != nil {
		t.Fatal(err)
	}
	if err := sig.Verify(pub); err != nil {
		t.Fatalf("Verify B.2.6 with test-key-ed25519: %v", err)
	}
	if sig.KeyID != "test-key-ed25519" || sig.Algorithm != "" || !sig.Created.Equal(rfcCreated) {
		t.Fatalf("got keyId %q alg %q created %v", sig.KeyID, sig.Algorithm, sig.Created)
	}

	// Ed25519 is deterministic: the RFC's private key reproduces the bytes.
	priv, err := ParsePrivateKeyPEM(rfcEdPrivate)
	if err != nil {
		t.Fatal(err)
	}
	got, err := signBytes(Key{Private: priv}, sig.base)
	if err != nil {
		t.Fatal(err)
	}
	if want := b26Signature[len("sig-b26=:") : len(b26Signature)-1]; base64.StdEncoding.EncodeToString(got) != want {
		t.Fatalf("signature %s; want %s", base64.StdEncoding.EncodeToString(got), want)
	}

	_, err = Parse(r, true, rfcOptions())
	wantReason(t, "Parse(B.2.6)", err, "@target-uri not signed")
}

// TestRFC9421Bases checks base construction against the other B.2 examples
// (their RSA-PSS/ECDSA/HMAC signatures are outside what murlog verifies).
func TestRFC9421Bases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input, want string
	}{
		{"B.2.1 minimal", `sig-b21=();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"`,
			`"@signature-params": ();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"`},
		{"B.2.3 full coverage", `sig-b23=("date" "@method" "@path" "@query" "@authority" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-rsa-pss"`,
			`"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@query": ?param=Value&Pet=dog
"@authority": example.com
"content-type": application/json
"content-digest": ` + rfcContentDigest + `
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@query" "@authority" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-rsa-pss"`},
		{"B.2.5 hmac", `sig-b25=("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"`,
			`"date": Tue, 20 Apr 2021 02:07:55 GMT
"@authority": example.com
"content-type": application/json
"@signature-params": ("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"`},
		{"derived target-uri, scheme, request-target", `s=("@target-uri" "@scheme" "@request-target");created=1618884473;keyid="k"`,
			`"@target-uri": https://example.com/foo?param=Value&Pet=dog
"@scheme": https
"@request-target": /foo?param=Value&Pet=dog
"@signature-params": ("@target-uri" "@scheme" "@request-target");created=1618884473;keyid="k"`},
		// Non-canonical input (extra spaces) is re-serialised canonically.
		{"canonical params", `s=(  "@method"   "host" );keyid="a\"b";created=1618884473;x=?1;y=tok/en;z=1.50`,
			`"@method": POST
"host": example.com
"@signature-params": ("@method" "host");keyid="a\"b";created=1618884473;x;y=tok/en;z=1.50`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rfcRequest()
			r.Header.Set("Signature-Input", tt.input)
			label, _, _ := strings.Cut(tt.input, "=")
			r.Header.Set("Signature", label+"=:AAAA:")
			tg, _ := targetOf(r, "https://example.com")
			sig, err := parseRFC9421(r, tg, false, rfcOptions(), false)
			if err != nil {
				t.Fatalf("parse %s: %v", tt.input, err)
			}
			if got := string(sig.base); got != tt.want {
				t.Fatalf("base:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestRFC9421Labels: a dictionary with several labels is read at the first
// that covers what murlog requires; the Signature of another label does not
// count for it.
func TestRFC9421Labels(t *testing.T) {
	t.Parallel()
	k := loadKeys(t)
	body := []byte(rfcBody)
	signed := func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, "https://example.com/inbox", bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		c := r.Clone(r.Context())
		c.URL.Scheme, c.URL.Host = "https", "example.com"
		if err := SignRFC9421(c, body, k.rsaAKey, now); err != nil {
			t.Fatal(err)
		}
		r.Header = c.Header
		return r
	}
	opts := VerifyOptions{Now: now, Base: "https://example.com"}

	r := signed()
	r.Header.Set("Signature-Input", b26Input+", "+r.Header.Get("Signature-Input"))
	r.Header.Set("Signature", b26Signature+", "+r.Header.Get("Signature"))
	sig, err := Parse(r, true, opts)
	if err != nil {
		t.Fatalf("Parse with sig-b26 then sig1: %v", err)
	}
	if err := sig.Verify(k.rsaAPub); err != nil || sig.KeyID != k.rsaAKey.ID {
		t.Fatalf("picked keyId %q, Verify: %v; want sig1 verified", sig.KeyID, err)
	}
	if err := VerifyDigest(r, body); err != nil {
		t.Fatalf("VerifyDigest: %v", err)
	}

	r = signed()
	r.Header.Set("Signature", strings.Replace(r.Header.Get("Signature"), "sig1=", "other=", 1))
	_, err = Parse(r, true, opts)
	wantReason(t, "Signature under another label", err, "signature missing for label sig1")

	r = signed()
	r.Header.Add("Signature-Input", `sig2=("@method" "@target-uri" "content-digest");created=1796119200;keyid="https://evil.example/k"`)
	if sig, err = Parse(r, true, opts); err != nil || sig.KeyID != k.rsaAKey.ID {
		t.Fatalf("second Signature-Input line: keyId %q, %v; want the first label", sig.KeyID, err)
	}
}

func TestSFVDictionary(t *testing.T) {
	t.Parallel()
	good := []struct{ in, first string }{
		{`a=1, b=2;x=?0, c`, "a"},
		{`sig1=("@method");created=1, sig2=:AAAA:`, "sig1"},
		{`a=(), a=2`, "a"},
		{"", ""},
	}
	for _, tt := range good {
		ms, err := parseDictionary(tt.in, "test")
		if err != nil {
			t.Errorf("parseDictionary(%q): %v", tt.in, err)
			continue
		}
		if tt.first != "" && ms[0].key != tt.first {
			t.Errorf("parseDictionary(%q): first key %q; want %q", tt.in, ms[0].key, tt.first)
		}
	}
	bad := []string{`a=`, `A=1`, `a=1,`, `a=(1`, `a="unterminated`, `a=:not base64!:`, `a=1 b=2`,
		`a=1234567890123456`, `a=1.2345`, `a="\x"`, `a=(1)(2)`, `a=?2`, "a=\"\x01\"", `a=1;`, `a=("x";)`}
	for _, in := range bad {
		if _, err := parseDictionary(in, "test"); err == nil {
			t.Errorf("parseDictionary(%q) accepted; want an error", in)
		}
	}
	var keys []string
	for i := 0; i <= maxMembers; i++ {
		keys = append(keys, "k"+strings.Repeat("x", i)+"=1")
	}
	_, err := parseDictionary(strings.Join(keys, ", "), "test")
	wantReason(t, "too many members", err, "too many members")
}
