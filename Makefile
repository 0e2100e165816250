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
# -race turns on checkptr, which checks every unsafe.Pointer conversion;
# modernc.org's SQLite is C transpiled to Go and makes such a conversion
# at nearly every step, so checkptr spent most of the SQLite-heavy tests'
# time (fanout's 10,000-recipient runs 29 s → 8 s). It is off for
# modernc.org's packages only: the race detector stays on everywhere, and
# checkptr stays on for our code and every other dependency.
RACE_GCFLAGS := -gcflags='modernc.org/...=-d=checkptr=0'

test:
	go vet ./...
	go test -race $(RACE_GCFLAGS) -count=1 -timeout 30m -json ./... 2>&1 | go run ./internal/testsum

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
# trivial server (bench/blog_load_test.go, about 2 minutes).
load:
	MURLOG_BENCH_LOAD=1 go test -run Load -v ./bench/
