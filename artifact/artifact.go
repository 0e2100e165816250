// Package artifact is the port of the artifact store: the derived files
// every public read is served from (issue 16). The database is the
// ledger; an artifact is what a page, an ActivityPub document, a feed or
// a theme asset looked like when the truth last changed, rendered once
// and read many times without a query.
//
// An artifact is a body of at most MaxSize bytes under a Key, with a Meta
// (content type, strong ETag, length, modification time) that an adapter
// knows without reading the body, so a conditional request is answered
// from the metadata alone. Adapters are chosen by the composition root:
// artifact/fsstore writes plain files Apache can serve directly under CGI;
// an S3 adapter is planned for the scale-out stage. Every adapter passes
// the contract in artifact/artifacttest.
//
// A corrupt or truncated artifact (its body does not match its Meta) is
// reported as an error wrapping ErrCorrupt, never returned as a good body:
// the caller renders it again.
package artifact

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/murlog/murlog"
)

// MaxSize is the largest artifact body, in bytes. The biggest artifacts
// are a first page of an outbox or a site page with twenty long posts
// (well under 1 MiB); 8 MiB leaves room for a large theme asset while
// keeping a whole body in memory cheap, which Put's []byte relies on.
const MaxSize = 8 << 20

// MaxKey is the longest key in bytes, and MaxSegment the longest segment
// of one. A segment is a file name on disk; the filesystem adapter keeps
// a hidden sidecar (".meta-" + name) next to it, which must still
// fit the 255 bytes of NAME_MAX, hence 240 and not 255. S3 allows 1024
// bytes of key.
const (
	MaxKey     = 1024
	MaxSegment = 240
)

// TransientHeader marks an answer of the dynamic routes that no
// artifact keeps: one of many addresses of one shape of which only some
// are worth a file (a list page after a cursor past the first few). The
// artifact layer serves it as it is, without the header, and stores it
// never.
const TransientHeader = "Murlog-Transient"

// ErrCorrupt is wrapped by the error of a read whose body does not match
// its recorded metadata (length, ETag, or a missing sidecar): the
// artifact must be rendered again, not served.
var ErrCorrupt = errors.New("artifact is corrupt")

// Key names an artifact: a canonical slash-separated relative path such
// as html/@alice/01abc/index.html or assets/theme-x/app.3f2a9c.css. The
// zero Key is invalid; adapters refuse it. Only ParseKey makes one, so a
// Key in hand has been validated.
type Key struct{ s string }

// String returns the key as ParseKey accepted it.
func (k Key) String() string { return k.s }

// IsZero reports whether k is the zero Key.
func (k Key) IsZero() bool { return k.s == "" }

// ParseKey validates s as an artifact key. It refuses, rather than
// repairs, anything that is not already canonical, so two spellings can
// never name one file and a hostile path can never name a file outside
// the store:
//
//   - empty, over MaxKey bytes, or a segment over MaxSegment bytes;
//   - a leading or trailing slash, an empty segment (a//b), a "." or ".."
//     segment, or any segment starting with a dot (hidden names belong to
//     the adapters: fsstore's temp files and sidecars start with one);
//   - invalid UTF-8, or text that is not in Unicode NFKC form: a
//     decomposed "é" (e + U+0301), a ligature "ﬁ" or a full-width "Ａ"
//     reads like another key and would be a second file that looks the
//     same (the project's slugs are already compatibility-folded);
//   - any character outside the alphabet below.
//
// The alphabet is ASCII letters and digits, the four marks "-_.~" that
// URLs never encode, "@" (persona paths like /@alice) and "+", and
// outside ASCII only letters, combining marks and digits (Unicode L, M
// and N: tag pages and slugs in Japanese). Everything else is refused:
// "/" inside a segment cannot exist, "\" is a separator on some systems,
// "%" is refused because keys are not URLs — the edge decodes a request
// path once and a key that still holds "%2e%2e" or "%2f" is an attempt
// to have it decoded twice; control characters, spaces, quotes and
// shell or HTTP metacharacters have no business in a file name Apache
// serves; format characters (zero-width, bidi overrides) hide what a
// name says. Letters keep their case: on a case-insensitive filesystem
// "A" and "a" would be one file, which murlog's lower-case keys avoid.
func ParseKey(s string) (Key, error) {
	if err := check(s, false); err != nil {
		return Key{}, err
	}
	return Key{s: s}, nil
}

