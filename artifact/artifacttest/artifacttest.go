// Package artifacttest is the contract every artifact store adapter must
// meet. An adapter's tests call Run with a function opening a fresh,
// empty store; the same suite runs on the filesystem adapter today and
// on S3 later.
package artifacttest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/artifact"
)

// Opener returns a new, empty store.
type Opener func(t *testing.T) artifact.Store

// Run runs the whole contract, each part in parallel on its own store.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, artifact.Store)
	}{
		{"RoundTrip", testRoundTrip},
		{"EmptyBody", testEmptyBody},
		{"UnicodeKey", testUnicodeKey},
		{"Overwrite", testOverwrite},
		{"Delete", testDelete},
		{"NotFound", testNotFound},
		{"List", testList},
		{"ListStops", testListStops},
		{"SizeLimit", testSizeLimit},
		{"BadPut", testBadPut},
		{"Cancelled", testCancelled},
		{"Verify", testVerify},
		{"ConcurrentPut", testConcurrentPut},
		{"GetDuringPut", testGetDuringPut},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, open(t))
		})
	}
}

var ctx = context.Background()

func key(s string) artifact.Key { return artifact.MustParseKey(s) }

func code(err error) murlog.Code { return murlog.ErrorCode(err) }

func put(t *testing.T, s artifact.Store, k, ct string, body []byte) artifact.Meta {
	t.Helper()
	m, err := s.Put(ctx, key(k), ct, body)
	if err != nil {
		t.Fatalf("Put(%s, %d bytes): %v", k, len(body), err)
	}
	return m
}

// get reads key whole and checks that the body matches the Meta Get gave.
func get(t *testing.T, s artifact.Store, k string) ([]byte, artifact.Meta) {
	t.Helper()
	body, m, err := read(s, key(k))
	if err != nil {
		t.Fatalf("Get(%s): %v", k, err)
	}
	return body, m
}

// read is Get plus reading the body, with the body checked against its
// Meta: a store must never hand out a body its Meta does not describe.
func read(s artifact.Store, k artifact.Key) ([]byte, artifact.Meta, error) {
	rc, m, err := s.Get(ctx, k)
	if err != nil {
		return nil, m, err
	}
	defer rc.Close()
	body, err := io.ReadAll(rc)
	if err != nil {
		return nil, m, fmt.Errorf("reading the body: %w", err)
	}
	if int64(len(body)) != m.Length || artifact.Sum(body) != m.SHA256 || m.ETag != artifact.ETagOf(m.SHA256) {
		return body, m, fmt.Errorf("body of %d bytes (sha256 %s) under Meta %+v", len(body), artifact.Sum(body), m)
	}
	return body, m, nil
}

func wantMeta(t *testing.T, what string, got artifact.Meta, ct string, body []byte) {
	t.Helper()
	want := artifact.NewMeta(ct, body, got.ModTime)
	if got != want {
		t.Errorf("%s = %+v; want %+v", what, got, want)
	}
	if got.ModTime.IsZero() {
		t.Errorf("%s: ModTime is zero", what)
	}
}

func testRoundTrip(t *testing.T, s artifact.Store) {
	const k, ct = "html/@alice/01abc/index.html", "text/html; charset=utf-8"
	body := []byte("<!doctype html><title>hello</title>")
	m := put(t, s, k, ct, body)
	wantMeta(t, "Put's Meta", m, ct, body)
	got, gm := get(t, s, k)
	if !bytes.Equal(got, body) {
		t.Errorf("Get body = %q; want %q", got, body)
	}
	if gm != m {
		t.Errorf("Get Meta = %+v; want Put's %+v", gm, m)
	}
	sm, err := s.Stat(ctx, key(k))
	if err != nil || sm != m {
		t.Errorf("Stat = %+v, %v; want Put's %+v", sm, err, m)
	}
	if want := `"sha256-` + artifact.Sum(body)[:32] + `"`; m.ETag != want {
		t.Errorf("ETag = %s; want %s", m.ETag, want)
	}
}

func testEmptyBody(t *testing.T, s artifact.Store) {
	m := put(t, s, "ap/@alice/empty.json", "application/json", nil)
	wantMeta(t, "Put's Meta", m, "application/json", nil)
	if got, _ := get(t, s, "ap/@alice/empty.json"); len(got) != 0 {
		t.Errorf("Get body = %q; want empty", got)
	}
}

func testUnicodeKey(t *testing.T, s artifact.Store) {
	const k = "html/tags/日本語/index.html"
	put(t, s, k, "text/html", []byte("tag"))
	if got, _ := get(t, s, k); string(got) != "tag" {
		t.Errorf("Get(%s) = %q; want tag", k, got)
	}
}

