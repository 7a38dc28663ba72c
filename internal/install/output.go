package install

import (
	"fmt"

	"github.com/luahook/luahook/agent"
)

// The kinds of tool an OutputWay is about.
const (
	BuiltinTools = "built-in"
	MCPTools     = "mcp"
	// AllTools is both, where the agent treats them alike.
	AllTools = "all"
)

// What the model reads of a tool's output that luahook's PostToolUse hooks
// rewrote (OutputWay.Replaced).
const (
	// Replaced: the agent's field replaces the output; the model reads it
	// as the hooks left it.
	Replaced = "yes"
	// ReplacedByReason: the agent replaces the tool's result with the
	// reason of a block, which carries the rewritten output; the model
	// reads no part of the tool's own output.
	ReplacedByReason = "reason"
	// ReplacedMaybe: the field replaces the output, but some tools' output
	// was reported kept on this release: the model may read theirs.
	ReplacedMaybe = "reported ignored"
	// NotReplaced: the model reads the tool's own output; luahook's answer
	// adds context saying what was taken out and not to repeat it.
	NotReplaced = "no"
	// ReplacedUnknown: the agent's release is not known, and one changes it.
	ReplacedUnknown = "unknown"
)

// releaseFacts is what is known of an agent's releases beyond what
// agent.OutputSupport says its adapter writes: the releases before its
// MinVersion that still replace MCP tools' output, and the releases
// reported to keep some tools' output all the same.
type releaseFacts struct {
	// mcpField is the field that replaces an MCP tool's output in every
	// release, MinVersion's elders too; "" when there is none.
	mcpField string
	// reported are the releases reported to ignore the field for some
	// tools.
	reported *reportedReleases
}

// reportedReleases are releases of an agent reported to keep some tools'
// output though a hook replaced it.
type reportedReleases struct {
	field         string
	from, through Version
	tools         string
	reports       string
	// why is what the reports leave open.
	why string
}

// outputReleases are those facts (the research notes of December 2026 and
// the agents' issue trackers). Claude Code's updatedMCPToolOutput predates
// updatedToolOutput (2.1.121). 2.1.121, 2.1.163, 2.1.173 and 2.1.177 were
// reported to ignore updatedToolOutput for Bash and WebFetch; each report's
// rewrite was a plain string, which Claude Code drops for a tool whose
// output has a shape of its own (CC#84439, read from 2.1.223's code), and
// luahook writes the tool's shape, but no report says a rightly shaped
// rewrite was applied on those releases.
var outputReleases = map[agent.Name]releaseFacts{
	agent.Claude: {
		mcpField: "updatedMCPToolOutput",
		reported: &reportedReleases{field: "updatedToolOutput", from: Version{2, 1, 121}, through: Version{2, 1, 177},
			tools: "Bash and WebFetch", reports: "CC#54196, CC#65403, CC#67442, CC#68951",
			why: "the reports' rewrites were plain strings, where luahook writes the tool's own output shape, and none says a rightly shaped one was applied there"},
	},
}

// OutputWay says what an agent, at the release found, does with one kind
// of tool's output that luahook's PostToolUse hooks rewrote.
type OutputWay struct {
	// Tools are BuiltinTools, MCPTools or AllTools.
	Tools string `json:"tools"`
	// Replaced is what the model reads: Replaced, ReplacedByReason,
	// ReplacedMaybe, NotReplaced or ReplacedUnknown.
	Replaced string `json:"replaced"`
	// Mode is how luahook's answer to the agent carries a rewritten output
	// (agent.OutputMode), and Fields the fields it writes.
	Mode   string `json:"mode"`
	Fields string `json:"fields,omitempty"`
	// Since is the agent's first release known to apply Fields, when one
	// is known.
	Since string `json:"since,omitempty"`
	// Note says what the model gets instead where Fields do not reach it,
	// and what else is known of them.
	Note string `json:"note,omitempty"`
}

