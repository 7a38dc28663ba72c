// Package codec converts between JSON text and the Lua values of one
// gopher-lua state: the payload's toolInput, json.encode and json.decode,
// the store's tables, a mutate's input written alongside the text it came
// as (origin.go). Tables built for a call come from a stock of earlier
// calls' tables (stock.go) when the hook provably keeps none of them
// (reuse_analysis.go), and are filled through a mirror of lua.LTable's
// fields (table.go). Both of these depend on gopher-lua v1.1.2's internals;
// gopherlua_version_test.go fails, naming what to re-check, on any other
// version.
package codec

import (
	"fmt"

	lua "github.com/yuin/gopher-lua"
)

// MaxDepth bounds the nesting of JSON documents and of tables encoded to JSON.
const MaxDepth = 1000

// Codec is the JSON<->Lua conversion of one state. It is used by one
// goroutine at a time, as its state is. The caller sets the JSON marks (Null,
// ArrayMT, ObjectMT) when it opens the json module, and calls Init once.
type Codec struct {
	L        *lua.LState
	Null     *lua.LUserData // json.null
	ArrayMT  *lua.LTable    // marks tables that encode as JSON arrays
	ObjectMT *lua.LTable    // marks tables that encode as JSON objects
	// MaxValues caps the JSON values of one decoded document; 0 or less: no cap.
	MaxValues int
	// MaxStringBytes caps every JSON text the encoder writes.
	MaxStringBytes int

	Dec   Decoder
	Enc   Encoder
	Stock Stock // the tables of earlier payloads, for the next one
}

// Init binds the codec to L with its caps.
func (c *Codec) Init(L *lua.LState, maxValues, maxStringBytes int) {
	c.L, c.MaxValues, c.MaxStringBytes = L, maxValues, maxStringBytes
	c.Dec.c, c.Enc.c = c, c
}

// MiB renders a byte count for error messages: "16 MiB" when it is a whole
// number of MiB, else "N bytes".
func MiB(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