func testOverwrite(t *testing.T, s artifact.Store) {
	const k = "ap/@alice/outbox.json"
	put(t, s, k, "application/activity+json", []byte(`{"v":1}`))
	for _, v := range []struct{ ct, body string }{
		{"application/activity+json", `{"v":2}`},               // same length
		{"application/ld+json", `{"version":3,"longer":true}`}, // longer, new type
		{"application/json", `{}`},                             // shorter
	} {
		m := put(t, s, k, v.ct, []byte(v.body))
		got, gm := get(t, s, k)
		if string(got) != v.body || gm != m {
			t.Errorf("after Put(%s), Get = %q %+v; want %q %+v", v.body, got, gm, v.body, m)
		}
		wantMeta(t, "Get's Meta", gm, v.ct, []byte(v.body))
	}
}

func testDelete(t *testing.T, s artifact.Store) {
	const k = "html/@alice/01abc/index.html"
	put(t, s, k, "text/html", []byte("x"))
	put(t, s, "html/@alice/01abd/index.html", "text/html", []byte("neighbour"))
	if err := s.Delete(ctx, key(k)); err != nil {
		t.Fatalf("Delete(%s): %v", k, err)
	}
	if _, _, err := s.Get(ctx, key(k)); code(err) != murlog.ENotFound {
		t.Errorf("Get after Delete: %v; want not_found", err)
	}
	if _, err := s.Stat(ctx, key(k)); code(err) != murlog.ENotFound {
		t.Errorf("Stat after Delete: %v; want not_found", err)
	}
	if err := s.Delete(ctx, key(k)); err != nil {
		t.Errorf("Delete of a deleted key: %v; want nil", err)
	}
	if err := s.Delete(ctx, key("never/was.html")); err != nil {
		t.Errorf("Delete of a missing key: %v; want nil", err)
	}
	if got := list(t, s, ""); !slices.Equal(got, []string{"html/@alice/01abd/index.html"}) {
		t.Errorf("List after Delete = %q; want the neighbour only", got)
	}
	if err := s.Delete(ctx, artifact.Key{}); code(err) != murlog.EInvalid {
		t.Errorf("Delete(zero Key): %v; want invalid", err)
	}
}

func testNotFound(t *testing.T, s artifact.Store) {
	k := key("html/@nobody/index.html")
	if _, _, err := s.Get(ctx, k); code(err) != murlog.ENotFound {
		t.Errorf("Get(missing) = %v; want not_found", err)
	}
	if _, err := s.Stat(ctx, k); code(err) != murlog.ENotFound {
		t.Errorf("Stat(missing) = %v; want not_found", err)
	}
	// A key that is only a folder of other keys is not an artifact.
	put(t, s, "html/@alice/index.html", "text/html", []byte("x"))
	if _, _, err := s.Get(ctx, key("html/@alice")); code(err) != murlog.ENotFound {
		t.Errorf("Get(html/@alice), a prefix of a key = %v; want not_found", err)
	}
	if _, _, err := s.Get(ctx, artifact.Key{}); code(err) != murlog.EInvalid {
		t.Errorf("Get(zero Key) = %v; want invalid", err)
	}
}

func list(t *testing.T, s artifact.Store, prefix string) []string {
	t.Helper()
	var got []string
	if err := s.List(ctx, prefix, func(k artifact.Key) error {
		got = append(got, k.String())
		return nil
	}); err != nil {
		t.Fatalf("List(%q): %v", prefix, err)
	}
	slices.Sort(got)
	return got
}

func testList(t *testing.T, s artifact.Store) {
	keys := []string{
		"ap/@alice/outbox.json",
		"assets/theme-x/app.3f2a9c.css",
		"html/@alice/01abc/index.html",
		"html/@alice/01abd/index.html",
		"html/@alicia/index.html",
		"html/@bob/index.html",
		"html/index.html",
	}
	for _, k := range keys {
		put(t, s, k, "text/plain", []byte(k))
	}
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"", keys},
		{"html/@alice/", keys[2:4]},
		{"html/@ali", keys[2:5]},
		{"html/", keys[2:7]},
		{"html/@alice/01abc/index.html", keys[2:3]},
		{"ap", keys[0:1]},
		{"nothing/", nil},
		{"html/@carol/", nil},
	} {
		if got := list(t, s, tc.prefix); !slices.Equal(got, tc.want) {
			t.Errorf("List(%q) = %q; want %q", tc.prefix, got, tc.want)
		}
	}
	for _, bad := range []string{"../", "/html", "html//", "html/.tmp-"} {
		if err := s.List(ctx, bad, func(artifact.Key) error { return nil }); code(err) != murlog.EInvalid {
			t.Errorf("List(%q) = %v; want invalid", bad, err)
		}
	}
}

func testListStops(t *testing.T, s artifact.Store) {
	for i := range 5 {
		put(t, s, fmt.Sprintf("x/%d.json", i), "application/json", []byte("{}"))
	}
	stop := errors.New("enough")
	n := 0
	err := s.List(ctx, "x/", func(artifact.Key) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("List with fn failing on its 2nd call = %v after %d calls; want fn's error after 2", err, n)
	}
}