// MustParseKey is ParseKey for keys fixed in the code; it panics on an
// invalid one.
func MustParseKey(s string) Key {
	k, err := ParseKey(s)
	if err != nil {
		panic(err)
	}
	return k
}

// CheckPrefix validates a List prefix: "" (everything), or the start of
// a valid key, with or without a trailing slash ("html/", "html/@al").
func CheckPrefix(prefix string) error {
	if prefix == "" {
		return nil
	}
	return check(prefix, true)
}

func check(s string, prefix bool) error {
	if asciiKey(s, prefix) {
		return nil
	}
	return checkFull(s, prefix)
}

// checkFull is check the long way, for any string.
func checkFull(s string, prefix bool) error {
	const field = "key"
	switch {
	case s == "":
		return murlog.Required(field)
	case len(s) > MaxKey:
		return murlog.TooLong(field, "is %d bytes; an artifact key may have at most %d", len(s), MaxKey)
	case !utf8.ValidString(s):
		return murlog.Invalid(field, "is not valid UTF-8")
	case !norm.NFKC.IsNormalString(s):
		return murlog.Invalid(field, "is not in Unicode NFKC form (a decomposed accent, a ligature or a full-width letter)")
	}
	segs := strings.Split(s, "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		switch {
		case seg == "" && prefix && last:
			// "html/": a prefix may end with a slash.
		case seg == "":
			return murlog.Invalid(field, "has an empty segment or a leading or trailing slash")
		case seg[0] == '.':
			return murlog.Invalid(field, "has a segment starting with a dot (%q)", clip(seg))
		case len(seg) > MaxSegment:
			return murlog.TooLong(field, "has a segment of %d bytes; at most %d", len(seg), MaxSegment)
		}
		for _, r := range seg {
			if !allowed(r) {
				return murlog.Invalid(field, "has the character %U, outside the key alphabet", r)
			}
		}
	}
	return nil
}

// asciiKey reports whether s is a valid key (a prefix with prefix) made
// of ASCII alone, as nearly every key is: check's answer for it without
// its Unicode tables or allocations (every public read makes a key).
// False is no verdict: check looks at s the long way.
func asciiKey(s string, prefix bool) bool {
	if s == "" || len(s) > MaxKey {
		return false
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '/' {
			if s[i] >= utf8.RuneSelf || !asciiAllowed[s[i]] {
				return false
			}
			continue
		}
		seg := s[start:i]
		switch {
		case seg == "" && prefix && i == len(s):
		case seg == "", seg[0] == '.', len(seg) > MaxSegment:
			return false
		}
		start = i + 1
	}
	return true
}

var asciiAllowed = func() (t [utf8.RuneSelf]bool) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		t[r] = allowed(r)
	}
	return t
}()

func allowed(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_.~@+", r)
	}
	return unicode.In(r, unicode.L, unicode.M, unicode.N)
}

// clip keeps an error message short whatever the input.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	i := 40
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// Meta is what is known about an artifact without reading its body.
type Meta struct {
	ContentType string    // the Content-Type to serve it with
	ETag        string    // strong entity tag, quoted: ETagOf(SHA256)
	SHA256      string    // hex SHA-256 of the body (Verify; SRI for assets)
	Length      int64     // body length in bytes
	ModTime     time.Time // when this version was written
}

// Sum returns the hex SHA-256 of body.
func Sum(body []byte) string {
	s := sha256.Sum256(body)
	return hex.EncodeToString(s[:])
}

