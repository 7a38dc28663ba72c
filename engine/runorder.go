package engine

import (
	"github.com/luahook/luahook"
	"github.com/luahook/luahook/registry"
)

// RunOrder returns the hooks registered for event in the order the runner
// calls them (registry.RunOrder): registration order, and on PreToolUse
// every mutate-stage hook before every validate-stage one.
func (e *Engine) RunOrder(event luahook.Event) []Entry {
	return registry.RunOrder(e.reg.List(event))
}
