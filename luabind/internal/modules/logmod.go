package modules

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"

	"github.com/luahook/luahook/luabind/internal/codec"
)

const (
	levelDebug = slog.LevelDebug
	levelInfo  = slog.LevelInfo
	levelWarn  = slog.LevelWarn
	levelError = slog.LevelError
)

// OpenLog opens the log module: log.debug, log.info, log.warn and
// log.error(msg[, fields]). Records go to Config.Logger with the attributes
// file (the hook file's path) and hook (the hook's name; absent while the file
// loads), then the fields in the order they were set. Field values that are
// tables are logged as their JSON text.
func (m *Modules) OpenLog() {
	L := m.L
	mod := L.CreateTable(0, 4)
	for name, level := range map[string]slog.Level{
		"debug": levelDebug, "info": levelInfo, "warn": levelWarn, "error": levelError,
	} {
		mod.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			msg := L.CheckString(1)
			fields := L.OptTable(2, nil)
			m.logAt(L, level, msg, fields)
			return 0
		}))
	}
	L.G.Global.RawSetString("log", mod)
}

// logContext is the context records are logged with: the call's.
func (m *Modules) logContext() context.Context {
	if ctx := m.host.CallContext(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// logAt logs msg and fields at level, within the bounds of a record: nothing
// is built when the level is disabled.
func (m *Modules) logAt(L *lua.LState, level slog.Level, msg string, fields *lua.LTable) {
	ctx := m.logContext()
	logger := m.cfg.Logger
	if !logger.Enabled(ctx, level) {
		return
	}
	budget := MaxLogRecordBytes
	msg = cut(msg, min(MaxLogMessageBytes, budget))
	budget -= len(msg)
	attrs := make([]slog.Attr, 0, 4)
	attrs = append(attrs, slog.String("file", m.cfg.Path))
	if name := m.host.HookName(); name != "" {
		attrs = append(attrs, slog.String("hook", name))
	}
	if fields != nil {
		n := 0
		for k, v := fields.Next(lua.LNil); k != lua.LNil; k, v = fields.Next(k) {
			if n == MaxLogFields || budget <= 0 {
				attrs = append(attrs, slog.String("fields_dropped", fmt.Sprintf("the fields past the first %d (%d bytes of the %d-byte record limit)", n, MaxLogRecordBytes-budget, MaxLogRecordBytes)))
				break
			}
			n++
			key := cut(lua.LVAsString(k), min(MaxLogValueBytes, budget))
			budget -= len(key)
			val := m.logValue(v, max(min(MaxLogValueBytes, budget), 0))
			if val.Kind() == slog.KindString {
				budget -= len(val.String())
			}
			attrs = append(attrs, slog.Attr{Key: key, Value: val})
		}
	}
	logger.LogAttrs(ctx, level, msg, attrs...)
}

// logValue is a field's value, a string cut at limit bytes; a table is its
// JSON text.
func (m *Modules) logValue(v lua.LValue, limit int) slog.Value {
	switch v := v.(type) {
	case lua.LString:
		return slog.StringValue(cut(string(v), limit))
	case lua.LNumber:
		f := float64(v)
		if f == float64(int64(f)) {
			return slog.Int64Value(int64(f))
		}
		return slog.Float64Value(f)
	case lua.LBool:
		return slog.BoolValue(bool(v))
	case *lua.LTable, *lua.LUserData:
		raw, err := m.codec.Enc.EncodeAtMost(v, limit)
		if err == nil {
			return slog.StringValue(string(raw))
		}
		if ee, ok := err.(*codec.EncodeError); ok && ee.TooLong {
			return slog.StringValue(string(raw[:min(len(raw), limit)]) + "…[JSON text cut at " + strconv.Itoa(limit) + " bytes]")
		}
	}
	return slog.StringValue(cut(v.String(), limit))
}

// cut returns s cut to at most limit bytes (and never inside a UTF-8
// sequence), saying how many bytes were cut.
func cut(s string, limit int) string { return cutText(s, len(s), limit) }

// cutText is cut of a text of total bytes of which s holds the first ones,
// at least min(total, limit+1).
func cutText(s string, total, limit int) string {
	if total <= limit {
		return s
	}
	i := max(limit, 0)
	for j := 0; j < utf8.UTFMax && i > 0 && !utf8.RuneStart(s[i]); j++ {
		i--
	}
	return s[:i] + "…[" + strconv.Itoa(total-i) + " bytes cut]"
}

// Print is the sandbox's print: it sends its arguments to the logger at
// level info, cut as a log message is; at a disabled level it converts
// nothing.
func (m *Modules) Print(L *lua.LState) int {
	if m.cfg.Logger.Enabled(m.logContext(), levelInfo) {
		m.logAt(L, levelInfo, PrintText(L, MaxLogMessageBytes), nil)
	}
	return 0
}

// PrintText is print's arguments converted with tostring (metamethods
// included, as Lua 5.1 does) and joined by tabs, cut at limit bytes: every
// argument is converted, only what fits is kept.
func PrintText(L *lua.LState, limit int) string {
	var b strings.Builder
	total := 0
	keep := func(s string) {
		if room := limit + 1 - b.Len(); room > 0 {
			b.WriteString(s[:min(len(s), room)])
		}
		total += len(s)
	}
	for i := 1; i <= L.GetTop(); i++ {
		if i > 1 {
			keep("\t")
		}
		keep(L.ToStringMeta(L.Get(i)).String())
	}
	return cutText(b.String(), total, limit)
}

// Bounds of one log record (print's output or a log call). A part past its
// bound is cut, and says how many bytes were cut; fields past the last one
// that fits are dropped.
const (
	MaxLogMessageBytes = 32 << 10 // the message: print's joined arguments, log's msg
	MaxLogValueBytes   = 8 << 10  // one field's value (a table: its JSON text)
	MaxLogFields       = 64       // fields of one record
	MaxLogRecordBytes  = 64 << 10 // message, field names and values together
)
