//go:build !race

package packs_test

const raceEnabled = false
