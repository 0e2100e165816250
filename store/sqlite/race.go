//go:build race

package sqlite

// raceSlowdown scales wall-time budgets in a binary built with -race,
// which only tests are: the race detector runs SQLite's transpiled C 10
// to 20 times slower, and a search of a test's few posts must not pass
// for "too expensive".
const raceSlowdown = 20
