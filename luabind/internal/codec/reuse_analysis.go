package codec

import (
	"sync"

	lua "github.com/yuin/gopher-lua"
)

// LeavesInput reports whether fn, called as fn(input, rt), provably keeps no
// reference to input's tables once it returns, so that the tables can be
// refilled with the next call's payload instead of built anew. It reads the
// function's bytecode and follows every register that may hold input or a
// value read from it (tainted), along every path; the answer is yes only if
// no tainted value is ever:
//
//   - stored: in a global, an upvalue, a table (as key or value), a list;
//   - given away: as an argument of a call (except the string a method call
//     is made on: s:find(...) looks the method up in the string library, and
//     input's own tables hold no functions; and except a call of a Go
//     function trust names, see Trust);
//   - captured: in a register a closure shares;
//   - handed to a metamethod that Lua code may have written: used as a key
//     of a table not read from input (t[k] may call __index), or next to an
//     operand of unknown type in arithmetic or a concatenation (OP_CONCAT,
//     or a call of concat, the Go function the caller's compiler makes of
//     every `..` and loads as a constant with LOADK, which is read as the
//     same instruction).
//
// Input's tables themselves carry protected metatables without metamethods,
// so reading, comparing and measuring them calls no Lua code. A value known
// to be a string, number, boolean or nil is no reference to a table, however
// it was read: a field trust.Root calls plain, or a value whose type(...) was
// compared equal to one of those names on the path taken.
//
// A return is not giving away: the caller (luabind's call path) converts
// what the hook returns to Go before the tables go back to the stock.
// Writing a nil, boolean, number or string into input's tables is allowed
// (a mutate edits its copy of toolInput): Stock.Done empties every part of
// a table, and such a value leaves intact what is known of the tables.
//
// A Go function, a function that reaches input through ..., or an
// instruction this analysis does not know is answered no. Any answer of no
// only costs the recycling.
//
// trust, when not nil, says which names are fixed for good once the file
// has loaded and which Go functions read their arguments without keeping
// them (Trust). Without it, no name is trusted.
func LeavesInput(fn *lua.LFunction, concat lua.LValue, trust *Trust) bool {
	if !Pinned || fn == nil || fn.IsG || fn.Proto == nil {
		return false
	}
	p := fn.Proto
	if p.NumParameters == 0 {
		return p.IsVarArg == 0 // input is reachable only through ...
	}
	fl := newFlow(p)
	defer fl.release()
	fl.concatFn = concat
	fl.trust, fl.env, fl.fn = trust, fn.Env, fn
	return fl.run()
}

// LeavesOutcomes reports what LeavesInput reports, and that fn keeps no
// reference either to a table a Fresh builtin returned to it (hook.deny's
// outcome table), once it returns: such a table is followed as input is,
// so that fn may only read it, write plain values into it, give it to a
// trusted Go function, and return it. A call that fn makes itself, from
// the outermost frame of its state, may then take the table from the stock
// (Codec.FreshTable); a call made by any other function may not, since
// nothing is known of what that function does with it.
func LeavesOutcomes(fn *lua.LFunction, concat lua.LValue, trust *Trust) bool {
	if trust == nil || !LeavesInput(fn, concat, trust) {
		return false
	}
	fl := newFlow(fn.Proto)
	defer fl.release()
	fl.concatFn = concat
	fl.trust, fl.env, fl.fn = trust, fn.Env, fn
	fl.fresh = true
	fl.noInput = fn.Proto.NumParameters == 0
	return fl.run()
}

// Trust is what LeavesInput may take as fixed about a loaded file: its
// frozen globals, the read-only module tables, the Go functions that only
// read their arguments, and the shapes of the input's own fields.
type Trust struct {
	// Global returns the value global name has for good in env (the
	// environment of the function analysed), or ok false when it may
	// change: the globals are not frozen, or env is not the file's.
	Global func(env lua.LValue, name string) (v lua.LValue, ok bool)
	// Field returns the value field key of t has for good, or ok false when
	// t is not a read-only table.
	Field func(t *lua.LTable, key string) (v lua.LValue, ok bool)
	// Upvalue returns the value upvalue i of fn has for good, or ok false
	// when some function may assign it (see AssignedUpvalues).
	Upvalue func(fn *lua.LFunction, i int) (v lua.LValue, ok bool)
	// Builtins are the Go functions a call may give input to, by what they
	// do with their arguments.
	Builtins map[*lua.LFunction]Builtin
	// Type is the type function, one of Builtins: an equality of its result
	// with "string", "number", "boolean" or "nil" tells that its argument
	// holds no table.
	Type *lua.LFunction
	// Root gives the shape of the value at each top-level key of the
	// input; a key not listed holds nil.
	Root map[string]Shape
}

