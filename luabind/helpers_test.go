package luabind

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

const testPath = "hooks.d/test.lua"

// load compiles and loads src as testPath, failing the test on any error.
func load(t testing.TB, src string, opts Options) *File {
	t.Helper()
	f, err := loadSrc(testPath, src, opts)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	t.Cleanup(f.Close)
	return f
}

func loadSrc(path, src string, opts Options) (*File, error) {
	c, err := Compile(path, []byte(src))
	if err != nil {
		return nil, err
	}
	return Load(context.Background(), c, opts)
}

// loadError loads src and returns its *LoadError, failing if it loads.
func loadError(t *testing.T, src string, opts Options) *LoadError {
	t.Helper()
	f, err := loadSrc(testPath, src, opts)
	if err == nil {
		f.Close()
		t.Fatalf("load succeeded, want an error")
	}
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error %T %v, want *LoadError", err, err)
	}
	return le
}

// call calls registration i of f with a generous deadline.
func call(t testing.TB, f *File, i int, in *luahook.Input) (*luahook.Outcome, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return f.Registrations()[i].Hook.Call(ctx, in)
}

// failure returns err as a *luahook.Failure, failing the test when it is not one.
func failure(t testing.TB, err error) *luahook.Failure {
	t.Helper()
	var f *luahook.Failure
	if !errors.As(err, &f) {
		t.Fatalf("error %T %v, want a *luahook.Failure", err, err)
	}
	return f
}

func preToolUse(tool, toolInput string) *luahook.Input {
	return &luahook.Input{Event: luahook.PreToolUse, ToolName: tool, ToolInput: json.RawMessage(toolInput), Cwd: "/work", SessionID: "s1"}
}
