package engine

import (
	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/config"
)

// buildable returns cfg without the configured hooks that do not build (a
// command outside the allowlist, a URL refused) and without its tool
// schemas when they do not compile, with why, for Options.PartialConfig:
// every other hook and setting still loads.
func (e *Engine) buildable(cfg *config.Config) (*config.Config, []error) {
	var errs []error
	c := *cfg
	if _, err := c.CompileSchemas(); err != nil {
		errs = append(errs, err)
		c.Tools = nil
	}
	c.Hooks = map[luahook.Event][]config.Hook{}
	for _, ev := range luahook.Events() {
		for _, h := range cfg.Hooks[ev] {
			one := config.Config{Path: cfg.Path, Command: cfg.Command, Hooks: map[luahook.Event][]config.Hook{ev: {h}}}
			specs, err := e.configuredSpecs(&one)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			closeSpecs(specs)
			c.Hooks[ev] = append(c.Hooks[ev], h)
		}
	}
	return &c, errs
}