// Builtin is what a trusted Go function does with its arguments. None keeps
// a reference to one once it returns, and none calls Lua code with one.
type Builtin uint8

const (
	// Reads returns nils, booleans, numbers or strings only (type,
	// tostring, string.find, math.max, ...).
	Reads Builtin = iota + 1
	// Builds returns new values that hold none of its arguments
	// (json.decode, re.match, string.gmatch).
	Builds
	// Passes may return its arguments or values read from them (next,
	// select).
	Passes
	// Fresh returns a new table that may hold its arguments (hook.deny,
	// hook.mutate): Passes for LeavesInput, and for LeavesOutcomes a table
	// to follow as input is followed.
	Fresh
	// Iterates is pairs or ipairs: it returns its own iterator, its
	// argument and a number or nil, for a generic for.
	Iterates
)

// Shape is what a top-level field of the input holds.
type Shape uint8

const (
	// ShapeAny is any JSON value (toolInput, native).
	ShapeAny Shape = iota
	// ShapePlain is a nil, boolean, number or string (toolName, prompt).
	ShapePlain
	// ShapeFlat is nil or a table whose values are all plain
	// (toolCapabilities, toolResult).
	ShapeFlat
)

// regs is a set of registers.
type regs [4]uint64

func (s *regs) has(r int) bool { return r >= 0 && r < 256 && s[r>>6]&(1<<(r&63)) != 0 }
func (s *regs) put(r int, on bool) {
	if r < 0 || r >= 256 {
		return
	}
	if on {
		s[r>>6] |= 1 << (r & 63)
	} else {
		s[r>>6] &^= 1 << (r & 63)
	}
}
func (s *regs) any(o *regs) bool {
	return s[0]&o[0] != 0 || s[1]&o[1] != 0 || s[2]&o[2] != 0 || s[3]&o[3] != 0
}

// from returns whether any register from r up is set.
func (s *regs) from(r int) bool {
	for ; r < 256; r++ {
		if s.has(r) {
			return true
		}
	}
	return false
}

// facts is what is known before one instruction: tainted registers (may
// hold input or a value read from it, on some path), plain registers (hold
// a nil, boolean, number or string on every path), method registers (m:
// R(m) is a method looked up by SELF on a tainted R(m+1), both untouched
// since, on every path) and concat registers (hold concat, loaded by
// LOADK, on every path).
//
// A tainted register may also be root (holds input itself on every path),
// flat (a table whose values are all plain) or iter (holds a trusted
// iterator); binds record what more is known of a few registers.
type facts struct {
	taint, plain, method, concat regs
	root, flat, iter             regs
	binds                        [maxBinds]bind
}

// bind is one fact about register r-1: it holds type(R(x-1)) (v 0), a copy
// of R(x-1) (v 1), or the trusted value vals[v-1] of the flow (x 0).
type bind struct{ r, x, v uint8 }

// The sorts of bind.
const (
	bindValue = iota
	bindType
	bindCopy
)

func (b bind) sort() int {
	switch {
	case b.x == 0:
		return bindValue
	case b.v == 0:
		return bindType
	}
	return bindCopy
}

const maxBinds = 6

func (f *facts) merge(o *facts) bool {
	before := *f
	for i := range f.taint {
		f.taint[i] |= o.taint[i]
		f.plain[i] &= o.plain[i]
		f.method[i] &= o.method[i]
		f.concat[i] &= o.concat[i]
		f.root[i] &= o.root[i]
		f.flat[i] &= o.flat[i]
		f.iter[i] &= o.iter[i]
	}
	for i, b := range f.binds {
		if b.r != 0 && !o.hasBind(b) {
			f.binds[i] = bind{}
		}
	}
	return *f != before
}

