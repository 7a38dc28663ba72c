//go:build !race

package hooksd_test

const raceEnabled = false