// ETagOf returns the strong ETag of a body whose hex SHA-256 is sum:
// "sha256-" and the first 32 hex digits (128 bits), quoted. A validator
// only has to tell versions of one URL apart, so 128 bits is ample
// (2^64 versions before an even chance of a collision), and a short tag
// costs less in every response and If-None-Match. It depends on the
// bytes alone, so every adapter, process and host gives a body the same
// tag and a rebuild that renders the same bytes keeps clients' caches
// valid.
func ETagOf(sum string) string {
	if len(sum) > 32 {
		sum = sum[:32]
	}
	return `"sha256-` + sum + `"`
}

// NewMeta returns the Meta of body written at t with content type ct.
func NewMeta(ct string, body []byte, t time.Time) Meta {
	sum := Sum(body)
	return Meta{ContentType: ct, ETag: ETagOf(sum), SHA256: sum, Length: int64(len(body)), ModTime: t}
}

// CheckPut validates the arguments of a Put, for adapters to call before
// they write anything: a valid key, a media type that parses (it becomes
// a header, so no line breaks), and a body of at most MaxSize bytes.
func CheckPut(key Key, contentType string, body []byte) error {
	if key.IsZero() {
		return murlog.Required("key")
	}
	if contentType == "" {
		return murlog.Required("content_type")
	}
	if _, _, err := mime.ParseMediaType(contentType); err != nil || strings.ContainsAny(contentType, "\r\n") {
		return murlog.Invalid("content_type", "%q is not a media type", clip(contentType))
	}
	if len(body) > MaxSize {
		return murlog.TooLong("body", "artifact %s is %d bytes; at most %d", key, len(body), MaxSize)
	}
	return nil
}

// Corrupt returns the error of a corrupt artifact: EUnavailable (it
// cannot be served until rebuilt) wrapping ErrCorrupt and the detail.
func Corrupt(key Key, format string, args ...any) error {
	return &murlog.Error{
		Code:    murlog.EUnavailable,
		Message: fmt.Sprintf("artifact %s is corrupt and must be rebuilt", key),
		Err:     fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...),
	}
}

// Store is the artifact store. Implementations are safe for concurrent
// use, by goroutines and (for fsstore) by processes sharing the root.
// Consumers that need less should declare a narrower interface.
type Store interface {
	// Get returns the body and metadata of key; ENotFound when there is
	// none, an error wrapping ErrCorrupt when the body does not match its
	// metadata. The caller closes the body.
	Get(ctx context.Context, key Key) (io.ReadSeekCloser, Meta, error)
	// Stat returns the metadata of key without reading its body.
	Stat(ctx context.Context, key Key) (Meta, error)
	// Put stores body under key, replacing any previous version whole: a
	// reader sees the old version or the new one, never a mixture.
	// EInvalid (nothing written) for a bad content type or a body over
	// MaxSize.
	Put(ctx context.Context, key Key, contentType string, body []byte) (Meta, error)
	// Delete removes key; a missing key is not an error.
	Delete(ctx context.Context, key Key) error
	// List calls fn with every key starting with prefix (CheckPrefix), in
	// no particular order, and stops at the first error fn returns.
	List(ctx context.Context, prefix string, fn func(Key) error) error
}

// Verify reads key's whole body from s and checks it against its
// metadata (length and SHA-256): nil when they match, an error wrapping
// ErrCorrupt when they do not, or the error of the read. It is what
// "murlog artifacts check" runs; Get alone checks only what costs no
// read of the body.
func Verify(ctx context.Context, s Store, key Key) error {
	body, meta, err := s.Get(ctx, key)
	if err != nil {
		return err
	}
	defer body.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(body, MaxSize+1))
	if err != nil {
		return murlog.Internal(fmt.Errorf("artifact %s: read: %w", key, err))
	}
	if n != meta.Length {
		return Corrupt(key, "body is %d bytes, metadata says %d", n, meta.Length)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != meta.SHA256 {
		return Corrupt(key, "body hashes to %s, metadata says %s", sum, meta.SHA256)
	}
	return nil
}