func (f *facts) hasBind(b bind) bool {
	for _, o := range f.binds {
		if o == b {
			return true
		}
	}
	return false
}

// addBind records b (its r is the register plus one), if there is room.
func (f *facts) addBind(b bind) {
	for i, o := range f.binds {
		if o.r == 0 {
			f.binds[i] = b
			return
		}
	}
}

// bound returns the bind of register r of the given sort.
func (f *facts) bound(r, sort int) (bind, bool) {
	for _, b := range f.binds {
		if b.r != 0 && int(b.r) == r+1 && b.sort() == sort {
			return b, true
		}
	}
	return bind{}, false
}

// set records a write of R(r): tainted or not, plain or not.
func (f *facts) set(r int, tainted, plain bool) {
	f.taint.put(r, tainted)
	f.plain.put(r, plain)
	f.method.put(r, false)
	f.method.put(r-1, false)
	f.concat.put(r, false)
	f.root.put(r, false)
	f.flat.put(r, false)
	f.iter.put(r, false)
	for i, b := range f.binds {
		if b.r != 0 && (int(b.r) == r+1 || int(b.x) == r+1) {
			f.binds[i] = bind{}
		}
	}
}

// clobber records writes of every register from r up.
func (f *facts) clobber(r int) {
	for ; r < 256; r++ {
		f.set(r, false, false)
	}
}

type flow struct {
	p       *lua.FunctionProto
	at      []facts
	seen    []bool
	work    []int
	capture regs // registers shared with a closure
	// concatFn is the function a rewritten `..` calls (see LeavesInput).
	concatFn lua.LValue
	trust    *Trust
	env      lua.LValue     // the function's environment
	fn       *lua.LFunction // the function analysed: its upvalues' values
	vals     []lua.LValue   // the trusted values binds name
	// fresh: a Fresh builtin's result is tainted (LeavesOutcomes);
	// noInput: the function has no parameter, so nothing is tainted at
	// its entry.
	fresh, noInput bool
}

// value returns the trusted value register r holds on every path, or nil.
func (fl *flow) value(f *facts, r int) lua.LValue {
	if b, ok := f.bound(r, bindValue); ok && int(b.v) <= len(fl.vals) {
		return fl.vals[b.v-1]
	}
	return nil
}

// bindValue records that register r holds the trusted value v.
func (fl *flow) bindValue(f *facts, r int, v lua.LValue) {
	if r < 0 || r > 254 {
		return
	}
	i := 0
	for ; i < len(fl.vals) && fl.vals[i] != v; i++ {
	}
	if i == len(fl.vals) {
		if i >= 255 {
			return
		}
		fl.vals = append(fl.vals, v)
	}
	f.addBind(bind{r: uint8(r + 1), v: uint8(i + 1)})
}

// builtin returns what the trusted Go function in register r does with its
// arguments, or 0.
func (fl *flow) builtin(f *facts, r int) Builtin {
	if fl.trust == nil {
		return 0
	}
	if g, ok := fl.value(f, r).(*lua.LFunction); ok {
		return fl.trust.Builtins[g]
	}
	return 0
}

func newFlow(p *lua.FunctionProto) *flow {
	fl := flows.Get().(*flow)
	at, seen, work, vals := fl.at, fl.seen, fl.work, fl.vals
	n := len(p.Code)
	if cap(at) < n {
		at, seen = make([]facts, n), make([]bool, n)
	}
	// at needs no clearing: an instruction's facts are read only once seen
	// says they were written (reach).
	seen = seen[:n]
	clear(seen)
	*fl = flow{p: p, at: at[:n], seen: seen, work: work[:0], vals: vals[:0]}
	// Registers a closure captures: the MOVE pseudo-instructions that follow
	// each CLOSURE. An upvalue shares the register itself, so a value written
	// to it later reaches the closure too.
	for pc := 0; pc < len(p.Code); pc++ {
		inst := p.Code[pc]
		if op(inst) != lua.OP_CLOSURE || argBx(inst) >= len(p.FunctionPrototypes) {
			continue
		}
		for k := 1; k <= int(p.FunctionPrototypes[argBx(inst)].NumUpvalues) && pc+k < len(p.Code); k++ {
			if next := p.Code[pc+k]; op(next) == lua.OP_MOVE {
				fl.capture.put(argB(next), true)
			}
		}
	}
	return fl
}

