package hostbridge

import (
	"slices"

	"github.com/luahook/luahook"
)

// snapshot is the host functions' own copy of a hook call's payload. The
// runner lends a hook its payload only while the hook runs, and a host
// function may start, or go on, after that (its goroutine is scheduled
// late, or it runs past the deadline), so the Call it reads holds a deep
// copy, made once per hook call that calls a host function.
func snapshot(in *luahook.Input) *luahook.Input {
	if in == nil {
		return nil
	}
	cp := *in
	cp.ToolInput = slices.Clone(in.ToolInput)
	cp.Native = slices.Clone(in.Native)
	cp.ToolCapabilities = slices.Clone(in.ToolCapabilities)
	cp.ToolMutating = clonePtr(in.ToolMutating)
	cp.ToolResult = clonePtr(in.ToolResult)
	cp.Notification = clonePtr(in.Notification)
	if c := in.Compaction; c != nil {
		cc := *c
		cc.TokensBefore, cc.TokensAfter = clonePtr(c.TokensBefore), clonePtr(c.TokensAfter)
		cp.Compaction = &cc
	}
	if s := in.Subagent; s != nil {
		sc := *s
		sc.OK, sc.DurationMs = clonePtr(s.OK), clonePtr(s.DurationMs)
		cp.Subagent = &sc
	}
	return &cp
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
