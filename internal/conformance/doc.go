// Package conformance runs the coding agents' own command-line programs,
// offline, against luahook wired by `luahook install`: each agent is
// pointed at a fake model server on 127.0.0.1 (fakemodel_test.go) that
// answers a prompt with a tool call and records every request, so that a
// test sees what the agent ran and what reached the model.
//
// The agents are pinned in agents.txt and installed from the npm registry
// by .ci/run, which runs the suite with the build tag conformance:
//
//	npm install --prefix DIR/_anthropic-ai_claude-code_VERSION @anthropic-ai/claude-code@VERSION
//	LUAHOOK_AGENTS_DIR=DIR go test -tags conformance ./internal/conformance
//
// Without the tag the package holds no test (the agents are not a Go
// module's to fetch); with it, an agent program that is not installed is
// a failure, never a skip.
package conformance
