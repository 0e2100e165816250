package httpsig

import (
	"bytes"
	"crypto"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

var inboxBody = []byte(`{"type":"Create","actor":"https://remote.example/users/alice"}`)

// signedInbound signs a request to https://murlog.example/users/bob/inbox
// with scheme at signedAt and returns it as the server receives it. A nil
// body makes a GET.
func signedInbound(t *testing.T, scheme Scheme, k Key, body []byte, signedAt time.Time) *http.Request {
	t.Helper()
	method := http.MethodGet
	if body != nil {
		method = http.MethodPost
	}
	out, _ := http.NewRequest(method, "https://murlog.example/users/bob/inbox", bytes.NewReader(body))
	if body != nil {
		out.Header.Set("Content-Type", "application/activity+json")
	}
	sign := SignCavage
	if scheme == RFC9421 {
		sign = SignRFC9421
	}
	if err := sign(out, body, k, signedAt); err != nil {
		t.Fatal(err)
	}
	in := httptest.NewRequest(method, "https://murlog.example/users/bob/inbox", bytes.NewReader(body))
	in.Header = out.Header.Clone()
	return in
}

var murlogOpts = VerifyOptions{Now: now, Base: "https://murlog.example"}

// parseVerify runs the whole inbound check and returns the first refusal.
func parseVerify(r *http.Request, body []byte, pub crypto.PublicKey, o VerifyOptions) error {
	sig, err := Parse(r, body != nil, o)
	if err != nil {
		return err
	}
	if body != nil {
		if err := VerifyDigest(r, body); err != nil {
			return err
		}
	}
	return sig.Verify(pub)
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	k := loadKeys(t)
	for _, scheme := range []Scheme{Cavage, RFC9421} {
		sigHeader := "Signature"
		digestHeader, digestName := "Digest", "digest"
		if scheme == RFC9421 {
			digestHeader, digestName = "Content-Digest", "content-digest"
		}
		tests := []struct {
			name string
			do   func() error
			want string
		}{
			{"valid", func() error {
				return parseVerify(signedInbound(t, scheme, k.rsaAKey, inboxBody, now), inboxBody, k.rsaAPub, murlogOpts)
			}, ""},
			{"forged signature", func() error {
				r := signedInbound(t, scheme, k.rsaAKey, inboxBody, now)
				v := r.Header.Get(sigHeader)
				i := strings.LastIndex(v, "A") // change one base64 character of the signature
				if i < 0 {
					i = len(v) - 6
				}
				r.Header.Set(sigHeader, v[:i]+"B"+v[i+1:])
				return parseVerify(r, inboxBody, k.rsaAPub, murlogOpts)
			}, "signature invalid"},
			{"another actor's key", func() error {
				return parseVerify(signedInbound(t, scheme, k.rsaAKey, inboxBody, now), inboxBody, k.rsaBPub, murlogOpts)
			}, "signature invalid"},
			{"rsa algorithm, ed25519 key", func() error {
				return parseVerify(signedInbound(t, scheme, k.rsaAKey, inboxBody, now), inboxBody, k.edAPub, murlogOpts)
			}, "does not fit"},
			{"header changed after signing", func() error {
				r := signedInbound(t, scheme, k.rsaAKey, inboxBody, now)
				r.Header.Set("Content-Type", "text/plain")
				return parseVerify(r, inboxBody, k.rsaAPub, murlogOpts)
			}, "signature invalid"},
			{"signed for another host", func() error {
				o := murlogOpts
				o.Base = "https://other.example"
				return parseVerify(signedInbound(t, scheme, k.rsaAKey, inboxBody, now), inboxBody, k.rsaAPub, o)
			}, "signature invalid"},
			{"digest unsigned", func() error {
				r := signedInbound(t, scheme, k.rsaAKey, nil, now) // GET-shaped signature …
				r.Method = http.MethodPost                         // … on a POST with a body
				return parseVerify(r, inboxBody, k.rsaAPub, murlogOpts)
			}, digestName + " header not signed"},
			{"digest mismatch", func() error {
				r := signedInbound(t, scheme, k.rsaAKey, inboxBody, now)
				return parseVerify(r, []byte(`{"type":"Delete"}`), k.rsaAPub, murlogOpts)
			}, "digest mismatch"},
			{"digest header removed", func() error {
				r := signedInbound(t, scheme, k.rsaAKey, inboxBody, now)
				r.Header.Del(digestHeader)
				return parseVerify(r, inboxBody, k.rsaAPub, murlogOpts)
			}, "missing"},
			{"stale: 2 hours old", func() error {
				return parseVerify(signedInbound(t, scheme, k.rsaAKey, inboxBody, now.Add(-2*time.Hour)), inboxBody, k.rsaAPub, murlogOpts)
			}, "signature expired"},
			{"future: 2 hours ahead", func() error {
				return parseVerify(signedInbound(t, scheme, k.rsaAKey, inboxBody, now.Add(2*time.Hour)), inboxBody, k.rsaAPub, murlogOpts)
			}, "signature created in the future"},
			{"inside the skew: 1 hour old", func() error {
				return parseVerify(signedInbound(t, scheme, k.rsaAKey, inboxBody, now.Add(-time.Hour)), inboxBody, k.rsaAPub, murlogOpts)
			}, ""},
			{"huge signature header", func() error {
				r := signedInbound(t, scheme, k.rsaAKey, inboxBody, now)
				r.Header.Set(sigHeader, r.Header.Get(sigHeader)+strings.Repeat("A", MaxHeaderLen))
				return parseVerify(r, inboxBody, k.rsaAPub, murlogOpts)
			}, "signature header too long"},
		}
		for _, tt := range tests {
			t.Run(scheme.String()+"/"+tt.name, func(t *testing.T) {
				err := tt.do()
				if tt.want == "" {
					if err != nil {
						t.Fatalf("got %v; want accepted", err)
					}
					return
				}
				wantReason(t, tt.name, err, tt.want)
			})
		}
	}
}

// TestBadHeaders feeds malformed or incomplete headers to Parse: each is
// refused with an *Error naming the reason.
func TestBadHeaders(t *testing.T) {
	t.Parallel()
	const input = `sig1=("@method" "@target-uri" "content-digest");created=1796119200;keyid="https://r.example/k"`
	tests := []struct {
		name, signature, input, want string
	}{
		{"no signature at all", "", "", "request not signed"},
		{"cavage keyId missing", `algorithm="rsa-sha256",headers="(request-target) host date digest",signature="AAAA"`, "", "keyId missing"},
		{"cavage signature missing", `keyId="k",headers="(request-target) host date digest"`, "", "signature missing"},
		{"cavage unknown algorithm", `keyId="k",algorithm="hmac-sha256",headers="(request-target) host date digest",signature="AAAA"`, "", "unknown algorithm"},
		{"cavage unterminated quote", `keyId="k,signature="AAAA`, "", "malformed signature header"},
		{"cavage parameter twice", `keyId="k",keyId="j",headers="(request-target) host date digest",signature="AAAA"`, "", "twice"},
		{"cavage no equals", `keyId`, "", "malformed signature header"},
		{"cavage signature not base64", `keyId="k",headers="(request-target) host date digest",signature="!!"`, "", "not base64"},
		{"cavage unknown pseudo-header", `keyId="k",headers="(request-target) (foo) host date digest",signature="AAAA"`, "", "unsupported pseudo-header"},
		{"cavage (created) without parameter", `keyId="k",headers="(request-target) (created) host date digest",signature="AAAA"`, "", "without a created parameter"},
		{"cavage signed header absent", `keyId="k",headers="(request-target) host date digest x-absent",signature="AAAA"`, "", "signed header x-absent missing"},
		{"rfc created missing", "sig1=:AAAA:", `sig1=("@method" "@target-uri" "content-digest");keyid="k"`, "created parameter missing"},
		{"rfc @method missing", "sig1=:AAAA:", `sig1=("@target-uri" "content-digest");created=1796119200;keyid="k"`, "@method not signed"},
		{"rfc content-digest missing", "sig1=:AAAA:", `sig1=("@method" "@target-uri");created=1796119200;keyid="k"`, "content-digest header not signed"},
		{"rfc keyid missing", "sig1=:AAAA:", `sig1=("@method" "@target-uri" "content-digest");created=1796119200`, "keyId missing"},
		{"rfc unknown alg", "sig1=:AAAA:", input + `;alg="rsa-pss-sha512"`, "unknown algorithm"},
		{"rfc created not an integer", "sig1=:AAAA:", `sig1=("@method" "@target-uri" "content-digest");created="x";keyid="k"`, "created"},
		{"rfc created long ago", "sig1=:AAAA:", `sig1=("@method" "@target-uri" "content-digest");created=1618884473;keyid="k"`, "signature expired"},
		{"rfc signature not bytes", `sig1="AAAA"`, input, "malformed signature header"},
		{"rfc signature absent", `sig2=:AAAA:`, input, "signature missing for label sig1"},
		{"rfc item, not a list", "sig1=:AAAA:", `sig1=1`, "not an inner list"},
		{"rfc component parameter", "sig1=:AAAA:", `sig1=("@method" "@target-uri" "content-digest";sf);created=1796119200;keyid="k"`, "unsupported component parameter"},
		{"rfc component twice", "sig1=:AAAA:", `sig1=("@method" "@method" "@target-uri" "content-digest");created=1796119200;keyid="k"`, "covered twice"},
		{"rfc unsupported derived", "sig1=:AAAA:", `sig1=("@method" "@target-uri" "content-digest" "@query-param");created=1796119200;keyid="k"`, "unsupported component @query-param"},
		{"rfc upper-case component", "sig1=:AAAA:", `sig1=("@method" "@target-uri" "Content-Digest");created=1796119200;keyid="k"`, "bad component name"},
		{"rfc malformed input", "sig1=:AAAA:", `sig1=("@method"`, "malformed signature-input header"},
		{"rfc empty input", "sig1=:AAAA:", ` `, "signature-input header empty"},
		{"rfc huge input", "sig1=:AAAA:", input + strings.Repeat(" ", MaxHeaderLen), "signature-input header too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "https://murlog.example/inbox", strings.NewReader("{}"))
			r.Header.Set("Date", "Tue, 01 Dec 2026 10:00:00 GMT")
			r.Header.Set("Digest", "SHA-256=RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o=")
			r.Header.Set("Content-Digest", "sha-256=:RBNvo1WzZ4oRRq0W9+hknpT7T8If536DEMBg9hyq/4o=:")
			if tt.signature != "" {
				r.Header.Set("Signature", tt.signature)
			}
			if tt.input != "" {
				r.Header.Set("Signature-Input", tt.input)
			}
			_, err := Parse(r, true, murlogOpts)
			wantReason(t, tt.name, err, tt.want)
		})
	}
}

