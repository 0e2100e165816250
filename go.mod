module github.com/murlog/murlog

go 1.26.8

require (
	github.com/google/uuid v1.6.0
	github.com/mailgun/raymond/v2 v2.0.48 // Handlebars for the public blog's themes (the seed's template engine)
	github.com/microcosm-cc/bluemonday v1.0.27 // test-only: oracle of markup's FuzzRemotePolicyVsBluemonday
	github.com/mmcdole/gofeed v1.4.2 // test-only: the feed reader blog/feed's documents must satisfy
	github.com/piglig/go-qr v1.1.0 // tests only: package qr's encoder is checked against it module for module, and its decoder reads the drawn SVG back
	github.com/yuin/goldmark v1.8.7
	golang.org/x/crypto v0.59.0
	golang.org/x/net v0.62.0
	golang.org/x/sys v0.50.0
	golang.org/x/text v0.44.0 // Unicode normalisation of article slugs (post/slug.go); already required by x/net
	modernc.org/libc v1.80.1
	modernc.org/sqlite v1.62.0
)

// Test-only: Prometheus's own text parser reads /metrics in
// metrics/promtext_test.go; nothing outside tests imports them.
require (
	github.com/prometheus/client_model v0.6.3
	github.com/prometheus/common v0.73.1
)

require github.com/andybalholm/brotli v1.3.0

require (
	github.com/aymerick/douceur v0.2.0 // indirect
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/gorilla/css v1.0.1 // indirect
	github.com/mattn/go-isatty v0.0.24 // indirect
	github.com/mmcdole/goxpp/v2 v2.0.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/ncruces/go-strftime v1.1.0 // indirect
	github.com/pandatix/go-abnf v0.5.3 // indirect
	github.com/remyoudompheng/bigfft v0.0.0-20230129092748-24d4a6f8daec // indirect
	github.com/sirupsen/logrus v1.8.1 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
	modernc.org/mathutil v1.7.1 // indirect
	modernc.org/memory v1.12.1 // indirect
)

// Patched copies whose package initialisation is made lazy: every CGI
// request starts a new process, and these three built tables and
// compiled regular expressions at start-up that a post page never uses
// (2 ms of a 15 ms request). third_party/README.md says what differs
// from upstream and how to move to a new version.
replace (
	github.com/mailgun/raymond/v2 => ./third_party/raymond
	github.com/yuin/goldmark => ./third_party/goldmark
	golang.org/x/net => ./third_party/x-net
)
