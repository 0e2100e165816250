//go:build !race

package sqlite

// raceSlowdown is 1 outside -race builds (see race.go).
const raceSlowdown = 1
