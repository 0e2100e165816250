package httpsig

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// label is the one label murlog signs under; verification accepts any.
const label = "sig1"

// SignRFC9421 signs r as RFC 9421 asks and Mastodon verifies: it sets Date
// and, when body is not nil, Content-Digest (sha-256), then Signature-Input
//
//	sig1=("@method" "@target-uri" ["content-digest" "content-type"]);created=…;keyid="…";alg="…"
//
// and Signature sig1=:…:. alg is rsa-v1_5-sha256 or ed25519 by the key.
// body must be the exact bytes that will be sent; nil for a GET.
func SignRFC9421(r *http.Request, body []byte, k Key, now time.Time) error {
	if err := checkKeyID(k.ID); err != nil {
		return err
	}
	t := signTarget(r)
	r.Header.Set("Date", now.UTC().Format(http.TimeFormat))
	comps := []string{"@method", "@target-uri"}
	if body != nil {
		sum := sha256.Sum256(body)
		r.Header.Set("Content-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
		comps = append(comps, "content-digest")
		if r.Header.Get("Content-Type") != "" {
			comps = append(comps, "content-type")
		}
	}
	rsaKey, err := isRSA(k.Private)
	if err != nil {
		return err
	}
	alg := "ed25519"
	if rsaKey {
		alg = "rsa-v1_5-sha256"
	}
	m := sfMember{key: label, list: true, params: []sfParam{
		{key: "created", val: sfItem{kind: sfInt, num: now.Unix()}},
		{key: "keyid", val: sfItem{kind: sfString, str: k.ID}},
		{key: "alg", val: sfItem{kind: sfString, str: alg}},
	}}
	for _, c := range comps {
		m.items = append(m.items, sfItem{kind: sfString, str: c})
		m.itemPs = append(m.itemPs, nil)
	}
	params := m.serializeInnerList()
	base, err := rfcBase(r, t, comps, params)
	if err != nil {
		return err
	}
	sig, err := signBytes(k, base)
	if err != nil {
		return err
	}
	r.Header.Set("Signature-Input", label+"="+params)
	r.Header.Set("Signature", label+"=:"+base64.StdEncoding.EncodeToString(sig)+":")
	return nil
}

// parseRFC9421 picks the first label of Signature-Input that covers what
// murlog requires (strict) — or the first label at all, for the RFC's test
// vectors — and builds its signature base.
func parseRFC9421(r *http.Request, t target, hasBody bool, o VerifyOptions, strict bool) (*Signature, error) {
	inputs, err := parseDictionary(strings.Join(r.Header.Values("Signature-Input"), ", "), "signature-input header")
	if err != nil {
		return nil, err
	}
	sigs, err := parseDictionary(strings.Join(r.Header.Values("Signature"), ", "), "signature header")
	if err != nil {
		return nil, err
	}
	if len(inputs) == 0 {
		return nil, fail("signature-input header empty")
	}
	var first error
	for _, in := range inputs {
		comps, err := coveredComponents(in)
		if err == nil && strict {
			err = requireRFC9421(in, comps, hasBody)
		}
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		return buildRFC9421(r, t, o, in, comps, sigs)
	}
	return nil, first
}

// coveredComponents lists the component names of one Signature-Input member.
// Component parameters (;sf, ;key, ;req …) are refused: no fediverse server
// sends them and each changes what the value means.
func coveredComponents(in sfMember) ([]string, error) {
	if !in.list {
		return nil, fail("malformed signature-input header: " + in.key + " is not an inner list")
	}
	comps := make([]string, 0, len(in.items))
	for i, it := range in.items {
		if it.kind != sfString || it.str == "" || strings.ToLower(it.str) != it.str {
			return nil, fail("malformed signature-input header: bad component name")
		}
		if len(in.itemPs[i]) > 0 {
			return nil, fail("unsupported component parameter on " + it.str)
		}
		if contains(comps, it.str) {
			return nil, fail("component " + it.str + " covered twice")
		}
		comps = append(comps, it.str)
	}
	return comps, nil
}

func requireRFC9421(in sfMember, comps []string, hasBody bool) error {
	if !contains(comps, "@method") {
		return fail("@method not signed")
	}
	if !contains(comps, "@target-uri") {
		return fail("@target-uri not signed")
	}
	if _, ok := in.param("created"); !ok {
		return fail("created parameter missing")
	}
	if hasBody && !contains(comps, "content-digest") {
		return fail("content-digest header not signed")
	}
	return nil
}

func buildRFC9421(r *http.Request, t target, o VerifyOptions, in sfMember, comps []string, sigs []sfMember) (*Signature, error) {
	s := &Signature{Scheme: RFC9421, Components: comps}
	if v, ok := in.param("keyid"); !ok || v.kind != sfString || v.str == "" {
		return nil, fail("keyId missing")
	} else {
		s.KeyID = v.str
	}
	if v, ok := in.param("alg"); ok {
		if v.kind != sfString {
			return nil, fail("malformed signature-input header: alg")
		}
		s.Algorithm = v.str
	}
	if !knownAlgorithm(RFC9421, s.Algorithm) {
		return nil, fail("unknown algorithm " + strconv.Quote(s.Algorithm))
	}
	var expires time.Time
	if v, ok := in.param("created"); ok {
		if v.kind != sfInt {
			return nil, fail("malformed signature-input header: created")
		}
		s.Created = time.Unix(v.num, 0)
	}
	if v, ok := in.param("expires"); ok {
		if v.kind != sfInt {
			return nil, fail("malformed signature-input header: expires")
		}
		expires = time.Unix(v.num, 0)
	}
	if !s.Created.IsZero() {
		if err := o.window(s.Created, expires); err != nil {
			return nil, err
		}
	}
	for _, m := range sigs {
		if m.key == in.key {
			if m.list || m.item.kind != sfBytes || len(m.item.bytes) == 0 {
				return nil, fail("malformed signature header for label " + in.key)
			}
			s.sig = m.item.bytes
		}
	}
	if s.sig == nil {
		return nil, fail("signature missing for label " + in.key)
	}
	base, err := rfcBase(r, t, comps, in.serializeInnerList())
	if err != nil {
		return nil, err
	}
	s.base = base
	return s, nil
}

// rfcBase builds the signature base of RFC 9421 §2.5: one line per covered
// component, then @signature-params.
func rfcBase(r *http.Request, t target, comps []string, params string) ([]byte, error) {
	var b strings.Builder
	b.Grow(256 + len(params))
	for _, c := range comps {
		v, err := componentValue(r, t, c)
		if err != nil {
			return nil, err
		}
		sfItem{kind: sfString, str: c}.serialize(&b)
		b.WriteString(": ")
		b.WriteString(v)
		b.WriteByte('\n')
	}
	b.WriteString(`"@signature-params": `)
	b.WriteString(params)
	return []byte(b.String()), nil
}

func componentValue(r *http.Request, t target, c string) (string, error) {
	switch c {
	case "@method":
		return r.Method, nil
	case "@target-uri":
		return t.targetURI(), nil
	case "@authority":
		return t.authority(), nil
	case "@scheme":
		return strings.ToLower(t.scheme), nil
	case "@request-target":
		return t.uri, nil
	case "@path":
		if p := r.URL.EscapedPath(); p != "" {
			return p, nil
		}
		return "/", nil
	case "@query":
		return "?" + r.URL.RawQuery, nil
	case "host":
		return t.host, nil
	}
	if strings.HasPrefix(c, "@") {
		return "", fail("unsupported component " + c)
	}
	return signedValue(r.Header, c)
}