// flows keeps the buffers of finished analyses: a load decides on every
// hook it registers, and the facts of one instruction are 242 bytes.
var flows = sync.Pool{New: func() any { return new(flow) }}

// maxPooledCode bounds the functions whose buffers go back to flows.
const maxPooledCode = 1 << 14

// release gives fl's buffers back for the next analysis, keeping no
// reference to the function, its environment or the values it read.
func (fl *flow) release() {
	if cap(fl.at) > maxPooledCode {
		return
	}
	clear(fl.vals[:cap(fl.vals)])
	*fl = flow{at: fl.at, seen: fl.seen, work: fl.work, vals: fl.vals}
	flows.Put(fl)
}

// Instruction fields, as gopher-lua v1.1.2 lays them out (checked by
// TestEscapeDecodesInstructions against its own opcode listing).
func op(i uint32) int     { return int(i >> 26) }
func argA(i uint32) int   { return int(i>>18) & 0xff }
func argB(i uint32) int   { return int(i & 0x1ff) }
func argC(i uint32) int   { return int(i>>9) & 0x1ff }
func argBx(i uint32) int  { return int(i & 0x3ffff) }
func argSBx(i uint32) int { return argBx(i) - (1<<18-1)>>1 }

const rkConst = 1 << 8 // an RK operand with this bit names a constant

func (fl *flow) run() bool {
	var entry facts
	if !fl.noInput {
		entry.taint.put(0, true)
		entry.root.put(0, true)
	}
	if !fl.reach(0, &entry) {
		return false
	}
	for len(fl.work) > 0 {
		pc := fl.work[len(fl.work)-1]
		fl.work = fl.work[:len(fl.work)-1]
		f := fl.at[pc]
		if !fl.step(pc, &f) {
			return false
		}
	}
	return true
}

// reach merges f into what is known at pc and queues pc if that changed.
func (fl *flow) reach(pc int, f *facts) bool {
	if pc < 0 || pc >= len(fl.at) {
		return false
	}
	if f.taint.any(&fl.capture) {
		return false
	}
	if !fl.seen[pc] {
		fl.seen[pc], fl.at[pc] = true, *f
	} else if !fl.at[pc].merge(f) {
		return true
	}
	fl.work = append(fl.work, pc)
	return true
}

