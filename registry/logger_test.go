package registry

import (
	"context"
	"log/slog"
)

type recordingHandler struct{ msgs *[]string }

func (h recordingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordingHandler) Handle(_ context.Context, r slog.Record) error {
	*h.msgs = append(*h.msgs, r.Message)
	return nil
}
func (h recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h recordingHandler) WithGroup(string) slog.Handler      { return h }

func newRecordingLogger(msgs *[]string) *slog.Logger { return slog.New(recordingHandler{msgs}) }
