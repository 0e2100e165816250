package prerender

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/andybalholm/brotli"
)

// TestPooledEncodersAreFresh: the pooled encoders give the bytes a new
// writer at the same settings gives, body after body of both sizes, and
// compressing side by side never mixes two bodies.
func TestPooledEncodersAreFresh(t *testing.T) {
	fresh := func(i int, body []byte) []byte {
		var b bytes.Buffer
		large := len(body) >= largeBody
		switch {
		case i == 0 && large:
			w := brotli.NewWriterLevel(&b, 4)
			w.Write(body)
			w.Close()
		case i == 0:
			w := brotli.NewWriterOptions(&b, brotli.WriterOptions{Quality: 5, LGWin: 16})
			w.Write(body)
			w.Close()
		default:
			level := gzip.BestCompression
			if large {
				level = gzip.DefaultCompression
			}
			w, _ := gzip.NewWriterLevel(&b, level)
			w.Write(body)
			w.Close()
		}
		return b.Bytes()
	}
	bodies := [][]byte{
		[]byte(strings.Repeat("<p>murlog は一人のための ActivityPub サーバーです。</p>\n", 40)),
		[]byte(strings.Repeat(`{"type":"Note","content":"hello"}`, 30)),
		[]byte(strings.Repeat("<url><loc>https://example.com/@alice/0190</loc></url>\n", 2000)), // large
		[]byte(strings.Repeat("z", 600)),
	}
	for round := 0; round < 2; round++ {
		for _, body := range bodies {
			for i, enc := range encodings {
				if got, want := enc.encode(body), fresh(i, body); !bytes.Equal(got, want) {
					t.Fatalf("round %d, %s of a %d-byte body: %d bytes, a new writer gives %d", round, enc.name, len(body), len(got), len(want))
				}
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for n := 0; n < 8; n++ {
				body := []byte(fmt.Sprintf("%s goroutine %d body %d", bodies[n%2], g, n))
				vs := compress("text/html", body)
				for i := range vs {
					if vs[i] != nil && !decodesTo(i, vs[i], body) {
						errs <- fmt.Errorf("goroutine %d body %d: the %s variant is not its body", g, n, encodings[i].name)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkCompress is what a publish pays per document for its
// precompressed variants: a note's JSON (1.5 KB) and a page (8.5 KB).
func BenchmarkCompress(b *testing.B) {
	for _, size := range []int{1500, 8500} {
		body := []byte(strings.Repeat("<p>murlog は一人のための ActivityPub サーバーです。Posts federate as notes.</p>\n", size/90+1))[:size]
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			for b.Loop() {
				compress("text/html", body)
			}
		})
	}
}
