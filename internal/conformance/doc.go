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
// Each test records what the agent's release did (observe, in
// results_test.go); when the whole suite has run and passed, the table of
// those observations must be internal/install/conformance.md, which
// luahook doctor embeds and the README quotes. A run with -update writes
// both instead: a change in what an agent does is a change to commit, and
// to say in its message.
//
// The fake models: Anthropic's Messages API for Claude Code, the Gemini
// API for Gemini CLI, OpenAI's Responses API for Codex and its Chat
// Completions API for Copilot CLI (as a custom provider, offline). MCP
// tools come from the test binary itself, run as a stdio MCP server
// (mcp_test.go). Cursor's agent program is not on the npm registry, so it
// is not here.
//
// Without the tag the package holds no test (the agents are not a Go
// module's to fetch); with it, an agent program that is not installed is
// a failure, never a skip.
package conformance
