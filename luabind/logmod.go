package luabind

import (
	"context"
	"log/slog"

	lua "github.com/yuin/gopher-lua"
)

const (
	levelDebug = slog.LevelDebug
	levelInfo  = slog.LevelInfo
	levelWarn  = slog.LevelWarn
	levelError = slog.LevelError
)

// openLog opens the log module: log.debug, log.info, log.warn and
// log.error(msg[, fields]). Records go to Options.Logger with the attributes
// file (the hook file's path) and hook (the hook's name; absent while the file
// loads), then the fields in the order they were set. Field values that are
// tables are logged as their JSON text.
func (st *state) openLog() {
	L := st.L
	mod := L.CreateTable(0, 4)
	for name, level := range map[string]slog.Level{
		"debug": levelDebug, "info": levelInfo, "warn": levelWarn, "error": levelError,
	} {
		mod.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			msg := L.CheckString(1)
			fields := L.OptTable(2, nil)
			st.logAt(L, level, msg, fields)
			return 0
		}))
	}
	L.G.Global.RawSetString("log", mod)
}

func (st *state) logAt(L *lua.LState, level slog.Level, msg string, fields *lua.LTable) {
	ctx := context.Background()
	if st.ctx != nil {
		ctx = st.ctx
	}
	logger := st.sh.log
	if !logger.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 4)
	attrs = append(attrs, slog.String("file", st.sh.path))
	if st.name != "" {
		attrs = append(attrs, slog.String("hook", st.name))
	}
	if fields != nil {
		for k, v := fields.Next(lua.LNil); k != lua.LNil; k, v = fields.Next(k) {
			attrs = append(attrs, slog.Attr{Key: lua.LVAsString(k), Value: st.logValue(v)})
		}
	}
	logger.LogAttrs(ctx, level, msg, attrs...)
}

func (st *state) logValue(v lua.LValue) slog.Value {
	switch v := v.(type) {
	case lua.LString:
		return slog.StringValue(string(v))
	case lua.LNumber:
		f := float64(v)
		if f == float64(int64(f)) {
			return slog.Int64Value(int64(f))
		}
		return slog.Float64Value(f)
	case lua.LBool:
		return slog.BoolValue(bool(v))
	case *lua.LTable, *lua.LUserData:
		if raw, err := st.enc.encode(v); err == nil {
			return slog.StringValue(string(raw))
		}
	}
	return slog.StringValue(v.String())
}

// Bounds of one log record (print's output or a log call). A part past its
// bound is cut, and says how many bytes were cut; fields past the last one
// that fits are dropped.
const (
	maxLogMessageBytes = 32 << 10 // the message: print's joined arguments, log's msg
	maxLogValueBytes   = 8 << 10  // one field's value (a table: its JSON text)
	maxLogFields       = 64       // fields of one record
	maxLogRecordBytes  = 64 << 10 // message, field names and values together
)
