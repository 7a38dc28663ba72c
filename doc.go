// Package luahook holds the contract shared by every part of luahook: the
// lifecycle events, the payload every hook sees (Input, its fields listed by
// Input.Fields, decoded strictly by DecodeInput), the answer every hook
// gives (Outcome), the typed failures, and the Hook interface that a Lua
// function, a subprocess, an HTTP endpoint and a Go function all implement.
//
// An outcome's action is one of:
//
//	(none)    no objection: {} or empty output; the agent's own rules apply
//	allow     {"action":"allow"}: an explicit approval; Claude Code, Codex and
//	          Copilot then skip their permission prompt, so return it only to approve
//	deny      {"action":"deny","reason":…}: refuse the tool call or the prompt
//	ask       {"action":"ask","reason":…[,"input":{…}]}: PreToolUse only; let the
//	          user decide (a deny from any hook wins over it, it wins over allow)
//	mutate    {"action":"mutate","input":{…}}: rewrite the tool input (PreToolUse)
//	continue  {"action":"continue","reason":…}: Stop only; keep the agent going,
//	          reason being its next instruction
//
// plus "additionalContext" and "contextAs" on any of them. Ask and continue on
// another event are invalid output (Outcome.CheckEvent). In Go: Allow, Deny,
// Ask, Mutate, Context, Continue; ParseOutcome reads a command's or an HTTP
// endpoint's answer.
//
// A payload sent by a coding agent carries "agent" (its name) and "native"
// (its own payload, a JSON object) besides the contract's fields.
//
// The engine package wires everything together; this package depends only on
// the standard library.
package luahook
