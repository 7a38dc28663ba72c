package engine

import "github.com/luahook/luahook/internal/config"

// Problems returns Errors one problem each: a config error that holds
// several problems is split into its *ConfigError values, each naming its
// file, line and key. luahook check and fire report them one per line.
func (e *Engine) Problems() []error {
	var out []error
	for _, err := range e.Errors() {
		ces := config.Errors(err)
		if len(ces) == 0 {
			out = append(out, err)
			continue
		}
		for _, ce := range ces {
			out = append(out, ce)
		}
	}
	return out
}
