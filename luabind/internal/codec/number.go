package codec

import lua "github.com/yuin/gopher-lua"

// smallNumbers holds the integers 0 to len-1 boxed as Lua values once: a
// Go function pushing a position or a count (string.find's, the payload's
// small numbers) pushes one of these instead of boxing a float64 anew.
var smallNumbers = func() (s [1024]lua.LValue) {
	for i := range s {
		s[i] = lua.LNumber(i)
	}
	return s
}()

// Number returns n as a Lua number, boxed once when it is a small
// non-negative integer.
func Number(n int) lua.LValue {
	if n >= 0 && n < len(smallNumbers) {
		return smallNumbers[n]
	}
	return lua.LNumber(n)
}