// step applies the instruction at pc to f and passes the result on; false
// means input may escape.
func (fl *flow) step(pc int, f *facts) bool {
	inst := fl.p.Code[pc]
	a, b, c := argA(inst), argB(inst), argC(inst)
	tainted := func(rk int) bool { return rk&rkConst == 0 && f.taint.has(rk) }
	// known: a constant or a register of known plain type or tainted (input
	// and what is read from it have no metamethods written in Lua).
	known := func(rk int) bool { return rk&rkConst != 0 || f.plain.has(rk) || f.taint.has(rk) }
	next := pc + 1
	switch op(inst) {
	case lua.OP_MOVE, lua.OP_MOVEN:
		if a == b {
			break
		}
		root, flat := f.root.has(b), f.flat.has(b)
		f.set(a, f.taint.has(b), f.plain.has(b))
		f.root.put(a, root)
		f.flat.put(a, flat)
		if a < 255 && b < 255 {
			f.addBind(bind{r: uint8(a + 1), x: uint8(b + 1), v: 1})
		}
	case lua.OP_LOADK:
		isConcat := argBx(inst) < len(fl.p.Constants) && fl.p.Constants[argBx(inst)] == fl.concatFn
		f.set(a, false, !isConcat)
		f.concat.put(a, isConcat)
		if k, ok := fl.constString(argBx(inst)); ok && !isConcat {
			fl.bindValue(f, a, lua.LString(k)) // a key, as for-in loads it
		}
	case lua.OP_LOADBOOL:
		f.set(a, false, true)
		if c != 0 {
			next = pc + 2
		}
	case lua.OP_LOADNIL:
		for r := a; r <= b; r++ {
			f.set(r, false, true)
		}
	case lua.OP_GETUPVAL:
		f.set(a, false, false)
		if fl.trust != nil && fl.trust.Upvalue != nil {
			if v, ok := fl.trust.Upvalue(fl.fn, b); ok {
				fl.bindValue(f, a, v)
			}
		}
	case lua.OP_NEWTABLE:
		f.set(a, false, false)
	case lua.OP_GETGLOBAL:
		f.set(a, false, false)
		if fl.trust != nil && fl.trust.Global != nil {
			if name, ok := fl.constString(argBx(inst)); ok {
				if v, ok := fl.trust.Global(fl.env, name); ok {
					fl.bindValue(f, a, v)
				}
			}
		}
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		if f.taint.has(b) {
			// Input's tables (and strings) have no __index written in Lua:
			// any key may be read.
			fl.readInput(f, a, b, c)
			break
		}
		if tainted(c) {
			return false // a key may reach an __index written in Lua
		}
		t, _ := fl.value(f, b).(*lua.LTable)
		f.set(a, false, false)
		if t != nil && c&rkConst != 0 && fl.trust.Field != nil {
			if key, ok := fl.constString(c &^ rkConst); ok {
				if v, ok := fl.trust.Field(t, key); ok {
					fl.bindValue(f, a, v)
				}
			}
		}
	case lua.OP_SETGLOBAL, lua.OP_SETUPVAL:
		if f.taint.has(a) {
			return false
		}
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
		if f.taint.has(a) {
			// A plain value written into input's tables: Stock.Done empties
			// them, and what is known of them stays true.
			if c&rkConst == 0 && !f.plain.has(c) {
				return false
			}
			break
		}
		if tainted(b) || tainted(c) {
			return false
		}
	case lua.OP_SELF:
		if tainted(c) {
			return false
		}
		t := f.taint.has(b)
		f.set(a+1, t, false)
		f.set(a, t, false)
		f.method.put(a, t)
	case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW:
		if (tainted(b) || tainted(c)) && !(known(b) && known(c)) {
			return false // the other operand may be a table with an __add
		}
		f.set(a, false, known(b) && known(c)) // a number, then
	case lua.OP_NOT:
		f.set(a, false, true)
	case lua.OP_UNM, lua.OP_LEN:
		// A number, when the operand comes from input (no __unm, __len).
		f.set(a, false, f.taint.has(b))
	case lua.OP_CONCAT:
		if !fl.concat(f, a, b, c) {
			return false
		}
	case lua.OP_CALL:
		if f.concat.has(a) && b >= 3 && c == 2 {
			// R(A) := concatFn(R(A+1), ..., R(A+B-1)), as CONCAT does it. The
			// operands' registers are temporaries the call consumes.
			if !fl.concat(f, a, a+1, a+b-1) {
				return false
			}
			for r := a + 1; r <= a+b-1; r++ {
				f.set(r, false, false)
			}
			break
		}
		if k := fl.builtin(f, a); k != 0 {
			fl.callBuiltin(f, inst, k)
			break
		}
		if !fl.call(f, inst) {
			return false
		}
	case lua.OP_TAILCALL:
		if fl.builtin(f, a) != 0 {
			f.clobber(a) // its results are the function's: see RETURN
			break
		}
		if !fl.call(f, inst) {
			return false
		}
	case lua.OP_JMP:
		next = pc + 1 + argSBx(inst)
	case lua.OP_EQ:
		// Equal: on to pc+1 when A is 1, past the next instruction when 0.
		eq := *f
		if x, ok := fl.narrows(f, b, c); ok {
			eq.set(x, false, true) // type(x) is "string", "number", ...
		}
		equal, other := pc+1, pc+2
		if a == 0 {
			equal, other = pc+2, pc+1
		}
		return fl.reach(equal, &eq) && fl.reach(other, f)
	case lua.OP_LT, lua.OP_LE, lua.OP_TEST:
		// Comparison metamethods run only between operands that share
		// them, and input's tables have none.
		if !fl.reach(pc+2, f) {
			return false
		}
	case lua.OP_TESTSET:
		f.set(a, f.taint.has(a) || f.taint.has(b), f.plain.has(a) && f.plain.has(b))
		if !fl.reach(pc+2, f) {
			return false
		}
	case lua.OP_RETURN:
		return true // to Go code, which copies the result (see LeavesInput)
	case lua.OP_FORPREP:
		f.set(a, false, true)
		next = pc + 1 + argSBx(inst)
	case lua.OP_FORLOOP:
		f.set(a, false, true)
		f.set(a+3, false, true)
		if !fl.reach(pc+1+argSBx(inst), f) {
			return false
		}
	case lua.OP_TFORLOOP:
		if f.iter.has(a) {
			// pairs' or ipairs' iterator over R(a+1): input's keys are
			// strings and numbers, its values what R(a+1) holds.
			t, flat := f.taint.has(a+1), f.flat.has(a+1)
			f.set(a+3, false, t)
			for r := a + 4; r <= a+2+c; r++ {
				f.set(r, t && !flat, t && flat)
			}
			f.set(a+2, false, t)
			if !fl.reach(pc+2, f) {
				return false
			}
			break
		}
		if f.taint.has(a) || f.taint.has(a+1) || f.taint.has(a+2) {
			return false
		}
		for r := a + 2; r <= a+2+c; r++ {
			f.set(r, false, false)
		}
		if !fl.reach(pc+2, f) {
			return false
		}
	case lua.OP_SETLIST:
		if f.taint.has(a) {
			return false
		}
		if b == 0 {
			if f.taint.from(a + 1) {
				return false
			}
		} else {
			for r := a + 1; r <= a+b; r++ {
				if f.taint.has(r) {
					return false
				}
			}
		}
		if c == 0 {
			next = pc + 2 // the next word is C itself
		}
	case lua.OP_CLOSE, lua.OP_NOP:
	case lua.OP_CLOSURE:
		if argBx(inst) >= len(fl.p.FunctionPrototypes) {
			return false
		}
		f.set(a, false, false)
		next = pc + 1 + int(fl.p.FunctionPrototypes[argBx(inst)].NumUpvalues)
	case lua.OP_VARARG:
		// input is the first parameter, so ... holds rt and what follows.
		if b == 0 {
			f.clobber(a)
		} else {
			for r := a; r <= a+b-2; r++ {
				f.set(r, false, false)
			}
		}
	default:
		return false
	}
	return fl.reach(next, f)
}

