package codec

import (
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
//     input's own tables hold no functions), or in a return;
//   - captured: in a register a closure shares;
//   - handed to a metamethod that Lua code may have written: used as a key
//     (t[k] may call __index), or next to an operand of unknown type in
//     arithmetic or a concatenation (OP_CONCAT, or a call of concat, the Go
//     function the caller's compiler makes of every `..` and loads as a
//     constant with LOADK, which is read as the same instruction);
//
// and input's tables are never written. Input's tables themselves carry
// protected metatables without metamethods, so reading, comparing and
// measuring them calls no Lua code. A Go function, a function that reaches
// input through ..., or an instruction this analysis does not know is
// answered no. Any answer of no only costs the recycling.
func LeavesInput(fn *lua.LFunction, concat lua.LValue) bool {
	if fn == nil || fn.IsG || fn.Proto == nil {
		return false
	}
	p := fn.Proto
	if p.NumParameters == 0 {
		return p.IsVarArg == 0 // input is reachable only through ...
	}
	fl := newFlow(p)
	fl.concatFn = concat
	return fl.run()
}

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
type facts struct {
	taint, plain, method, concat regs
}

func (f *facts) merge(o *facts) bool {
	before := *f
	for i := range f.taint {
		f.taint[i] |= o.taint[i]
		f.plain[i] &= o.plain[i]
		f.method[i] &= o.method[i]
		f.concat[i] &= o.concat[i]
	}
	return *f != before
}

// set records a write of R(r): tainted or not, plain or not.
func (f *facts) set(r int, tainted, plain bool) {
	f.taint.put(r, tainted)
	f.plain.put(r, plain)
	f.method.put(r, false)
	f.method.put(r-1, false)
	f.concat.put(r, false)
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
}

func newFlow(p *lua.FunctionProto) *flow {
	fl := &flow{p: p, at: make([]facts, len(p.Code)), seen: make([]bool, len(p.Code))}
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
	entry.taint.put(0, true)
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
		f.set(a, f.taint.has(b), f.plain.has(b))
	case lua.OP_LOADK:
		isConcat := argBx(inst) < len(fl.p.Constants) && fl.p.Constants[argBx(inst)] == fl.concatFn
		f.set(a, false, !isConcat)
		f.concat.put(a, isConcat)
	case lua.OP_LOADBOOL:
		f.set(a, false, true)
		if c != 0 {
			next = pc + 2
		}
	case lua.OP_LOADNIL:
		for r := a; r <= b; r++ {
			f.set(r, false, true)
		}
	case lua.OP_GETUPVAL, lua.OP_GETGLOBAL, lua.OP_NEWTABLE:
		f.set(a, false, false)
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		if tainted(c) {
			return false // a key may reach an __index written in Lua
		}
		f.set(a, f.taint.has(b), false)
	case lua.OP_SETGLOBAL, lua.OP_SETUPVAL:
		if f.taint.has(a) {
			return false
		}
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
		if f.taint.has(a) || tainted(b) || tainted(c) {
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
		f.set(a, false, false)
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
		if !fl.call(f, inst) {
			return false
		}
	case lua.OP_TAILCALL:
		if !fl.call(f, inst) {
			return false
		}
	case lua.OP_JMP:
		next = pc + 1 + argSBx(inst)
	case lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST:
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
		if b == 0 {
			return !f.taint.from(a)
		}
		for r := a; r <= a+b-2; r++ {
			if f.taint.has(r) {
				return false
			}
		}
		return true
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
