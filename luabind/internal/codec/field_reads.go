package codec

import lua "github.com/yuin/gopher-lua"

// MayReadField reports whether fn, called as fn(input, rt), may read
// input[key]. It answers no only when fn's bytecode shows that input itself
// (the first parameter, and every register it is moved into) is never used
// but to read fields under constant keys other than key: never indexed with
// a computed key, never passed to a call (pairs, json.encode, a library
// function), returned, stored, captured by a closure, compared or written.
// Fields read from input are followed no further: the tables they hold do
// not lead back to input. The analysis ignores control flow (a register
// that holds input on one path counts as holding it everywhere), so it errs
// only towards yes, which costs only the conversion of a field the hook
// never reads.
func MayReadField(fn *lua.LFunction, key string) bool {
	if fn == nil || fn.IsG || fn.Proto == nil {
		return true
	}
	p := fn.Proto
	if p.NumParameters == 0 {
		return p.IsVarArg != 0 // input is reachable only through ...
	}
	code := p.Code
	// The words that are not instructions: the upvalue descriptions after a
	// CLOSURE (whose MOVEs capture a register: the closure shares it, and
	// sees what is written to it later too) and SETLIST's extended count.
	data := make([]bool, len(code))
	var captured regs
	// target[pc]: pc is reached other than from pc-1 (a jump, a skip).
	target := make([]bool, len(code)+2)
	for pc, inst := range code {
		switch op(inst) {
		case lua.OP_JMP, lua.OP_FORPREP, lua.OP_FORLOOP:
			if t := pc + 1 + argSBx(inst); t >= 0 && t < len(code) {
				target[t] = true
			}
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST, lua.OP_TESTSET, lua.OP_TFORLOOP:
			target[pc+2] = true
		case lua.OP_LOADBOOL:
			if argC(inst) != 0 {
				target[pc+2] = true
			}
		case lua.OP_CLOSURE:
			if argBx(inst) >= len(p.FunctionPrototypes) {
				return true
			}
			nups := int(p.FunctionPrototypes[argBx(inst)].NumUpvalues)
			target[min(pc+1+nups, len(code))] = true
			for k := 1; k <= nups && pc+k < len(code); k++ {
				data[pc+k] = true
				if op(code[pc+k]) == lua.OP_MOVE {
					captured.put(argB(code[pc+k]), true)
				}
			}
		case lua.OP_SETLIST:
			if argC(inst) == 0 && pc+1 < len(code) {
				data[pc+1], target[pc+2] = true, true
			}
		}
	}
	// at[pc]: the registers that may hold input itself when the instruction
	// at pc runs, on some path from the entry; R0 at the entry. Input gets
	// into a register only by a copy (MOVE, MOVEN and the MOVEs after it, a
	// TESTSET: x = input or y): a call given input, a global or an upvalue
	// holding it are uses of it, and the tables read from input do not lead
	// back to it. A write of anything else takes the register out.
	at := make([]regs, len(code))
	seen := make([]bool, len(code))
	var work []int
	reach := func(pc int, in regs) {
		if pc < 0 || pc >= len(code) {
			return
		}
		if seen[pc] {
			merged := at[pc]
			for i := range merged {
				merged[i] |= in[i]
			}
			if merged == at[pc] {
				return
			}
			in = merged
		}
		seen[pc], at[pc] = true, in
		work = append(work, pc)
	}
	var entry regs
	entry.put(0, true)
	reach(0, entry)
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		if data[pc] {
			continue
		}
		in := at[pc]
		if in.any(&captured) {
			return true // a closure may read input through a shared register
		}
		inst := code[pc]
		a, b, c := argA(inst), argB(inst), argC(inst)
		if fieldUse(p, &in, inst, key, keyAt(p, pc, target)) {
			return true
		}
		kill := func(from, to int) {
			for r := from; r <= to; r++ {
				in.put(r, false)
			}
		}
		next := pc + 1
		switch op(inst) {
		case lua.OP_MOVE, lua.OP_MOVEN:
			in.put(a, in.has(b))
		case lua.OP_TESTSET:
			reach(pc+2, in) // R(B) tested and left alone
			in.put(a, in.has(b))
		case lua.OP_LOADK, lua.OP_GETGLOBAL, lua.OP_GETUPVAL, lua.OP_NEWTABLE, lua.OP_GETTABLE, lua.OP_GETTABLEKS,
			lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW,
			lua.OP_UNM, lua.OP_NOT, lua.OP_LEN, lua.OP_CONCAT:
			in.put(a, false)
		case lua.OP_LOADBOOL:
			in.put(a, false)
			if c != 0 {
				next = pc + 2
			}
		case lua.OP_LOADNIL:
			kill(a, b)
		case lua.OP_SELF:
			kill(a, a+1)
		case lua.OP_CLOSURE:
			in.put(a, false)
			next = pc + 1 + int(p.FunctionPrototypes[argBx(inst)].NumUpvalues)
		case lua.OP_CALL:
			if c == 0 {
				kill(a, 255)
			} else {
				kill(a, a+c-2)
			}
		case lua.OP_VARARG:
			if b == 0 {
				kill(a, 255)
			} else {
				kill(a, a+b-2)
			}
		case lua.OP_EQ, lua.OP_LT, lua.OP_LE, lua.OP_TEST:
			reach(pc+2, in)
		case lua.OP_JMP, lua.OP_FORPREP:
			if op(inst) == lua.OP_FORPREP {
				kill(a, a)
			}
			next = pc + 1 + argSBx(inst)
		case lua.OP_FORLOOP:
			kill(a, a)
			kill(a+3, a+3)
			reach(pc+1+argSBx(inst), in)
		case lua.OP_TFORLOOP:
			kill(a+3, a+2+c)
			reach(pc+2, in)
		case lua.OP_SETLIST:
			if c == 0 {
				next = pc + 2 // the next word is C itself
			}
		case lua.OP_RETURN:
			continue
		}
		reach(next, in)
	}
	return false
}

