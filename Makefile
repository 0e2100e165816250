# murlog — developer commands. `make test` is the command CI runs.
.PHONY: test build run bench

test:
	go vet ./...
	go test -race -count=1 ./...

build:
	CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o murlog ./cmd/murlog

run:
	go build -o murlog ./cmd/murlog && MURLOG_SCHEME=http ./murlog serve --listen 127.0.0.1:8080

bench:
	go test -run '^$$' -bench . -benchtime 2s -count 5 ./bench/ ./store/... ./markup/
