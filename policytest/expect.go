package policytest

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook"
)

// expectTable builds the expect table. Each assertion raises an error whose
// message starts with the file and line of the assertion in the test file.
//
//	expect.denied(r[, substring])   denied, the reason containing substring
//	expect.asked(r[, substring])    handed to the user, the reason containing substring
//	expect.allowed(r)               allowed explicitly (hook.allow()), no hook failed
//	expect.no_objection(r)          no hook objected: no verdict, no rewrite, no hook failed
//	expect.proceeds(r)              neither denied nor asked (no objection, an allow or a rewrite), no hook failed
//	expect.mutated(r[, subset])     not denied, input rewritten (matching subset)
//	expect.context(r, substring)    additionalContext containing substring
//	expect.output(r[, substring])   PostToolUse: the tool's output rewritten (hook.redact,
//	                                hook.replace_output), the new output containing substring
//	expect.withheld(r, label)       PostToolUse: label among what was taken out of the output
//	expect.output_kept(r)           PostToolUse: the model reads the tool's own output, no hook failed
//	expect.eq(actual, expected[, msg])   deep equality of tables
//	expect.truthy(v[, msg])
//	expect.contains(s, sub)         substring, or an item of an array
func (a *api) expectTable(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 10)
	for name, fn := range map[string]lua.LGFunction{
		"denied":       a.expectDenied,
		"asked":        a.expectAsked,
		"allowed":      a.expectAllowed,
		"no_objection": a.expectNoObjection,
		"proceeds":     a.expectProceeds,
		"mutated":      a.expectMutated,
		"context":      a.expectContext,
		"output":       a.expectOutput,
		"withheld":     a.expectWithheld,
		"output_kept":  a.expectOutputKept,
		"eq":           a.expectEq,
		"truthy":       a.expectTruthy,
		"contains":     a.expectContains,
	} {
		t.RawSetString(name, L.NewFunction(fn))
	}
	return t
}

// failf raises an assertion failure at the line of the Lua caller.
func failf(L *lua.LState, format string, args ...any) {
	L.RaiseError(format, args...)
}

// checkResult returns argument 1 as a result of fire.
func checkResult(L *lua.LState, fn string) *lua.LTable {
	r, ok := L.Get(1).(*lua.LTable)
	if !ok || r.RawGetString("denied").Type() != lua.LTBool {
		L.RaiseError("expect.%s: argument #1 must be what fire returned, got %s", fn, L.Get(1).Type().String())
	}
	return r
}

func str(v lua.LValue) string {
	s, _ := v.(lua.LString)
	return string(s)
}

func (a *api) expectDenied(L *lua.LState) int {
	r := checkResult(L, "denied")
	sub := L.OptString(2, "")
	if r.RawGetString("denied") != lua.LTrue {
		failf(L, "expected a denial, but %s", a.happened(r))
	}
	if reason := str(r.RawGetString("reason")); !strings.Contains(reason, sub) {
		failf(L, "expected the reason to contain %q, got %q", sub, reason)
	}
	return 0
}

func (a *api) expectAsked(L *lua.LState) int {
	r := checkResult(L, "asked")
	sub := L.OptString(2, "")
	if str(r.RawGetString("verdict")) != "ask" {
		failf(L, "expected the call to be handed to the user (hook.ask), but %s", a.happened(r))
	}
	if reason := str(r.RawGetString("reason")); !strings.Contains(reason, sub) {
		failf(L, "expected the reason to contain %q, got %q", sub, reason)
	}
	a.noFailures(L, r, "asked about")
	return 0
}

func (a *api) expectAllowed(L *lua.LState) int {
	r := checkResult(L, "allowed")
	if str(r.RawGetString("verdict")) != "allow" {
		failf(L, "expected an explicit allow (hook.allow()), but %s", a.happened(r))
	}
	a.noFailures(L, r, "allowed")
	return 0
}

func (a *api) expectNoObjection(L *lua.LState) int {
	r := checkResult(L, "no_objection")
	if str(r.RawGetString("verdict")) != "none" || r.RawGetString("input") != lua.LNil || r.RawGetString("output") != lua.LNil {
		failf(L, "expected no hook to object, but %s", a.happened(r))
	}
	a.noFailures(L, r, "let through")
	return 0
}

func (a *api) expectProceeds(L *lua.LState) int {
	r := checkResult(L, "proceeds")
	if v := str(r.RawGetString("verdict")); v == "deny" || v == "ask" {
		failf(L, "expected the call to proceed, but %s", a.happened(r))
	}
	a.noFailures(L, r, "let through")
	return 0
}

