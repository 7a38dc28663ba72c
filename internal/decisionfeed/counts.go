package decisionfeed

import (
	"cmp"
	"slices"
	"time"
)

// Counts are the decisions of the last minutes, as the page charts them.
type Counts struct {
	// Minutes are the minutes, oldest first, the last the current one;
	// a minute without decisions is there with zero counts.
	Minutes []Minute `json:"minutes"`
	// TopRules are the hooks that refused the agent most over those
	// minutes (Entry.DecidedBy of the denied entries), most denials first.
	TopRules []Rule `json:"topRules"`
}

// Minute counts the decisions of one minute.
type Minute struct {
	// Start is the minute's start (UTC).
	Start     time.Time `json:"start"`
	Decisions int       `json:"decisions"`
	// Denials are the decisions that refused the agent (Entry.Denied).
	Denials int `json:"denials"`
}

// Rule counts what one hook decided.
type Rule struct {
	Name string `json:"name"`
	// Denials are its decisions that refused the agent, Decisions all
	// those it decided.
	Denials   int `json:"denials"`
	Decisions int `json:"decisions"`
}

// Counts returns the counts of the last minutes minutes up to Options.Now
// (0 or less means DefaultCountMinutes; more than MaxCountMinutes is
// MaxCountMinutes) and the top rules of those minutes, at most top (0 or
// less means DefaultTopRules; more than MaxTopRules is MaxTopRules). The
// counts are kept per minute as the records come, by the time of their
// decision, so they cover decisions that left the window too; a minute
// counts at most 256 rules.
func (f *Feed) Counts(minutes, top int) Counts {
	if minutes <= 0 {
		minutes = DefaultCountMinutes
	}
	minutes = min(minutes, MaxCountMinutes)
	if top <= 0 {
		top = DefaultTopRules
	}
	top = min(top, MaxTopRules)
	cur := minuteOf(f.now())
	out := Counts{Minutes: make([]Minute, minutes)}
	var rules map[string]*Rule
	f.mu.RLock()
	for i := range minutes {
		at := cur - int64(minutes-1-i)
		out.Minutes[i].Start = time.Unix(max(at, 0)*60, 0).UTC()
		m := &f.minutes[max(at, 0)%MaxCountMinutes]
		if at < 0 || m.at != at {
			continue
		}
		out.Minutes[i].Decisions, out.Minutes[i].Denials = m.decisions, m.denials
		for name, t := range m.rules {
			r := rules[name]
			if r == nil {
				if rules == nil {
					rules = map[string]*Rule{}
				}
				r = &Rule{Name: name}
				rules[name] = r
			}
			r.Denials += t.denials
			r.Decisions += t.decisions
		}
	}
	f.mu.RUnlock()
	out.TopRules = []Rule{}
	for _, r := range rules {
		if r.Denials > 0 {
			out.TopRules = append(out.TopRules, *r)
		}
	}
	out.TopRules = sortRules(out.TopRules, top)
	return out
}

// sortRules orders rules most denials first, then most decisions, then by
// name, and keeps the first top.
func sortRules(rules []Rule, top int) []Rule {
	slices.SortFunc(rules, func(a, b Rule) int {
		if c := cmp.Compare(b.Denials, a.Denials); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Decisions, a.Decisions); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return rules[:min(len(rules), top)]
}
