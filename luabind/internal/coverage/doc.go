// Package coverage measures which lines of a Lua file run: it instruments
// the parsed chunk before it is compiled, and counts, per file and line, the
// statements that were reached.
//
// # Executable lines
//
// A line is executable when a statement starts on it, following luacov's
// notion of a line with code: assignments and local declarations (a `local
// function` header included: it runs when the closure is made), calls,
// `if` and each `elseif` (its condition), the header of `while`, numeric and
// generic `for` (reached once per entry into the loop, not per iteration),
// the `until` of a `repeat`, `function` definitions, `return`, `break` and
// `goto`. A statement spanning several lines counts on its first line only.
// Lines that hold only `do`, `repeat`, `else`, `end`, a label, a comment or
// the continuation of a statement are not executable. The statements of a
// function body count wherever the function is: a function that never runs
// leaves its lines uncovered, and so does a branch never taken.
//
// # How a line is counted
//
// Before each executable statement Instrument inserts a call, at the
// statement's own line, of a function that is a string constant (Marker)
// when the chunk is compiled; Resolve then replaces that constant in every
// function prototype with the counting function of the file (File.Func),
// as luabind does for `..`. The counting function reads the line of the
// call from its caller's frame. Lua code cannot name it, shadow it or reach
// it: it is never in a variable, a table or an upvalue, only in the register
// of the call (the sandbox withholds debug, getfenv and setfenv), and a
// source whose own string literal equals Marker is refused. Every
// instruction of the file's own code keeps its line, so errors and
// tracebacks read exactly as without instrumentation.
package coverage
