package codec

import (
	"hash/fnv"
	"runtime/debug"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// WrittenAgainst is the gopher-lua release whose internals this package
// reads: the bytecode layout and opcodes (reuse_analysis.go), the fields of
// lua.LTable (table.go, stock.go) and the call frames (CalledBy).
const WrittenAgainst = "v1.1.2"

const gopherLuaPath = "github.com/yuin/gopher-lua"

// Pinned reports whether the gopher-lua this program runs is the release
// the internals were written against. A host module may select another
// release (minimal version selection picks the highest any module asks
// for) or replace it; then every reader of internals turns itself off
// (DirectTables, CalledBy, the reuse analysis, the compiled-chunk cache)
// and luahook runs on gopher-lua's public API alone: slower, never wrong.
var Pinned = pinnedBy(debug.ReadBuildInfo())

// pinnedBy decides Pinned from the program's module list; a program
// without one (a test binary lists no dependencies) is judged by the
// bytecode fingerprint alone.
func pinnedBy(bi *debug.BuildInfo, ok bool) bool {
	if ok {
		for _, d := range bi.Deps {
			if d.Path == gopherLuaPath {
				return d.Version == WrittenAgainst && d.Replace == nil && bytecodeFingerprint() == writtenFingerprint
			}
		}
	}
	return bytecodeFingerprint() == writtenFingerprint
}

// fingerprintChunk uses the instructions the reuse analysis reads most
// (calls, table reads and writes, concatenation, upvalues, loops, returns).
const fingerprintChunk = `local a, b = ...
local t = {1, 2, x = a.y}
for k, v in pairs(t) do t[k] = v .. b end
local function f(z) return a[z], #t end
return f(b), t, ...`

// writtenFingerprint is bytecodeFingerprint under WrittenAgainst.
const writtenFingerprint = 0x88707143

// bytecodeFingerprint hashes the instruction words (and constants' count)
// gopher-lua compiles fingerprintChunk to: another encoding or numbering
// of the opcodes changes it.
func bytecodeFingerprint() uint32 {
	chunk, err := parse.Parse(strings.NewReader(fingerprintChunk), "fingerprint")
	if err != nil {
		return 0
	}
	proto, err := lua.Compile(chunk, "fingerprint")
	if err != nil {
		return 0
	}
	h := fnv.New32a()
	var walk func(p *lua.FunctionProto)
	walk = func(p *lua.FunctionProto) {
		for _, w := range p.Code {
			h.Write([]byte{byte(w), byte(w >> 8), byte(w >> 16), byte(w >> 24)})
		}
		h.Write([]byte{byte(len(p.Constants)), p.NumParameters, p.IsVarArg, p.NumUsedRegisters})
		for _, c := range p.FunctionPrototypes {
			walk(c)
		}
	}
	walk(proto)
	return h.Sum32()
}
