package registry

import (
	"github.com/luahook/luahook"
)

// Listing returns every registered hook, event by event in luahook.Events
// order, each event's hooks in the order the runner calls them (RunOrder).
// luahook list and the REPL's :list print it.
func (r *Registry) Listing() []luahook.Listed {
	var out []luahook.Listed
	for _, ev := range luahook.Events() {
		for i, e := range RunOrder(r.List(ev)) {
			out = append(out, luahook.Listed{Spec: e.Spec, Order: i + 1, MatcherForm: e.Match.String()})
		}
	}
	return out
}
