//go:build race

package packs_test

// raceEnabled: the race detector is on (see agentsFor).
const raceEnabled = true
