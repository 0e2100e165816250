//go:build race

package social_test

// raceDetector is set under -race, where SQLite runs ~20× slower: the
// month simulation then shrinks (the prune has no concurrency to check).
const raceDetector = true
