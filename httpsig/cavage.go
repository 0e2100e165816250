package httpsig

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxCavageHeaders caps the headers list of a cavage signature.
const maxCavageHeaders = 32

// SignCavage signs r as draft-cavage-http-signatures-12 and Mastodon do: it
// sets Date and, when body is not nil, Digest (SHA-256), then Signature with
// headers "(request-target) host date" plus "digest" and "content-type" (when
// set) on a body. The algorithm is named rsa-sha256 for an RSA key — what
// every server understands — and hs2019 for an Ed25519 key.
func SignCavage(r *http.Request, body []byte, k Key, now time.Time) error {
	if err := checkKeyID(k.ID); err != nil {
		return err
	}
	rsaKey, err := isRSA(k.Private)
	if err != nil {
		return err
	}
	t := signTarget(r)
	r.Header.Set("Date", now.UTC().Format(http.TimeFormat))
	names := []string{"(request-target)", "host", "date"}
	if body != nil {
		sum := sha256.Sum256(body)
		r.Header.Set("Digest", "SHA-256="+base64.StdEncoding.EncodeToString(sum[:]))
		names = append(names, "digest")
		if r.Header.Get("Content-Type") != "" {
			names = append(names, "content-type")
		}
	}
	base, err := cavageBase(r, t, t.uri, names, cavageParams{})
	if err != nil {
		return err
	}
	sig, err := signBytes(k, base)
	if err != nil {
		return err
	}
	alg := "hs2019"
	if rsaKey {
		alg = "rsa-sha256"
	}
	r.Header.Set("Signature", `keyId="`+k.ID+`",algorithm="`+alg+`",headers="`+
		strings.Join(names, " ")+`",signature="`+base64.StdEncoding.EncodeToString(sig)+`"`)
	return nil
}

// checkKeyID refuses a keyId that cannot be written into either header.
func checkKeyID(id string) error {
	if id == "" {
		return fail("keyId missing")
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return fail("keyId has a character that cannot be signed")
		}
	}
	return nil
}

// cavageParams are the parameters of a Signature header, as sent.
type cavageParams struct {
	keyID, algorithm, headers, signature string
	created, expires                     string // integers, kept as text: (created) signs the text
	hasHeaders                           bool
}

func parseCavageParams(v string) (cavageParams, error) {
	var p cavageParams
	seen := map[string]bool{}
	for i := 0; i < len(v); {
		for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == ',') {
			i++
		}
		if i == len(v) {
			break
		}
		eq := strings.IndexByte(v[i:], '=')
		if eq <= 0 {
			return p, fail("malformed signature header")
		}
		key := strings.TrimSpace(v[i : i+eq])
		i += eq + 1
		var val string
		if i < len(v) && v[i] == '"' {
			var b strings.Builder
			i++
			closed := false
			for i < len(v) {
				c := v[i]
				i++
				if c == '\\' && i < len(v) {
					b.WriteByte(v[i])
					i++
					continue
				}
				if c == '"' {
					closed = true
					break
				}
				b.WriteByte(c)
			}
			if !closed {
				return p, fail("malformed signature header")
			}
			val = b.String()
		} else {
			end := strings.IndexByte(v[i:], ',')
			if end < 0 {
				end = len(v) - i
			}
			val = strings.TrimSpace(v[i : i+end])
			i += end
		}
		if seen[key] {
			return p, fail("malformed signature header: " + strconv.Quote(key) + " twice")
		}
		seen[key] = true
		switch key {
		case "keyId":
			p.keyID = val
		case "algorithm":
			p.algorithm = val
		case "headers":
			p.headers, p.hasHeaders = val, true
		case "signature":
			p.signature = val
		case "created":
			p.created = val
		case "expires":
			p.expires = val
		}
	}
	return p, nil
}

func parseCavage(r *http.Request, t target, hasBody bool, o VerifyOptions) (*Signature, error) {
	vs := r.Header.Values("Signature")
	if len(vs) == 0 || strings.TrimSpace(vs[0]) == "" {
		return nil, fail("request not signed")
	}
	if len(vs) > 1 {
		return nil, fail("more than one signature header")
	}
	p, err := parseCavageParams(vs[0])
	if err != nil {
		return nil, err
	}
	if p.keyID == "" {
		return nil, fail("keyId missing")
	}
	if p.signature == "" {
		return nil, fail("signature missing")
	}
	if p.algorithm == "" {
		p.algorithm = "hs2019" // Mastodon's reading of a missing algorithm
	}
	if !knownAlgorithm(Cavage, p.algorithm) {
		return nil, fail("unknown algorithm " + strconv.Quote(p.algorithm))
	}
	if !p.hasHeaders {
		p.headers = "date" // the draft's default, which fails the checks below
	}
	names := strings.Fields(strings.ToLower(p.headers))
	if len(names) > maxCavageHeaders {
		return nil, fail("too many signed headers")
	}
	for _, req := range [...]string{"(request-target)", "host", "date"} {
		if !contains(names, req) {
			return nil, fail(req + " header not signed")
		}
	}
	if hasBody && !contains(names, "digest") {
		return nil, fail("digest header not signed")
	}
	s := &Signature{Scheme: Cavage, KeyID: p.keyID, Algorithm: p.algorithm, Components: names}
	date, err := http.ParseTime(r.Header.Get("Date"))
	if err != nil {
		return nil, fail("date header malformed")
	}
	s.Created = date
	var expires time.Time
	if p.expires != "" {
		n, err := strconv.ParseInt(p.expires, 10, 64)
		if err != nil {
			return nil, fail("malformed signature header: expires")
		}
		expires = time.Unix(n, 0)
	}
	if p.created != "" {
		n, err := strconv.ParseInt(p.created, 10, 64)
		if err != nil {
			return nil, fail("malformed signature header: created")
		}
		s.Created = time.Unix(n, 0)
		if err := o.window(s.Created, expires); err != nil {
			return nil, err
		}
	}
	if err := o.window(date, expires); err != nil {
		return nil, err
	}
	if s.sig, err = base64.StdEncoding.DecodeString(p.signature); err != nil || len(s.sig) == 0 {
		return nil, fail("malformed signature header: signature is not base64")
	}
	if s.base, err = cavageBase(r, t, t.uri, names, p); err != nil {
		return nil, err
	}
	if r.URL.RawQuery != "" {
		// Mastodon before 4.x left the query out of (request-target); it
		// still accepts both, so do we.
		if s.altBase, err = cavageBase(r, t, r.URL.EscapedPath(), names, p); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// cavageBase builds the signing string of draft-cavage-http-signatures-12
// §2.3: one "name: value" line per signed header, in the order listed.
func cavageBase(r *http.Request, t target, uri string, names []string, p cavageParams) ([]byte, error) {
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(n)
		b.WriteString(": ")
		switch n {
		case "(request-target)":
			b.WriteString(strings.ToLower(r.Method))
			b.WriteByte(' ')
			b.WriteString(uri)
		case "(created)":
			if p.created == "" {
				return nil, fail("(created) signed without a created parameter")
			}
			b.WriteString(p.created)
		case "(expires)":
			if p.expires == "" {
				return nil, fail("(expires) signed without an expires parameter")
			}
			b.WriteString(p.expires)
		case "host":
			b.WriteString(t.host)
		default:
			if strings.HasPrefix(n, "(") {
				return nil, fail("unsupported pseudo-header " + n)
			}
			v, err := signedValue(r.Header, n)
			if err != nil {
				return nil, err
			}
			b.WriteString(v)
		}
	}
	return []byte(b.String()), nil
}
