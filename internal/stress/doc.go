// Package stress holds the engine-wide stress test: every event fired from many
// goroutines at Lua, command, HTTP and Go hooks while files are reloaded, the
// config is rewritten, plugin scopes come and go, callers cancel and hooks time
// out, fail and panic. It has no code of its own; see stress_test.go.
package stress
