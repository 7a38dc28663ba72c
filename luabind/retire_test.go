package luabind

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
	"weak"
)

// TestRetiredFileReleasesEverythingOnceItsLastCallEnds: a file closed while
// calls run on it (a reload swapping it out under load) closes every state
// as its call returns, including calls that fail, time out or arrive after
// Close; once the last call has returned and nobody refers to the file, the
// file, its pool and its states are garbage: nothing of luabind keeps them.
func TestRetiredFileReleasesEverythingOnceItsLastCallEnds(t *testing.T) {
	src := `
local words = {}
for i = 1, 200 do words[i] = "word" .. i end
hook.register("PreToolUse", nil, function(input)
  local cmd = input.toolInput.command
  if cmd == "fail" then error("asked to fail") end
  if cmd == "spin" then while true do end end
  local n = 0
  for _, w in ipairs(words) do
    if cmd:find(w, 1, true) then n = n + 1 end
  end
  return hook.deny("matched " .. n)
end)`
	// Not load: its cleanup would keep the file.
	f, err := loadSrc(testPath, src, Options{MaxStates: 3})
	if err != nil {
		t.Fatal(err)
	}
	gone := weak.Make(f)
	pool := weak.Make(f.pool)
	hook := f.Registrations()[0].Hook
	var states []weak.Pointer[state]
	var mu sync.Mutex
	grow := f.pool.grow
	f.pool.grow = func(ctx context.Context) (*state, error) {
		st, err := grow(ctx)
		if err == nil {
			mu.Lock()
			states = append(states, weak.Make(st))
			mu.Unlock()
		}
		return st, err
	}

	const callers, calls = 6, 60
	var wg sync.WaitGroup
	started := make(chan struct{}, callers)
	for g := range callers {
		wg.Go(func() {
			for i := range calls {
				cmd := "word7 word9"
				switch {
				case g == 0 && i%10 == 3:
					cmd = "fail"
				case g == 1 && i%20 == 5:
					cmd = "spin"
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
				hook.Call(ctx, preToolUse("bash", `{"command":"`+cmd+`"}`))
				cancel()
				if i == 0 {
					started <- struct{}{}
				}
			}
		})
	}
	for range callers {
		<-started
	}
	// A call surely in flight as the file is retired, besides the callers'.
	held, err := f.pool.get(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	wg.Wait()
	f.pool.put(held)
	if !held.L.IsClosed() {
		t.Error("a state returned after Close was not closed")
	}
	// A late call, from a caller that read the registry before the swap.
	if out, err := call(t, f, 0, preToolUse("bash", `{"command":"word1"}`)); err != nil || out.Reason != "matched 1" {
		t.Fatalf("late call = %v, %v", out, err)
	}
	if s := f.Stats(); s.Idle != 0 || s.Busy != 0 || !s.Retired {
		t.Fatalf("stats %+v after the last call, want no state idle or busy", s)
	}
	if n := f.pool.live.Load(); n != 0 {
		t.Fatalf("%d states still alive after the last call", n)
	}
	f, hook, held = nil, nil, nil // the test's own references go
	for range 4 {
		runtime.GC()
	}
	if gone.Value() != nil || pool.Value() != nil {
		t.Fatal("the retired file or its pool is still reachable after its last call")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(states) == 0 {
		t.Fatal("no state was built during the calls")
	}
	for i, st := range states {
		if st.Value() != nil {
			t.Errorf("state %d of %d still reachable", i+1, len(states))
		}
	}
}
