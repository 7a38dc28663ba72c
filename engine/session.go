package engine

import (
	"github.com/luahook/luahook/luabind"
)

// RegisterSession puts the hooks registered in a REPL or test session
// (luabind.Session.Registrations) in the engine's registry under owner,
// replacing every hook owner had, as the engine does for a hook file after an
// edit: if any registration is invalid nothing changes and the error names
// it. Empty regs removes owner's hooks. owner must not be one the engine owns
// (ConfiguredOwner, the base name of a hook file).
func (e *Engine) RegisterSession(owner string, regs []luabind.Registration) error {
	return e.reg.ReplaceOwner(owner, luabind.Specs(regs))
}
