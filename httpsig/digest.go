package httpsig

import (
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
)

// VerifyDigest checks that the body matches the digests r carries: Digest
// (RFC 3230, SHA-256= or SHA-512=) and Content-Digest (RFC 9530, sha-256 or
// sha-512). At least one digest of a known algorithm must be present, and
// every known one present must match; unknown algorithms are ignored.
// Parse has already made sure the header is signed.
func VerifyDigest(r *http.Request, body []byte) error {
	for _, h := range [...]string{"Digest", "Content-Digest"} {
		if headerLen(r.Header, h) > MaxHeaderLen {
			return fail(strings.ToLower(h) + " header too long")
		}
	}
	digest, hasDigest := headerValue(r.Header, "Digest")
	content, hasContent := headerValue(r.Header, "Content-Digest")
	if !hasDigest && !hasContent {
		return fail("digest header missing")
	}
	var sums sums
	checked := 0
	if hasDigest {
		for _, part := range strings.Split(digest, ",") {
			alg, val, ok := strings.Cut(strings.TrimSpace(part), "=")
			if !ok {
				return fail("malformed digest header")
			}
			want := sums.of(strings.ToLower(alg), body)
			if want == nil {
				continue
			}
			got, err := base64.StdEncoding.DecodeString(strings.TrimSpace(val))
			if err != nil {
				return fail("malformed digest header")
			}
			if subtle.ConstantTimeCompare(got, want) != 1 {
				return fail("digest mismatch")
			}
			checked++
		}
	}
	if hasContent {
		members, err := parseDictionary(content, "content-digest header")
		if err != nil {
			return err
		}
		for _, m := range members {
			want := sums.of(m.key, body)
			if want == nil {
				continue
			}
			if m.list || m.item.kind != sfBytes {
				return fail("malformed content-digest header")
			}
			if subtle.ConstantTimeCompare(m.item.bytes, want) != 1 {
				return fail("content-digest mismatch")
			}
			checked++
		}
	}
	if checked == 0 {
		return fail("no supported digest algorithm (sha-256, sha-512)")
	}
	return nil
}

// sums computes each digest of the body at most once.
type sums struct{ s256, s512 []byte }

func (s *sums) of(alg string, body []byte) []byte {
	switch alg {
	case "sha-256":
		if s.s256 == nil {
			h := sha256.Sum256(body)
			s.s256 = h[:]
		}
		return s.s256
	case "sha-512":
		if s.s512 == nil {
			h := sha512.Sum512(body)
			s.s512 = h[:]
		}
		return s.s512
	}
	return nil
}
