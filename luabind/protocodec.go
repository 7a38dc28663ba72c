package luabind

import (
	"fmt"
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/luabind/internal/binenc"
)

// The compiled-chunk cache (DiskCache) rebuilds a *lua.FunctionProto from
// its exported fields and the one unexported field the VM reads,
// stringConstants: gopher-lua's compiler derives it from Constants (each
// string constant, "" for the others; compile.go, compileFunctionExpr), and
// so does decodeProto. The field is found by name and type when the package
// loads; a gopher-lua without it leaves the cache off (OpenDiskCache fails).
var stringConstantsOffset, stringConstantsSettable = func() (uintptr, bool) {
	f, ok := reflect.TypeFor[lua.FunctionProto]().FieldByName("stringConstants")
	if !ok || f.Type != reflect.TypeFor[[]string]() {
		return 0, false
	}
	return f.Offset, true
}()

// setStringConstants sets p's stringConstants as the compiler does.
func setStringConstants(p *lua.FunctionProto) {
	sc := make([]string, len(p.Constants))
	for i, k := range p.Constants {
		if s, ok := k.(lua.LString); ok {
			sc[i] = string(s)
		}
	}
	*(*[]string)(unsafe.Add(unsafe.Pointer(p), stringConstantsOffset)) = sc
}

// Constant tags.
const (
	constNil = iota
	constFalse
	constTrue
	constNumber
	constString
	constConcat // concatFn, written as the marker it stands for
)

// maxProtoDepth bounds the nesting of prototypes decodeProto follows; the
// source's nesting (scanNesting) keeps compiled chunks well inside it.
const maxProtoDepth = 512

func encodeProto(w *binenc.Writer, p *lua.FunctionProto, depth int) error {
	if depth > maxProtoDepth {
		return fmt.Errorf("prototypes nested deeper than %d", maxProtoDepth)
	}
	w.String(p.SourceName)
	w.Int(p.LineDefined)
	w.Int(p.LastLineDefined)
	w.Byte(p.NumUpvalues)
	w.Byte(p.NumParameters)
	w.Byte(p.IsVarArg)
	w.Byte(p.NumUsedRegisters)
	w.Uint(uint64(len(p.Code)))
	for _, c := range p.Code {
		w.Uint32(c)
	}
	w.Uint(uint64(len(p.Constants)))
	for _, k := range p.Constants {
		switch v := k.(type) {
		case *lua.LNilType:
			w.Byte(constNil)
		case lua.LBool:
			if v {
				w.Byte(constTrue)
			} else {
				w.Byte(constFalse)
			}
		case lua.LNumber:
			w.Byte(constNumber)
			w.Float(float64(v))
		case lua.LString:
			w.Byte(constString)
			w.String(string(v))
		case *lua.LFunction:
			if v != concatFn {
				return fmt.Errorf("constant of type %s", k.Type())
			}
			w.Byte(constConcat)
		default:
			return fmt.Errorf("constant of type %s", k.Type())
		}
	}
	w.Uint(uint64(len(p.FunctionPrototypes)))
	for _, c := range p.FunctionPrototypes {
		if err := encodeProto(w, c, depth+1); err != nil {
			return err
		}
	}
	w.Uint(uint64(len(p.DbgSourcePositions)))
	for _, l := range p.DbgSourcePositions {
		w.Int(l)
	}
	w.Uint(uint64(len(p.DbgLocals)))
	for _, l := range p.DbgLocals {
		w.String(l.Name)
		w.Int(l.StartPc)
		w.Int(l.EndPc)
	}
	w.Uint(uint64(len(p.DbgCalls)))
	for _, c := range p.DbgCalls {
		w.String(c.Name)
		w.Int(c.Pc)
	}
	w.Uint(uint64(len(p.DbgUpvalues)))
	for _, u := range p.DbgUpvalues {
		w.String(u)
	}
	return nil
}

// decodeProto reads what encodeProto wrote. Errors stick in r (and the
// prototype returned is then never used). Every prototype's SourceName is
// the chunk's path.
func decodeProto(r *binenc.Reader, path string, depth int) *lua.FunctionProto {
	if depth > maxProtoDepth || r.Err() != nil {
		r.Fail()
		return nil
	}
	p := &lua.FunctionProto{}
	if r.String() != path {
		r.Fail()
		return nil
	}
	p.SourceName = path
	p.LineDefined = r.Int()
	p.LastLineDefined = r.Int()
	p.NumUpvalues = r.Byte()
	p.NumParameters = r.Byte()
	p.IsVarArg = r.Byte()
	p.NumUsedRegisters = r.Byte()
	p.Code = make([]uint32, r.Count(4))
	for i := range p.Code {
		p.Code[i] = r.Uint32()
	}
	p.Constants = make([]lua.LValue, r.Count(1))
	for i := range p.Constants {
		switch r.Byte() {
		case constNil:
			p.Constants[i] = lua.LNil
		case constFalse:
			p.Constants[i] = lua.LFalse
		case constTrue:
			p.Constants[i] = lua.LTrue
		case constNumber:
			p.Constants[i] = lua.LNumber(r.Float())
		case constString:
			p.Constants[i] = lua.LString(r.String())
		case constConcat:
			p.Constants[i] = lua.LString(concatMarker)
		default:
			r.Fail()
			return nil
		}
	}
	setStringConstants(p)
	p.FunctionPrototypes = make([]*lua.FunctionProto, r.Count(1))
	for i := range p.FunctionPrototypes {
		if p.FunctionPrototypes[i] = decodeProto(r, path, depth+1); p.FunctionPrototypes[i] == nil {
			return nil
		}
	}
	p.DbgSourcePositions = make([]int, r.Count(1))
	for i := range p.DbgSourcePositions {
		p.DbgSourcePositions[i] = r.Int()
	}
	locals := make([]lua.DbgLocalInfo, r.Count(3))
	p.DbgLocals = make([]*lua.DbgLocalInfo, len(locals))
	for i := range locals {
		locals[i] = lua.DbgLocalInfo{Name: r.String(), StartPc: r.Int(), EndPc: r.Int()}
		p.DbgLocals[i] = &locals[i]
	}
	p.DbgCalls = make([]lua.DbgCall, r.Count(2))
	for i := range p.DbgCalls {
		p.DbgCalls[i] = lua.DbgCall{Name: r.String(), Pc: r.Int()}
	}
	p.DbgUpvalues = make([]string, r.Count(1))
	for i := range p.DbgUpvalues {
		p.DbgUpvalues[i] = r.String()
	}
	if r.Err() != nil {
		return nil
	}
	return p
}
