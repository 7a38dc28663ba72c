package luabind_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/runner"
)

// nativeDecision is the policy of benchLuaPolicy as a Go program with no
// hook engine would make it: the payload decoded into a generic map, then
// the check. It is the floor a Lua hook's whole call is held to.
func nativeDecision(payload []byte) (deny bool, err error) {
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		return false, err
	}
	ti, _ := m["toolInput"].(map[string]any)
	cmd, _ := ti["command"].(string)
	return strings.Contains(cmd, "rm -rf"), nil
}

// BenchmarkLuaHookVsNativeGo measures one decision both ways on the same
// payload bytes: "lua" decodes the payload (luahook.DecodeInput) and fires
// it at benchLuaPolicy through Runner.FireInto with a reused Result, as a
// host on its hot path does; "native" is nativeDecision. "interleaved"
// reports x_native, the Lua call's time over the native one's from turns of
// nativeBlock calls taken in alternation (both sides share the machine's
// load of the moment).
func BenchmarkLuaHookVsNativeGo(b *testing.B) {
	p := []byte(benchPayload)
	r := luaRunner(b)
	ctx := context.Background()
	var res runner.Result
	lua := func() {
		in, err := luahook.DecodeInput(p)
		if err != nil {
			b.Fatal(err)
		}
		r.FireInto(ctx, in, &res)
		if res.Denied() || len(res.Trace) != 1 || res.Trace[0].Failure != nil {
			b.Fatalf("%+v", res)
		}
	}
	native := func() {
		if deny, err := nativeDecision(p); deny || err != nil {
			b.Fatal(deny, err)
		}
	}
	lua()
	b.Run("lua", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			lua()
		}
	})
	b.Run("native", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			native()
		}
	})
	b.Run("interleaved", func(b *testing.B) {
		sides := [2]func(){native, lua}
		var turns [2][]float64
		round := 0
		for b.Loop() {
			for k := range sides {
				i := (round + k) % 2
				start := time.Now()
				for range nativeBlock {
					sides[i]()
				}
				turns[i] = append(turns[i], float64(time.Since(start))/nativeBlock)
			}
			round++
		}
		b.ReportMetric(medianOf(turns[1])/medianOf(turns[0]), "x_native")
	})
}

// nativeBlock is how many calls of one side make a turn of the interleaved
// measurement: enough that each side's turn runs the collections its own
// allocations start, short enough (tens of milliseconds) that both sides
// share the machine's load of the moment.
const nativeBlock = 2048

func medianOf(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	return s[len(s)/2]
}
