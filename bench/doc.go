// Package bench holds murlog's end-to-end performance benchmarks. They
// drive the app's http.Handler in process (httptest.NewRecorder and
// NewRequest, no TCP), so every figure includes the request logger, the
// setup guard, the auth middleware and JSON-RPC decoding and encoding, over
// a real SQLite file in WAL mode seeded with thousands of posts.
//
// The benchmarks live in the _test.go files; see docs/benchmarks.md for the
// targets, the measured figures and how to reproduce them:
//
//	go test ./bench/ -run '^$' -bench . -benchtime 2s -count 5
package bench
