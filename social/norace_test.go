//go:build !race

package social_test

const raceDetector = false
