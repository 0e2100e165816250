package prerender

import (
	"bytes"
	"compress/gzip"
	"io"
	"mime"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
)

// An encoding is a precompressed variant of an artifact, stored as K plus
// its suffix beside K, so that Apache's mod_mime reads the type from K's
// extension and the encoding from the suffix.
type encoding struct {
	name   string // the Content-Encoding
	suffix string
	// small holds reset encoders for bodies under largeBody: a new brotli
	// writer allocates and clears about a megabyte of tables, a gzip one
	// 800 KB — 0.8 ms of a 1.5 KB note's 0.9 ms, against 0.15 ms reset,
	// and a publish compresses about twenty documents, under the crowd it
	// is answering meanwhile. large makes a large body's encoder (faster
	// levels), never pooled: see encode.
	small  sync.Pool
	large  func() resetter
	decode func(r io.Reader) (io.Reader, error)
}

// resetter is an encoder the pools keep: brotli's and gzip's writers.
type resetter interface {
	io.WriteCloser
	Reset(w io.Writer)
}

// encodings, the one served first when a client takes several: brotli,
// then gzip, which every client takes. A page: gzip at its best; brotli at
// quality 5, which takes about gzip's time and is an eighth smaller on a
// persona page (2,027 bytes against 2,306 from 9,797): its best (11) is
// a fifth smaller but twenty times slower in pure Go — 60 ms a page, too
// much for the pages a publish renders before it answers. A large body (a
// sitemap of 5,000 addresses, 630 KB): gzip 6 and brotli 4, 7 and 13 ms
// against 23 and 29 ms, within 1% of the size.
var encodings = [...]*encoding{
	{name: "br", suffix: ".br",
		// A window of 64 KB holds a whole small body; the default (4 MB)
		// would make each pooled writer hold a 4 MB ring buffer.
		small:  sync.Pool{New: func() any { return brotli.NewWriterOptions(nil, brotli.WriterOptions{Quality: 5, LGWin: 16}) }},
		large:  func() resetter { return brotli.NewWriterLevel(nil, 4) },
		decode: func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }},
	{name: "gzip", suffix: ".gz",
		small:  sync.Pool{New: func() any { zw, _ := gzip.NewWriterLevel(nil, gzip.BestCompression); return zw }},
		large:  func() resetter { zw, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression); return zw },
		decode: func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
}

// encode returns body in enc, with a pooled encoder for a small body. A
// large one (a sitemap: rare, and its encoders hold several megabytes)
// gets a new encoder, dropped after: pooled, a few renders side by side
// kept tens of megabytes of them until two collections had passed.
func (enc *encoding) encode(body []byte) []byte {
	var w resetter
	if len(body) >= largeBody {
		w = enc.large()
	} else {
		w = enc.small.Get().(resetter)
		// Pooled still pointing at b: a reset there would clear the tables
		// a second time, and b's bytes are the caller's variant anyway.
		defer enc.small.Put(w)
	}
	var b bytes.Buffer
	w.Reset(&b)
	w.Write(body)
	w.Close()
	return b.Bytes()
}

// largeBody is where a body is large enough to take the faster levels.
const largeBody = 64 << 10

// variants are an artifact's precompressed bodies, by encodings' index;
// nil where it has none.
type variants [len(encodings)][]byte

// minCompress is the smallest body worth precompressed variants: below it
// the headers cost more than the saving.
const minCompress = 512

// compress returns body's variants, or none for a body of a type that
// does not shrink or too small to gain.
func compress(contentType string, body []byte) variants {
	var vs variants
	if !compressible(contentType) || len(body) < minCompress {
		return vs
	}
	for i, enc := range encodings {
		vs[i] = enc.encode(body)
	}
	// Brotli may lose to gzip on long repetitive XML (a sitemap): then
	// only gzip is kept, and served.
	if len(vs[0]) >= len(vs[1]) {
		vs[0] = nil
	}
	return vs
}

// compressible reports whether a body of this type shrinks: text, JSON,
// XML, SVG — not images or fonts already compressed.
func compressible(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "json") || strings.HasSuffix(mt, "xml") ||
		mt == "image/svg+xml" || mt == "application/javascript"
}

// decodesTo reports whether v is body in encoding i: a variant written
// before its plain body was replaced must not be served for the new one.
func decodesTo(i int, v, body []byte) bool {
	r, err := encodings[i].decode(bytes.NewReader(v))
	if err != nil {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(len(body))+1))
	return err == nil && bytes.Equal(b, body)
}

// isVariant reports whether an artifact key names a precompressed variant.
func isVariant(key string) bool {
	for _, enc := range encodings {
		if strings.HasSuffix(key, enc.suffix) {
			return true
		}
	}
	return false
}

// pick returns the index of the variant to send for Accept-Encoding ae:
// the first of encodings the client takes (not with q=0) that vs has;
// -1 for the plain body.
func pick(ae string, vs *variants) int {
	if ae == "" {
		return -1
	}
	for i, enc := range encodings {
		if vs[i] != nil && accepts(ae, enc.name) {
			return i
		}
	}
	return -1
}

// accepts reports whether Accept-Encoding ae takes the coding name (named,
// not with q=0).
func accepts(ae, name string) bool {
	for _, part := range strings.Split(ae, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), name) {
			continue
		}
		q := strings.ReplaceAll(params, " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
