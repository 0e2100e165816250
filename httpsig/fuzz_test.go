package httpsig

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary Signature, Signature-Input, Date and digest
// headers to Parse and VerifyDigest: they never panic, and every refusal
// is an *Error.
func FuzzParse(f *testing.F) {
	k := loadKeys(f)
	for _, scheme := range []Scheme{Cavage, RFC9421} {
		for _, body := range [][]byte{nil, inboxBody} {
			r, _ := http.NewRequest(http.MethodPost, "https://murlog.example/inbox?x=1", nil)
			sign := SignCavage
			if scheme == RFC9421 {
				sign = SignRFC9421
			}
			if err := sign(r, body, k.rsaAKey, now); err != nil {
				f.Fatal(err)
			}
			f.Add(r.Header.Get("Signature"), r.Header.Get("Signature-Input"), r.Header.Get("Date"),
				r.Header.Get("Digest"), r.Header.Get("Content-Digest"), body != nil)
		}
	}
	f.Add(b26Signature, b26Input, "Tue, 20 Apr 2021 02:07:55 GMT", "", rfcContentDigest, true)
	f.Add(`keyId="a\"b",headers="(request-target) (created) (expires)",created=1,expires=x,signature=""`, "", "", "SHA-256=,", "", false)
	f.Add("sig1=:AAAA:", `sig1=("@method" "@target-uri";x;y=?0 "a");created=-1;keyid=:AA==:;alg=tok`, "x", "", "a=(1 2);q=1.5, b", true)
	f.Fuzz(func(t *testing.T, sig, input, date, digest, contentDigest string, hasBody bool) {
		r := httptest.NewRequest(http.MethodPost, "https://murlog.example/inbox?x=1", strings.NewReader("{}"))
		for h, v := range map[string]string{"Signature": sig, "Signature-Input": input, "Date": date,
			"Digest": digest, "Content-Digest": contentDigest} {
			if v != "" {
				r.Header[h] = []string{v}
			}
		}
		var e *Error
		s, err := Parse(r, hasBody, murlogOpts)
		if err != nil && !errors.As(err, &e) {
			t.Fatalf("Parse returned %T %v; want *Error", err, err)
		}
		if err == nil {
			if err := s.Verify(k.rsaAPub); err != nil && !errors.As(err, &e) {
				t.Fatalf("Verify returned %T %v; want *Error", err, err)
			}
		}
		if err := VerifyDigest(r, []byte("{}")); err != nil && !errors.As(err, &e) {
			t.Fatalf("VerifyDigest returned %T %v; want *Error", err, err)
		}
	})
}
