//go:build !race

package luabind

const raceEnabled = false
