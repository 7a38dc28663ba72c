package security

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/luahook/luahook/engine"
	"github.com/luahook/luahook/host"
)

type repo struct {
	Branch  string
	Commits []string
	Labels  map[string]int
	Parent  *repo
	Ch      chan int
	Fn      func()
}

// String must never run: tostring of a host value is a fixed text.
func (r repo) String() string { panic("String ran") }

func (r repo) Describe() string { return r.Branch }

type owner struct{ Name string }

// escapeModule is a host module with a value of every shape and functions
// that take each kind of parameter.
func escapeModule(huge []int, bigString string) host.Module {
	var mu sync.Mutex
	return host.Module{Name: "esc", Members: map[string]any{
		"info":      &repo{Branch: "main", Commits: []string{"c1"}, Labels: map[string]int{"a": 1}, Parent: &repo{Branch: "up"}, Ch: make(chan int), Fn: func() {}},
		"cfg":       map[string]int{"a": 1},
		"takeOwner": func(o owner) string { return o.Name },
		"takeAny":   func(v any) string { return fmt.Sprint(v) },
		"takeInt8":  func(n int8) int8 { return n },
		"takeInt64": func(n int64) int64 { return n },
		"takeList":  func(l []int) int { return len(l) },
		"huge":      func() []int { return huge },
		"bigString": func() string { return bigString },
		"aFunc":     func() any { return func() {} },
		"aChan":     func() any { return make(chan int) },
		"flags":     host.Writable(map[string]int{}, &mu),
	}}
}