// concat applies R(a) := R(b) .. ... .. R(c) to f; false means input may
// escape.
func (fl *flow) concat(f *facts, a, b, c int) bool {
	known := func(r int) bool { return f.plain.has(r) || f.taint.has(r) }
	anyTaint, allKnown := false, true
	for r := b; r <= c; r++ {
		anyTaint = anyTaint || f.taint.has(r)
		allKnown = allKnown && known(r)
	}
	if anyTaint && !allKnown {
		return false // the other operand may be a table with a __concat
	}
	f.set(a, false, allKnown)
	return true
}

// call applies a CALL or TAILCALL to f; false means input may escape.
func (fl *flow) call(f *facts, inst uint32) bool {
	a, b, c := argA(inst), argB(inst), argC(inst)
	first := a + 1
	if f.method.has(a) {
		first = a + 2 // the method's own string (see LeavesInput)
	} else if f.taint.has(a) {
		return false
	}
	if b == 0 {
		if f.taint.from(first) {
			return false
		}
	} else {
		for r := first; r <= a+b-1; r++ {
			if f.taint.has(r) {
				return false
			}
		}
	}
	if c == 0 || op(inst) == lua.OP_TAILCALL {
		f.clobber(a)
	} else {
		for r := a; r <= a+c-2; r++ {
			f.set(r, false, false)
		}
	}
	return true
}

// constString returns constant i of the function when it is a string.
func (fl *flow) constString(i int) (string, bool) {
	if i < 0 || i >= len(fl.p.Constants) {
		return "", false
	}
	s, ok := fl.p.Constants[i].(lua.LString)
	return string(s), ok
}

// readInput applies R(a) := R(b)[RK(c)] to f for a tainted R(b): a field of
// input itself has the shape Trust.Root gives its key, a value of a flat
// table is plain, anything else read from input is tainted.
func (fl *flow) readInput(f *facts, a, b, c int) {
	shape := ShapeAny
	switch {
	case f.root.has(b) && fl.trust != nil && fl.trust.Root != nil:
		key, ok := fl.constString(c &^ rkConst)
		if c&rkConst == 0 {
			var s lua.LString
			s, ok = fl.value(f, c).(lua.LString)
			key = string(s)
		}
		if ok {
			listed := false
			if shape, listed = fl.trust.Root[key]; !listed {
				shape = ShapePlain // not a field of the payload: nil
			}
		}
	case f.flat.has(b):
		shape = ShapePlain
	}
	switch shape {
	case ShapePlain:
		f.set(a, false, true)
	case ShapeFlat:
		f.set(a, true, false)
		f.flat.put(a, true)
	default:
		f.set(a, true, false)
	}
}

