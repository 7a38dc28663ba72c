package engine

import (
	"cmp"
	"slices"

	"github.com/luahook/luahook/luabind"
)

// LintRecord is the message of the Warn record the engine logs for each
// linter warning of a hook file it loads, with the file, line, rule and
// warning as attributes. A command that reports Warnings itself can drop
// these records by their message.
const LintRecord = "lint warning"

// Warnings returns the linter's warnings on the hook files in force and the
// lib modules they required while loading (luabind.Warning), by file and
// line, each once. A warning never stops a load.
func (e *Engine) Warnings() []luabind.Warning {
	var out []luabind.Warning
	for _, f := range e.view.Load().files {
		out = append(out, f.Warnings()...)
	}
	slices.SortFunc(out, func(a, b luabind.Warning) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Message, b.Message))
	})
	// A lib module required by several files is reported once.
	return slices.Compact(out)
}

// logWarnings logs the linter's warnings on a file that just loaded.
func (e *Engine) logWarnings(f *luabind.File) {
	for _, w := range f.Warnings() {
		e.logger.Warn(LintRecord, "file", w.Path, "line", w.Line, "rule", w.Rule, "warning", w.Message)
	}
}
