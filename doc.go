// Package luahook holds the contract shared by every part of luahook: the
// lifecycle events, the payload every hook sees (Input, its fields listed by
// Input.Fields, decoded strictly by DecodeInput), the answer every hook
// gives (Outcome), the typed failures, and the Hook interface that a Lua
// function, a subprocess, an HTTP endpoint and a Go function all implement.
//
// The engine package wires everything together; this package depends only on
// the standard library.
package luahook