// narrows returns x when one of the operands RK(b), RK(c) of an equality
// holds type(R(x)) and the other is the name of a type that holds no table:
// where they are equal, R(x) holds no reference to input.
func (fl *flow) narrows(f *facts, b, c int) (int, bool) {
	for _, o := range [2][2]int{{b, c}, {c, b}} {
		r, k := o[0], o[1]
		if r&rkConst != 0 || k&rkConst == 0 {
			continue
		}
		bd, ok := f.bound(r, bindType)
		if !ok {
			continue
		}
		switch name, _ := fl.constString(k &^ rkConst); name {
		case "string", "number", "boolean", "nil":
			return int(bd.x) - 1, true
		}
	}
	return 0, false
}

// callBuiltin applies a CALL of a trusted Go function of kind k to f.
func (fl *flow) callBuiltin(f *facts, inst uint32, k Builtin) {
	a, b, c := argA(inst), argB(inst), argC(inst)
	arg := a + 1
	if k == Iterates && b == 2 && c == 4 {
		// for ... in pairs(t): R(a) its iterator, R(a+1) t, R(a+2) nil or 0.
		t, root, flat := f.taint.has(arg), f.root.has(arg), f.flat.has(arg)
		f.set(a, false, false)
		f.iter.put(a, true)
		f.set(a+1, t, false)
		f.root.put(a+1, root)
		f.flat.put(a+1, flat)
		f.set(a+2, false, true)
		return
	}
	argTaint := false
	if b == 0 {
		argTaint = f.taint.from(arg)
	} else {
		for r := arg; r <= a+b-1; r++ {
			argTaint = argTaint || f.taint.has(r)
		}
	}
	// type(x), its argument a copy of local x: R(a) holds type(R(x)).
	src := -1
	if fl.value(f, a) == fl.trust.Type && b == 2 && c == 2 {
		if cp, ok := f.bound(arg, bindCopy); ok {
			src = int(cp.x) - 1
		}
	}
	result := func(r int) {
		switch k {
		case Reads:
			f.set(r, false, true)
		case Passes, Iterates:
			f.set(r, argTaint, false)
		case Fresh:
			f.set(r, argTaint || fl.fresh, false)
		default:
			f.set(r, false, false)
		}
	}
	last := a + c - 2
	if c == 0 {
		last = 255
	}
	for r := a; r <= last; r++ {
		result(r)
	}
	if src >= 0 && a < 255 {
		f.addBind(bind{r: uint8(a + 1), x: uint8(src + 1)})
	}
}

// AssignedUpvalues returns the functions of a chunk (main and every function
// nested in it) and the names of the upvalues any of them assigns (SETUPVAL):
// once the chunk has run, an upvalue of one of its functions whose name is
// not among them holds its value for good. all is true when an assignment's
// name is unknown (no debug names) or the release is not Pinned: then no
// upvalue is fixed.
func AssignedUpvalues(main *lua.FunctionProto) (protos map[*lua.FunctionProto]bool, names map[string]bool, all bool) {
	protos, names = map[*lua.FunctionProto]bool{}, map[string]bool{}
	all = !Pinned
	var walk func(p *lua.FunctionProto, depth int)
	walk = func(p *lua.FunctionProto, depth int) {
		if p == nil || protos[p] || depth > 256 {
			all = all || depth > 256
			return
		}
		protos[p] = true
		for _, inst := range p.Code {
			if op(inst) != lua.OP_SETUPVAL {
				continue
			}
			if b := argB(inst); b < len(p.DbgUpvalues) {
				names[p.DbgUpvalues[b]] = true
			} else {
				all = true
			}
		}
		for _, q := range p.FunctionPrototypes {
			walk(q, depth+1)
		}
	}
	walk(main, 0)
	return protos, names, all
}
