package engine

import (
	"github.com/luahook/luahook/internal/config"
)

// maxInputBytes returns the cap on hook input that the runner applies
// (runner.Runner.SetMaxInputBytes): the option, else the config's, else the
// default; negative means none.
func maxInputBytes(opt, cfg int) int {
	switch {
	case opt != 0:
		return opt
	case cfg != 0:
		return cfg
	}
	return config.DefaultMaxInputBytes
}