// happened says what was decided about a call, for an expectation that
// wanted something else.
func (a *api) happened(r *lua.LTable) string {
	reason := str(r.RawGetString("reason"))
	by := ""
	if name := str(r.RawGetString("decidedBy")); name != "" {
		by = fmt.Sprintf(" by %q", name)
	}
	switch str(r.RawGetString("verdict")) {
	case "deny":
		return fmt.Sprintf("it was denied%s: %s", by, reason)
	case "ask":
		return fmt.Sprintf("it was handed to the user%s: %s", by, reason)
	case "allow":
		return fmt.Sprintf("it was allowed explicitly%s (expect.allowed)", by)
	case "continue":
		return fmt.Sprintf("a hook asked the agent to continue%s: %s", by, reason)
	}
	if r.RawGetString("input") != lua.LNil {
		return fmt.Sprintf("its input was rewritten%s (expect.mutated)", by)
	}
	if out, ok := r.RawGetString("output").(*lua.LTable); ok {
		return fmt.Sprintf("the tool's output was rewritten (expect.output) to %q", luahook.TruncateChars(str(out.RawGetString("content")), 300))
	}
	return "no hook objected (expect.no_objection); " + a.allowedBecause(r)
}

func (a *api) expectMutated(L *lua.LState) int {
	r := checkResult(L, "mutated")
	if r.RawGetString("denied") == lua.LTrue {
		failf(L, "expected the input to be rewritten, but the call was denied: %s", str(r.RawGetString("reason")))
	}
	input := r.RawGetString("input")
	if input == lua.LNil {
		failf(L, "expected the input to be rewritten, but no hook changed it")
	}
	if want := L.Get(2); want != lua.LNil {
		if path, ok := a.subset(input, want, "input"); !ok {
			failf(L, "the rewritten input %s does not match %s (at %s)", a.s.Format(input), a.s.Format(want), path)
		}
	}
	a.noFailures(L, r, "rewritten")
	return 0
}

func (a *api) expectContext(L *lua.LState) int {
	r := checkResult(L, "context")
	sub := L.CheckString(2)
	ctx, ok := r.RawGetString("additionalContext").(lua.LString)
	if !ok {
		failf(L, "expected additional context containing %q, but there is none", sub)
	}
	if !strings.Contains(string(ctx), sub) {
		failf(L, "expected the additional context to contain %q, got %q", sub, string(ctx))
	}
	return 0
}

func (a *api) expectEq(L *lua.LState) int {
	got, want := L.CheckAny(1), L.CheckAny(2)
	if !a.equal(got, want, nil) {
		failf(L, "%sgot %s, want %s", label(L, 3), a.s.Format(got), a.s.Format(want))
	}
	return 0
}

func (a *api) expectTruthy(L *lua.LState) int {
	v := L.Get(1)
	if !lua.LVAsBool(v) {
		failf(L, "%sexpected a true value, got %s", label(L, 2), a.s.Format(v))
	}
	return 0
}

func (a *api) expectContains(L *lua.LState) int {
	switch hay := L.CheckAny(1).(type) {
	case lua.LString:
		sub := L.CheckString(2)
		if !strings.Contains(string(hay), sub) {
			failf(L, "expected %s to contain %q", a.s.Format(hay), sub)
		}
	case *lua.LTable:
		want := L.CheckAny(2)
		for i := 1; i <= hay.Len(); i++ {
			if a.equal(hay.RawGetInt(i), want, nil) {
				return 0
			}
		}
		failf(L, "expected %s to contain %s", a.s.Format(hay), a.s.Format(want))
	default:
		L.ArgError(1, "a string or an array expected, got "+hay.Type().String())
	}
	return 0
}

// label renders the optional message argument n as a prefix.
func label(L *lua.LState, n int) string {
	if msg := L.OptString(n, ""); msg != "" {
		return msg + ": "
	}
	return ""
}

// noFailures fails when a hook of the result failed: a failing fail-open
// hook lets anything through, which is rarely what a test means.
func (a *api) noFailures(L *lua.LState, r *lua.LTable, what string) {
	trace, _ := r.RawGetString("trace").(*lua.LTable)
	if trace == nil {
		return
	}
	for i := 1; i <= trace.Len(); i++ {
		e, _ := trace.RawGetInt(i).(*lua.LTable)
		if e == nil {
			continue
		}
		if f, ok := e.RawGetString("failure").(*lua.LTable); ok {
			failf(L, "the call was %s, but hook %q failed (%s): %s", what,
				str(e.RawGetString("name")), str(f.RawGetString("kind")), str(f.RawGetString("message")))
		}
	}
}