// OutputFirewall returns what the agent name, at release v (has: whether
// the release is known), does with a tool's output that luahook's
// PostToolUse hooks rewrote (hook.redact, hook.replace_output), from what
// its adapter writes (agent.OutputSupport) and what is known of its
// releases: one OutputWay per kind of tool; the gaps, each naming where
// the model can still read the tool's own output and what it gets there
// instead; and the notes of an agent that takes the rewritten output only
// as a block's reason. A release that is not known is no gap: the steps
// that ask for a recent enough release cover it.
func OutputFirewall(name agent.Name, v Version, has bool) (ways []OutputWay, gaps, notes []string) {
	d, ok := agent.OutputSupport(name)
	if !ok {
		return nil, nil, nil
	}
	title, rel := Title[name], outputReleases[name]
	since, hasSince := ParseVersion(d.MinVersion)
	w := OutputWay{Tools: AllTools, Mode: string(d.Mode), Fields: d.Fields, Since: d.MinVersion, Note: d.Note}
	switch {
	case d.Mode == agent.OutputMCPOnly:
		gaps = append(gaps, fmt.Sprintf("%s cannot replace a built-in tool's output: where luahook's PostToolUse hooks redact or replace it, the model gets %s",
			title, d.Fallback))
		return []OutputWay{
			{Tools: BuiltinTools, Replaced: NotReplaced, Mode: w.Mode, Note: d.Fallback},
			{Tools: MCPTools, Replaced: Replaced, Mode: w.Mode, Fields: d.Fields, Since: d.MinVersion, Note: d.Note},
		}, gaps, nil
	case d.Mode == agent.OutputBlockReason:
		w.Replaced = ReplacedByReason
		notes = append(notes, fmt.Sprintf("%s takes a rewritten tool output only as a block's reason: where luahook's PostToolUse hooks redact or replace a tool's output, luahook answers %s, which the model reads in place of the output",
			title, d.Fields))
	case hasSince && !has:
		w.Replaced = ReplacedUnknown
	case hasSince && v.Less(since):
		w.Replaced, w.Tools = NotReplaced, BuiltinTools
		w.Note = fmt.Sprintf("this release and older: the model gets %s", d.Fallback)
		why := fmt.Sprintf("%s %s cannot replace the output of its tools (%s came in %s)", title, v, d.Fields, d.MinVersion)
		if rel.mcpField != "" {
			why = fmt.Sprintf("%s %s cannot replace a built-in tool's output (only an MCP tool's, with %s; the rest came in %s)", title, v, rel.mcpField, d.MinVersion)
			ways = append(ways, w, OutputWay{Tools: MCPTools, Replaced: Replaced, Mode: w.Mode, Fields: rel.mcpField})
		} else {
			w.Tools = AllTools
			ways = append(ways, w)
		}
		gaps = append(gaps, fmt.Sprintf("%s: where luahook's PostToolUse hooks redact or replace it, the model gets %s; upgrade %s to %s or later",
			why, d.Fallback, title, d.MinVersion))
		return ways, gaps, nil
	default:
		w.Replaced = Replaced
	}
	if r := rel.reported; r != nil && w.Replaced == Replaced && !v.Less(r.from) && !r.through.Less(v) {
		w.Replaced = ReplacedMaybe
		w.Note = fmt.Sprintf("%s through %s were reported to ignore %s for %s (%s): %s; %s", r.from, r.through, r.field, r.tools, r.reports, r.why, w.Note)
		gaps = append(gaps, fmt.Sprintf("%s %s is among the releases reported to ignore %s for %s (%s through %s: %s): the model may still read those tools' own output where luahook's PostToolUse hooks redact or replace it (%s); upgrade %s past %s",
			title, v, r.field, r.tools, r.from, r.through, r.reports, r.why, title, r.through))
	}
	return append(ways, w), gaps, notes
}
