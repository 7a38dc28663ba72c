//go:build race

package security

// raceEnabled: the race detector slows the Lua conversion of a large payload
// tenfold, so the tests that push many of them scale their sizes down.
const raceEnabled = true
