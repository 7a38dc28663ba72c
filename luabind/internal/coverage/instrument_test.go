package coverage

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// measure instruments src, runs it in a plain gopher-lua state and returns
// its report and the run's error.
func measure(t *testing.T, src string) (Report, error) {
	t.Helper()
	var c Counters
	stmts, err := parse.Parse(strings.NewReader(src), "f.lua")
	if err != nil {
		t.Fatal(err)
	}
	stmts, lines, err := Instrument(stmts)
	if err != nil {
		t.Fatal(err)
	}
	proto, err := lua.Compile(stmts, "f.lua")
	if err != nil {
		t.Fatal(err)
	}
	Resolve(proto, c.File("f.lua", lines).Func())
	L := lua.NewState()
	defer L.Close()
	L.Push(L.NewFunctionFromProto(proto))
	runErr := L.PCall(0, 0, nil)
	reps := c.Reports()
	if len(reps) != 1 {
		t.Fatalf("%d reports, want 1", len(reps))
	}
	return reps[0], runErr
}

func TestInstrumentCountsExactlyTheLinesThatRan(t *testing.T) {
	for _, tc := range []struct {
		name               string
		src                string
		covered, uncovered []int
	}{{
		name: "an else branch never taken is uncovered",
		src: `local function check(x)  -- 1
  if x > 10 then                       -- 2
    return "big"                       -- 3
  elseif x > 5 then                    -- 4
    return "medium"                    -- 5
  else                                 -- 6
    return "small"                     -- 7
  end                                  -- 8
end                                    -- 9
check(20)                              -- 10
check(7)                               -- 11
`,
		covered: []int{1, 2, 3, 4, 5, 10, 11}, uncovered: []int{7},
	}, {
		name: "a function that never runs leaves its body uncovered",
		src: `local t = {}
function t.used() return 1 end
function t.unused()
  local a = 1
  return a
end
local f = function()
  return 2
end
t.used()
`,
		covered: []int{1, 2, 3, 7, 10}, uncovered: []int{4, 5, 8},
	}, {
		name: "loops: the body of a loop that never iterates is uncovered",
		src: `local n = 0
for i = 1, 3 do
  n = n + i
end
for _, v in ipairs({}) do
  n = n + v
end
while n < 10 do
  n = n + 1
end
repeat
  n = n - 1
until n < 5
while false do
  break
end
`,
		covered: []int{1, 2, 3, 5, 8, 9, 12, 13, 14}, uncovered: []int{6, 15},
	}, {
		name: "closures count where they are written",
		src: `local function counter()
  local n = 0
  return function()
    n = n + 1
    return n
  end
end
local c = counter()
local d = counter
`,
		covered: []int{1, 2, 3, 8, 9}, uncovered: []int{4, 5},
	}, {
		name: "goto and labels: labels are not executable, skipped code is uncovered",
		src: `local i = 0
::top::
i = i + 1
if i < 3 then goto top end
goto done
i = 100
::done::
for j = 1, 2 do
  if j == 1 then goto continue end
  i = i + j
  ::continue::
end
`,
		covered: []int{1, 3, 4, 5, 8, 9, 10}, uncovered: []int{6},
	}, {
		name: "several statements on one line, statements spanning lines",
		src: `local a = 1 local b = 2 if a > b then a = 0 end
local t = {
  x = a,
  y = b,
}
local s = string.format("%d %d",
  t.x,
  t.y)
if a > b then local z = 1; z = 2 end
`,
		covered: []int{1, 2, 6, 9}, uncovered: []int{},
	}, {
		name: "return as the last statement, varargs",
		src: `local function first(...)
  local n = select("#", ...)
  if n == 0 then
    return nil
  end
  return (...)
end
return first(1, 2)
`,
		covered: []int{1, 2, 3, 6, 8}, uncovered: []int{4},
	}, {
		name: "a multi-line repeat counts its until line; do lines do not count",
		src: `local n = 3
repeat
  n = n - 1
until
  n == 0
do
  local x = n
end
repeat
  local k = 1
  break
until true
`,
		covered: []int{1, 3, 5, 7, 10, 11}, uncovered: []int{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := measure(t, tc.src)
			if err != nil {
				t.Fatalf("the fixture failed: %v", err)
			}
			if !slices.Equal(r.Covered, tc.covered) || !slices.Equal(r.Uncovered, tc.uncovered) {
				t.Errorf("covered %v, uncovered %v; want covered %v, uncovered %v", r.Covered, r.Uncovered, tc.covered, tc.uncovered)
			}
		})
	}
}

// TestCountersAddUpAcrossConcurrentStates: states running one compiled
// chunk at once all count into the same file, and no hit is lost.
func TestCountersAddUpAcrossConcurrentStates(t *testing.T) {
	const src = "local n = 0\nfor i = 1, 100 do\n  n = n + i\nend\n"
	stmts, err := parse.Parse(strings.NewReader(src), "f.lua")
	if err != nil {
		t.Fatal(err)
	}
	stmts, lines, err := Instrument(stmts)
	if err != nil {
		t.Fatal(err)
	}
	proto, err := lua.Compile(stmts, "f.lua")
	if err != nil {
		t.Fatal(err)
	}
	var c Counters
	f := c.File("f.lua", lines)
	Resolve(proto, f.Func())
	const states, runs = 8, 50
	var wg sync.WaitGroup
	for range states {
		wg.Add(1)
		go func() {
			defer wg.Done()
			L := lua.NewState()
			defer L.Close()
			for range runs {
				L.Push(L.NewFunctionFromProto(proto))
				if err := L.PCall(0, 0, nil); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for line, want := range map[int]uint64{1: states * runs, 2: states * runs, 3: 100 * states * runs} {
		if got := f.Hits(line); got != want {
			t.Errorf("line %d: %d hits, want %d", line, got, want)
		}
	}
	if again := c.File("f.lua", lines); again != f {
		t.Errorf("a second compilation with the same lines got new counters")
	}
}

func TestInstrumentRefusesTheMarkerLiteral(t *testing.T) {
	stmts, err := parse.Parse(strings.NewReader("local a = 1\nlocal t = { x = { \"\\0luahook.cover\" } }\n"), "f.lua")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Instrument(stmts)
	var ie *Error
	if !errors.As(err, &ie) || ie.Line != 2 {
		t.Fatalf("error %v, want an *Error at line 2", err)
	}
}
