# murlog — developer commands. `make test` is the command CI runs.
.PHONY: test build web run bench load

# The test pipeline must fail when go test fails, not only when the
# summariser does.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

# go test -json, summarised by internal/testsum: package result lines, the
# output of failing tests, and every skipped test with its reason (a
# skipped real-engine or Apache test must be visible).
#
# -race stays on for everything; checkptr, which -race turns on, is turned
# off for modernc.org's SQLite only: that code is C translated to Go, full
# of pointer arithmetic checkptr checks on every access (it halves the
# time of the packages that use SQLite), and none of it is ours to fix.
RACEFLAGS := -race -gcflags='modernc.org/...=-d=checkptr=0'

test:
	go vet ./...
	go test $(RACEFLAGS) -count=1 -timeout 30m -json ./... 2>&1 | go run ./internal/testsum

build:
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o murlog ./cmd/murlog

# The owner's app (web/spa, Preact + Vite) built into web/dist, the
# default web_dir, from the committed lockfile. --ignore-scripts: no
# package may run an install script (or download a browser).
web:
	cd web/spa && npm ci --no-audit --no-fund --ignore-scripts && npm run build

# The address `make run` listens on: `make run LISTEN=0.0.0.0:8080` (or
# LISTEN in the environment) to open it to other machines or another port.
LISTEN ?= 127.0.0.1:8080

run: web
	go build -o murlog ./cmd/murlog && MURLOG_SCHEME=http ./murlog serve --listen $(LISTEN)

bench:
	go test -run '^$$' -bench . -benchtime 2s -count 5 ./bench/ ./store/... ./markup/

# Actor JSON and WebFinger of a real murlog serve against a trivial server
# returning the same bytes (bench/federation_load_test.go, about 45 s), and
# the inbox under signed Creates and garbage (bench/inbox_load_test.go,
# about 2 minutes), and one post fanned out to 10,000 followers on 1,000
# loopback servers (bench/fanout_load_test.go, about 10 s), and the blog's
# post and site pages of a 5,000-post site by wrk -t2 -c32 against a
# trivial server (bench/blog_load_test.go, about 2 minutes), and issue 16's
# boost spike, open loop with a new connection per visitor (internal/loadgen):
# 6,000 visitors in 60 s (5,000 servers: actor, note, preview; 1,000 readers:
# post page, its theme assets, home) while the owner posts a note a second,
# against murlog serve and a trivial server replaying its bytes
# (bench/spike_load_test.go TestSpikeLoad, about 2.5 minutes), the limit
# finder, which raises the rate against the trivial server to its ceiling R
# and runs murlog serve on 5,000 posts at 60% of R (TestSpikeLimitLoad,
# about 4 minutes), and the same spike against murlog as CGI under Apache,
# counting murlog processes and their memory, against Apache serving the
# same bytes as files (e2e/spike_cgi_load_test.go, about 2.5 minutes), and
# a publish on a 50,000-post site as CGI under Apache, timed until Apache
# serves it everywhere (e2e/publish_cgi_load_test.go, a few minutes).
# MURLOG_SPIKE_SECONDS=10 makes the spikes short; docs/benchmarks.md has
# the rest.
load:
	MURLOG_BENCH_LOAD=1 go test -run Load -v -timeout 60m ./bench/
	MURLOG_BENCH_LOAD=1 go test -run 'SpikeCGILoad|PublishVisibilityCGILoad' -v -timeout 30m ./e2e/