func TestHostModuleEscapes(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"getmetatable of a host value", `error("mt=" .. tostring(getmetatable(require("host.esc").info)))`, "mt=protected"},
		{"getmetatable of a writable", `error("mt=" .. tostring(getmetatable(require("host.esc").flags)))`, "mt=protected"},
		{"getmetatable of the module", `error("mt=" .. tostring(getmetatable(require("host.esc"))))`, "mt=protected"},
		{"setmetatable on a host value", `setmetatable(require("host.esc").info, {})`, "table expected, got userdata"},
		{"rawset on a host value", `rawset(require("host.esc").info, "Branch", "x")`, "table expected, got userdata"},
		{"rawget on a host value", `rawget(require("host.esc").info, "Branch")`, "table expected, got userdata"},
		{"rawset on the module", `rawset(require("host.esc"), "cfg", {})`, "the host.esc module is read-only"},
		{"rawset on a member table", `rawset(require("host.esc").cfg, "a", 2)`, "read-only"},
		{"assignment to a field", `require("host.esc").info.Branch = "x"`, "host value security.repo is read-only (assignment to Branch)"},
		{"assignment through a pointer field", `require("host.esc").info.Parent.Branch = "x"`, "host value security.repo is read-only (assignment to Branch)"},
		{"luar's pointer ^ value", `local x = require("host.esc").info ^ 1`, "userdata"},
		{"luar's -pointer", `local x = -require("host.esc").info`, "__unm undefined"},
		{"luar's slice + x", `local x = require("host.esc").info.Commits + 1`, "table"},
		{"luar's ch()", `require("host.esc").info.Ch()`, "attempt to call a non-function object"},
		{"luar's -ch", `local x = -require("host.esc").info.Ch`, "__unm undefined"},
		{"calling a struct", `require("host.esc").info()`, "attempt to call a non-function object"},
		{"calling a map", `require("host.esc").cfg()`, "attempt to call a non-function object"},
		{"luar's methods and fields tables", `local m = require("host.esc"); error("got " .. tostring(m.info.methods) .. tostring(m.info.fields) .. tostring(m.info.Fn))`, "got nilnilnil"},
		{"tostring never runs the host's String", `error("is " .. tostring(require("host.esc").info))`, "is host.esc: security.repo"},
		{"a method called on the wrong value", `local m = require("host.esc"); m.info.Describe({})`, "host.esc.repo:Describe: call it as value:Describe(...) on a host value of type security.repo"},
		{"a value of one type where another is expected", `local m = require("host.esc"); m.takeOwner(m.info)`, "host.esc.takeOwner: argument 1: want a table (security.owner), got a host value of type security.repo"},
		{"a Lua function", `require("host.esc").takeAny(function() end)`, "host.esc.takeAny: argument 1: a Lua function cannot be passed"},
		{"a Lua function inside a table", `require("host.esc").takeAny({ f = print })`, "at [f]: a Lua function cannot be passed"},
		{"a Lua function into a writable", `require("host.esc").flags.x = print`, "a Lua function cannot be passed"},
		{"a cyclic table", `local t = {}; t.t = t; require("host.esc").takeAny(t)`, "a table that contains itself"},
		{"a deep table", `local t = {}; for i = 1, 1e6 do t = { t } end; require("host.esc").takeAny(t)`, "nested more than 64 deep"},
		{"a wide table", `local t = {}; for i = 1, 200000 do t[i] = i end; require("host.esc").takeList(t)`, "more than 100000 values"},
		{"int8 overflow", `require("host.esc").takeInt8(300)`, "300 is out of the range of int8"},
		{"int64 overflow", `require("host.esc").takeInt64(2^63)`, "is out of the range of int64"},
		{"a fraction for an integer", `require("host.esc").takeInt8(1.5)`, "want an integer (int8), got 1.5"},
		{"a NaN for an integer", `require("host.esc").takeInt64(0/0)`, "want an integer"},
		{"a table for a struct with an unknown field", `require("host.esc").takeOwner({ Name = "a", secret = 1 })`, "security.owner has no field secret"},
		{"too few arguments", `require("host.esc").takeOwner()`, "host.esc.takeOwner: takes 1 arguments, got 0"},
		{"a huge result", `require("host.esc").huge()`, "host.esc.huge: result 1: more than 100000 values"},
		{"a huge string", `require("host.esc").bigString()`, "is over the cap of 16777216"},
		{"a result that is a func", `require("host.esc").aFunc()`, "host.esc.aFunc: result 1: a func cannot be shown to Lua"},
		{"a result that is a chan", `require("host.esc").aChan()`, "host.esc.aChan: result 1: a chan cannot be shown to Lua"},
		{"the host. namespace is not a file", `require("host")`, `no host module ""`},
	}
	codes, timeouts := make([]string, len(tests)), make([]int, len(tests))
	for i, tt := range tests {
		codes[i], timeouts[i] = tt.code, 5000
		if strings.Contains(tt.code, "1e6") {
			timeouts[i] = 25000 // building a million tables takes seconds under -race
		}
	}
	huge := make([]int, 10_000_000)
	e := open(t, engine.Options{Dir: hooksDir(t, map[string]string{"escape.lua": policyFile(timeouts, codes)}),
		Host: []host.Module{escapeModule(huge, strings.Repeat("x", 17<<20))}})
	if err := e.Err(); err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := pre(e, fmt.Sprintf("case%d", i), `{}`)
			if msg := failures(res); !res.Denied() || !strings.Contains(res.Reason, "fail-closed") || !strings.Contains(msg, tt.want) {
				t.Errorf("denied %v, reason %q, failure %q; want a fail-closed denial, the failure saying %q", res.Denied(), res.Reason, msg, tt.want)
			}
		})
	}
	t.Logf("%d escape attempts through host modules refused", len(tests))
}

func TestHostHugeResultIsRefusedWithTheHeapBounded(t *testing.T) {
	huge := make([]int, 10_000_000)
	e := open(t, engine.Options{Dir: hooksDir(t, map[string]string{"h.lua": policyFile([]int{5000}, []string{`require("host.esc").huge()`})}),
		Host: []host.Module{escapeModule(huge, "")}})
	var msg string
	base, _ := heapPeak(func() {})
	peak, _ := heapPeak(func() { msg = failures(pre(e, "case0", `{}`)) })
	if !strings.Contains(msg, "more than 100000 values") {
		t.Fatalf("failure %q, want the value cap", msg)
	}
	if peak > base+16<<20 {
		t.Fatalf("refusing a 10^7-element result took the heap from %d to %d bytes", base, peak)
	}
}
