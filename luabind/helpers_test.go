package luabind

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
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

// bounded is what runBounded measured of one hook call.
type bounded struct {
	err     error
	elapsed time.Duration
	alloc   uint64 // bytes allocated during the call, by the whole process
}

// runBounded loads code as the body of a Stop hook and calls it once under
// deadline, measuring the time it took and the memory it allocated.
func runBounded(t *testing.T, code string, opts Options, deadline time.Duration) bounded {
	t.Helper()
	f := load(t, "hook.register('Stop', nil, function(input, rt)\n"+code+"\nend)", opts)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := f.Registrations()[0].Hook.Call(ctx, &luahook.Input{Event: luahook.Stop})
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	return bounded{err, elapsed, after.TotalAlloc - before.TotalAlloc}
}
