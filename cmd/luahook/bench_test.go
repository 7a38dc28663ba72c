package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkFire measures one `luahook fire` as a command hook pays it, in
// process: parse the flags and the payload, open the engine on the shipped
// policies (compile and load six Lua files), fire PreToolUse, print.
func BenchmarkFire(b *testing.B) {
	shipped, err := filepath.Abs(filepath.Join("..", "..", "hooks.d"))
	if err != nil {
		b.Fatal(err)
	}
	args := []string{"--dir", shipped, "fire", "PreToolUse", "--tool", "bash", "--input", `{"toolInput":{"command":"npm install left-pad"},"cwd":"/tmp"}`}
	b.ReportAllocs()
	for b.Loop() {
		if code := run(context.Background(), args, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}