func TestWindow(t *testing.T) {
	t.Parallel()
	h := time.Hour
	tests := []struct {
		name             string
		created, expires time.Duration // relative to now; expires 0 = none
		maxAge, skew     time.Duration
		want             string
	}{
		{"fresh", 0, 0, 0, 0, ""},
		{"an hour old, inside 5 min + 1 h skew", -h, 0, 0, 0, ""},
		{"66 minutes old", -66 * time.Minute, 0, 0, 0, "signature expired"},
		{"59 minutes ahead", 59 * time.Minute, 0, 0, 0, ""},
		{"61 minutes ahead", 61 * time.Minute, 0, 0, 0, "signature created in the future"},
		{"expires honoured: 10 h old, expires in 1 h", -10 * h, h, 0, 0, ""},
		{"expires capped at 12 h: 14 h old", -14 * h, h, 0, 0, "signature expired"},
		{"expired an hour and a half ago", -2 * h, -90 * time.Minute, 0, 0, "signature expired"},
		{"tighter options", -2 * time.Minute, 0, time.Minute, time.Second * 30, "signature expired"},
	}
	for _, tt := range tests {
		o := VerifyOptions{Now: now, MaxAge: tt.maxAge, MaxSkew: tt.skew}
		var exp time.Time
		if tt.expires != 0 {
			exp = now.Add(tt.expires)
		}
		err := o.window(now.Add(tt.created), exp)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: got %v; want accepted", tt.name, err)
			}
			continue
		}
		wantReason(t, tt.name, err, tt.want)
	}
}

// TestHugeSignedHeader: a signed header other than the signature's own is
// capped too, so a signature base stays small.
func TestHugeSignedHeader(t *testing.T) {
	t.Parallel()
	k := loadKeys(t)
	for _, scheme := range []Scheme{Cavage, RFC9421} {
		r := signedInbound(t, scheme, k.rsaAKey, inboxBody, now)
		r.Header.Set("Content-Type", strings.Repeat("a", MaxHeaderLen+1))
		_, err := Parse(r, true, murlogOpts)
		wantReason(t, scheme.String(), err, "signed header content-type too long")
	}
}
