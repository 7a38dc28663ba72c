// Package parity holds luahook to one rule: one decision, every door. The
// same hooks folder and the same payload get the same verdict however
// luahook is asked:
//
//   - luahook fire, with luahook's own payload (JSON on standard output and
//     the exit status);
//   - luahook fire --agent claude, with Claude Code's payload (Claude's JSON
//     and exit status 0 or 2);
//   - luahook serve over HTTP: POST / (luahook's payload) and
//     POST /agent/claude (Claude's);
//   - luahook serve --socket, asked by luahook-fire --agent claude;
//   - a Go host: engine.Open and the engine's runner on the decoded payload.
//
// The same holds for a tool's output on PostToolUse: a policy that
// redacts it (hook.redact), replaces it (hook.replace_output) or fails
// closed while checking it (the output withheld) leaves the model the same
// text through every door, luahook's "output", Claude Code's
// updatedToolOutput or updatedMCPToolOutput (the text the model reads of
// it: a Bash result's stdout) and a Go host's Result.Output alike.
//
// Its tests build the two commands, start one serve per hooks folder, send
// each fixture's payload through every door, turn each raw answer into a
// verdict (none, allow, ask, deny, mutate, or output with the text the
// model reads) and fail when two doors disagree or a door's verdict is not
// the fixture's. The package holds no code outside its tests.
package parity