func testSizeLimit(t *testing.T, s artifact.Store) {
	big := make([]byte, artifact.MaxSize+1)
	if _, err := s.Put(ctx, key("big/over.bin"), "application/octet-stream", big); code(err) != murlog.EInvalid {
		t.Fatalf("Put of MaxSize+1 bytes = %v; want invalid", err)
	}
	if _, _, err := s.Get(ctx, key("big/over.bin")); code(err) != murlog.ENotFound {
		t.Errorf("Get after a refused Put = %v; want not_found", err)
	}
	if got := list(t, s, ""); len(got) != 0 {
		t.Errorf("List after a refused Put = %q; want nothing", got)
	}
	m := put(t, s, "big/max.bin", "application/octet-stream", big[:artifact.MaxSize])
	if m.Length != artifact.MaxSize {
		t.Errorf("Put of MaxSize bytes: Length %d; want %d", m.Length, artifact.MaxSize)
	}
}

func testBadPut(t *testing.T, s artifact.Store) {
	for _, ct := range []string{"", "text/html\r\nX-Injected: 1", "not a type", "text/html; charset"} {
		if _, err := s.Put(ctx, key("a/b.html"), ct, []byte("x")); code(err) != murlog.EInvalid {
			t.Errorf("Put with content type %q = %v; want invalid", ct, err)
		}
	}
	if _, err := s.Put(ctx, artifact.Key{}, "text/html", []byte("x")); code(err) != murlog.EInvalid {
		t.Errorf("Put(zero Key) = %v; want invalid", err)
	}
	if got := list(t, s, ""); len(got) != 0 {
		t.Errorf("List after refused Puts = %q; want nothing", got)
	}
}

func testCancelled(t *testing.T, s artifact.Store) {
	c, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Put(c, key("a/b.html"), "text/html", []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a cancelled context = %v; want context.Canceled", err)
	}
	if got := list(t, s, ""); len(got) != 0 {
		t.Errorf("List after a cancelled Put = %q; want nothing", got)
	}
}

func testVerify(t *testing.T, s artifact.Store) {
	put(t, s, "a/b.html", "text/html", bytes.Repeat([]byte("verify "), 1000))
	if err := artifact.Verify(ctx, s, key("a/b.html")); err != nil {
		t.Errorf("Verify of a good artifact: %v", err)
	}
	if err := artifact.Verify(ctx, s, key("a/missing.html")); code(err) != murlog.ENotFound {
		t.Errorf("Verify of a missing artifact: %v; want not_found", err)
	}
}

// versions returns n distinct bodies of distinct lengths, the ith
// starting with its number, so a torn read cannot pass for a version.
func versions(n int) map[string]bool {
	vs := make(map[string]bool, n)
	for i := range n {
		vs[fmt.Sprintf("%02d:%s", i, bytes.Repeat([]byte{byte('a' + i)}, 4096+997*i))] = true
	}
	return vs
}

func testConcurrentPut(t *testing.T, s artifact.Store) {
	const k = "html/@alice/hot/index.html"
	vs := versions(16)
	var wg sync.WaitGroup
	errs := make(chan error, len(vs))
	for v := range vs {
		wg.Go(func() {
			if _, err := s.Put(ctx, key(k), "text/html", []byte(v)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Put: %v", err)
	}
	got, _ := get(t, s, k)
	if !vs[string(got)] {
		t.Errorf("after 16 concurrent Puts, Get = %d bytes starting %.8q; want one whole version", len(got), got)
	}
	if err := artifact.Verify(ctx, s, key(k)); err != nil {
		t.Errorf("Verify after concurrent Puts: %v", err)
	}
}

func testGetDuringPut(t *testing.T, s artifact.Store) {
	const k = "ap/@alice/actor.json"
	vs := versions(8)
	var list []string
	for v := range vs {
		list = append(list, v)
	}
	put(t, s, k, "application/activity+json", []byte(list[0]))
	var writers, readers sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, 64)
	report := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}
	for w := range 4 {
		writers.Go(func() {
			for i := range 25 {
				if _, err := s.Put(ctx, key(k), "application/activity+json", []byte(list[(w+i)%len(list)])); err != nil {
					report(fmt.Errorf("Put: %w", err))
				}
			}
		})
	}
	reads := make([]int, 4)
	for r := range reads {
		readers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				body, _, err := read(s, key(k))
				switch {
				case err != nil:
					report(fmt.Errorf("Get during Put: %w", err))
				case !vs[string(body)]:
					report(fmt.Errorf("Get during Put: %d bytes starting %.8q, not a whole version", len(body), body))
				}
				reads[r]++
			}
		})
	}
	writers.Wait()
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d reads during 100 writes", reads[0]+reads[1]+reads[2]+reads[3])
}
