package config_test

import (
	"fmt"

	"github.com/luahook/luahook/internal/config"
)

func ExampleParse() {
	c, err := config.Parse("luahook.toml", []byte(`
[[hooks.PreToolUse]]
name = "bash-safety"
matcher = "bash"
command = "bash ./scripts/guard-bash.sh"
failure_policy = "closed"
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	h := c.Hooks["PreToolUse"][0]
	fmt.Println(h.Source, h.Name, h.Kind, h.Stage, h.FailurePolicy)
	// Output: luahook.toml:2 bash-safety command validate closed
}

func ExampleParse_errors() {
	_, err := config.Parse("luahook.toml", []byte(`
[[hooks.PreToolUse]]
command = "bash ./scripts/guard-bash.sh"
stage = "check"

[[hooks.Stop]]
type = "http"
`))
	fmt.Println(err)
	// Output:
	// luahook.toml:4: hooks.PreToolUse[0].stage: "check" is not a stage (want mutate or validate)
	// luahook.toml:6: hooks.Stop[0].url: an http hook needs a url
}
