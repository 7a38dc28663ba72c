//go:build race

package packs_test

// raceEnabled: the race detector is on (see agents).
const raceEnabled = true