// allowedBecause says what happened to a call that no hook objected to.
func (a *api) allowedBecause(r *lua.LTable) string {
	trace, _ := r.RawGetString("trace").(*lua.LTable)
	if trace == nil || trace.Len() == 0 {
		return "no hook matched the call"
	}
	var failed []string
	for i := 1; i <= trace.Len(); i++ {
		e, _ := trace.RawGetInt(i).(*lua.LTable)
		if e == nil {
			continue
		}
		if f, ok := e.RawGetString("failure").(*lua.LTable); ok {
			failed = append(failed, fmt.Sprintf("hook %q failed (%s): %s",
				str(e.RawGetString("name")), str(f.RawGetString("kind")), str(f.RawGetString("message"))))
		}
	}
	if len(failed) > 0 {
		return strings.Join(failed, "; ")
	}
	return fmt.Sprintf("%d hook(s) ran", trace.Len())
}

// equal compares Lua values deeply: tables by their keys and values
// (metatables, such as the json marks, are ignored), anything else with ==.
func (a *api) equal(x, y lua.LValue, seen map[[2]*lua.LTable]bool) bool {
	tx, okx := x.(*lua.LTable)
	ty, oky := y.(*lua.LTable)
	if !okx || !oky {
		return x == y
	}
	if tx == ty {
		return true
	}
	pair := [2]*lua.LTable{tx, ty}
	if seen[pair] {
		return true // being compared further up: assume equal there
	}
	if seen == nil {
		seen = map[[2]*lua.LTable]bool{}
	}
	seen[pair] = true
	n := 0
	for k, v := tx.Next(lua.LNil); k != lua.LNil; k, v = tx.Next(k) {
		n++
		if !a.equal(v, ty.RawGet(k), seen) {
			return false
		}
	}
	for k, _ := ty.Next(lua.LNil); k != lua.LNil; k, _ = ty.Next(k) {
		n--
	}
	return n == 0
}

// subset reports whether want's keys all hold, recursively, the same values
// in got; path names the first difference.
func (a *api) subset(got, want lua.LValue, path string) (string, bool) {
	tw, ok := want.(*lua.LTable)
	if !ok {
		return path, a.equal(got, want, nil)
	}
	tg, ok := got.(*lua.LTable)
	if !ok {
		return path, false
	}
	for k, v := tw.Next(lua.LNil); k != lua.LNil; k, v = tw.Next(k) {
		p := path + "." + k.String()
		if _, isNum := k.(lua.LNumber); isNum {
			p = path + "[" + k.String() + "]"
		}
		if p, ok := a.subset(tg.RawGet(k), v, p); !ok {
			return p, false
		}
	}
	return "", true
}

// outputOf returns the rewritten output of a result, nil when the model
// reads the tool's own.
func outputOf(r *lua.LTable) *lua.LTable {
	t, _ := r.RawGetString("output").(*lua.LTable)
	return t
}

func (a *api) expectOutput(L *lua.LState) int {
	r := checkResult(L, "output")
	sub := L.OptString(2, "")
	out := outputOf(r)
	if out == nil {
		failf(L, "expected the tool's output to be rewritten, but the model reads it as it was; %s", a.happened(r))
	}
	if content := str(out.RawGetString("content")); !strings.Contains(content, sub) {
		failf(L, "expected the rewritten output to contain %q, got %q", sub, luahook.TruncateChars(content, 2000))
	}
	a.noFailures(L, r, "rewritten")
	return 0
}

func (a *api) expectWithheld(L *lua.LState) int {
	r := checkResult(L, "withheld")
	label := L.CheckString(2)
	out := outputOf(r)
	if out == nil {
		failf(L, "expected %s to be taken out of the output, but the model reads it as it was; %s", label, a.happened(r))
	}
	var seen []string
	if list, ok := out.RawGetString("withheld").(*lua.LTable); ok {
		for i := 1; i <= list.Len(); i++ {
			if w, ok := list.RawGetInt(i).(*lua.LTable); ok {
				l := str(w.RawGetString("label"))
				if l == label {
					return 0
				}
				seen = append(seen, l)
			}
		}
	}
	failf(L, "expected %q among what was taken out of the output, got %q (the output: %q)", label, seen,
		luahook.TruncateChars(str(out.RawGetString("content")), 300))
	return 0
}

func (a *api) expectOutputKept(L *lua.LState) int {
	r := checkResult(L, "output_kept")
	if out := outputOf(r); out != nil {
		failf(L, "expected the model to read the tool's own output, but it was rewritten to %q", luahook.TruncateChars(str(out.RawGetString("content")), 2000))
	}
	a.noFailures(L, r, "kept")
	return 0
}