// fieldUse reports whether the instruction inst, run with input itself in
// the registers in, may read input[key] or let input go where it could be
// read: anything but reading a field of input under another constant key,
// copying input, or testing it.
func fieldUse(p *lua.FunctionProto, in *regs, inst uint32, key string, loaded lua.LValue) bool {
	a, b, c := argA(inst), argB(inst), argC(inst)
	rk := func(x int) bool { return x&rkConst == 0 && in.has(x) }
	span := func(from, to int) bool { // any register of from..to
		for r := from; r <= to; r++ {
			if in.has(r) {
				return true
			}
		}
		return false
	}
	switch op(inst) {
	case lua.OP_MOVE, lua.OP_MOVEN, lua.OP_TESTSET, lua.OP_TEST,
		lua.OP_LOADK, lua.OP_LOADBOOL, lua.OP_LOADNIL, lua.OP_GETGLOBAL, lua.OP_GETUPVAL,
		lua.OP_NEWTABLE, lua.OP_CLOSURE, lua.OP_VARARG, lua.OP_JMP, lua.OP_CLOSE, lua.OP_NOP:
		return false // copies (followed by the caller), truthiness tests, and writes
	case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
		if in.has(b) {
			k := loaded // a key LOADK put in R(C) just before
			if c&rkConst != 0 && c&^rkConst < len(p.Constants) {
				k = p.Constants[c&^rkConst]
			}
			if k == nil {
				return true // a computed key
			}
			if s, ok := k.(lua.LString); ok && string(s) == key {
				return true
			}
		}
		return rk(c)
	case lua.OP_SETGLOBAL, lua.OP_SETUPVAL:
		return in.has(a)
	case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
		return in.has(a) || rk(b) || rk(c)
	case lua.OP_SELF:
		return in.has(b) || rk(c)
	case lua.OP_ADD, lua.OP_SUB, lua.OP_MUL, lua.OP_DIV, lua.OP_MOD, lua.OP_POW,
		lua.OP_EQ, lua.OP_LT, lua.OP_LE:
		return rk(b) || rk(c)
	case lua.OP_UNM, lua.OP_NOT, lua.OP_LEN:
		return in.has(b)
	case lua.OP_CONCAT:
		return span(b, c)
	case lua.OP_CALL, lua.OP_TAILCALL:
		if b == 0 {
			return in.from(a) // the function and its arguments, up to the top
		}
		return span(a, a+b-1)
	case lua.OP_RETURN:
		if b == 0 {
			return in.from(a)
		}
		return span(a, a+b-2)
	case lua.OP_SETLIST:
		if b == 0 {
			return in.from(a)
		}
		return span(a, a+b)
	case lua.OP_TFORLOOP, lua.OP_FORPREP, lua.OP_FORLOOP:
		return span(a, a+2)
	}
	return true // an instruction this analysis does not know
}

// keyAt returns the constant that the instruction before pc loaded into
// the register the GETTABLE at pc takes its key from (the compiler's way of
// writing input.toolInput under register pressure), or nil when the key may
// be anything: a constant RK operand, a jump target, or any other case.
func keyAt(p *lua.FunctionProto, pc int, target []bool) lua.LValue {
	inst := p.Code[pc]
	if (op(inst) != lua.OP_GETTABLE && op(inst) != lua.OP_GETTABLEKS) || argC(inst)&rkConst != 0 || pc == 0 || target[pc] {
		return nil
	}
	prev := p.Code[pc-1]
	if op(prev) != lua.OP_LOADK || argA(prev) != argC(inst) || argBx(prev) >= len(p.Constants) {
		return nil
	}
	return p.Constants[argBx(prev)]
}
