package luahook

import (
	"fmt"
	"iter"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestCheckLimitsNamesTheFieldOverItsLimit(t *testing.T) {
	long := strings.Repeat("x", MaxIDBytes+1)
	for _, tc := range []struct {
		field string
		in    Input
	}{
		{"event", Input{Event: Event(long)}},
		{"toolName", Input{ToolName: long}},
		{"sessionId", Input{SessionID: long}},
		{"cwd", Input{Cwd: "/" + strings.Repeat("d", MaxCwdBytes)}},
		{"toolCapabilities has 65 entries", Input{ToolCapabilities: make([]string, MaxCapabilities+1)}},
		{"toolCapabilities[1]", Input{ToolCapabilities: []string{"shell", strings.Repeat("c", MaxCapabilityBytes+1)}}},
		{"compaction.trigger", Input{Compaction: &Compaction{Trigger: long}}},
		{"subagent.subagentId", Input{Subagent: &Subagent{SubagentID: long}}},
		{"notification.kind", Input{Notification: &NotificationInfo{Kind: long}}},
	} {
		err := tc.in.CheckLimits()
		if err == nil || !strings.HasPrefix(err.Error(), tc.field) {
			t.Errorf("%s: CheckLimits() = %v, want an error naming it", tc.field, err)
		}
	}
}

func TestCheckLimitsAcceptsPayloadsAtTheLimits(t *testing.T) {
	at := strings.Repeat("x", MaxIDBytes)
	in := Input{Event: PreToolUse, ToolName: at, SessionID: at, Cwd: "/" + strings.Repeat("d", MaxCwdBytes-1),
		ToolCapabilities: make([]string, MaxCapabilities), Prompt: strings.Repeat("p", 1<<20),
		Subagent: &Subagent{Target: at, Task: strings.Repeat("t", 1<<20)}}
	if err := in.CheckLimits(); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = in.CheckLimits() }); n != 0 {
		t.Fatalf("CheckLimits allocates %.0f times on a payload within its limits", n)
	}
}

// TestWithinLimitsIsCheckLimits: the direct reading of the limits agrees
// with the limits Fields lists, for every string of the payload at every
// length around the limits: a field given a limit in Fields and forgotten
// in withinLimits (or the other way round) fails here.
func TestWithinLimitsIsCheckLimits(t *testing.T) {
	for _, n := range []int{0, MaxCapabilityBytes, MaxCapabilityBytes + 1, MaxIDBytes, MaxIDBytes + 1, MaxCwdBytes, MaxCwdBytes + 1} {
		for path := range stringFields(t, reflect.ValueOf(fullInput()).Elem(), "") {
			in := fullInput()
			setPath(reflect.ValueOf(in).Elem(), path, strings.Repeat("x", n))
			if fast, slow := in.withinLimits(), in.limitError() == nil; fast != slow {
				t.Errorf("%s at %d bytes: withinLimits %v, the limits Fields lists say %v", path, n, fast, slow)
			}
		}
	}
	for _, n := range []int{MaxCapabilities, MaxCapabilities + 1} {
		in := fullInput()
		in.ToolCapabilities = make([]string, n)
		if fast, slow := in.withinLimits(), in.limitError() == nil; fast != slow {
			t.Errorf("%d capabilities: withinLimits %v, the limits Fields lists say %v", n, fast, slow)
		}
	}
}

// stringFields yields the paths ("Subagent.Target", "ToolCapabilities.1")
// of the strings in v, an Input or one of its nested structs, whose nested
// pointers are all set.
func stringFields(t *testing.T, v reflect.Value, prefix string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range v.NumField() {
			f, name := v.Field(i), prefix+v.Type().Field(i).Name
			switch {
			case f.Kind() == reflect.String:
				if !yield(name) {
					return
				}
			case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
				for j := range f.Len() {
					if !yield(fmt.Sprintf("%s.%d", name, j)) {
						return
					}
				}
			case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Struct:
				if f.IsNil() {
					t.Fatalf("fullInput has no %s", name)
				}
				for p := range stringFields(t, f.Elem(), name+".") {
					if !yield(p) {
						return
					}
				}
			}
		}
	}
}

// setPath sets the string at path (stringFields) in v to s.
func setPath(v reflect.Value, path, s string) {
	for part := range strings.SplitSeq(path, ".") {
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if i, err := strconv.Atoi(part); err == nil {
			v = v.Index(i)
		} else {
			v = v.FieldByName(part)
		}
	}
	v.SetString(s)
}
