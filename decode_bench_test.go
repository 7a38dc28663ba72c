package luahook

import (
	"strings"
	"testing"
)

const benchPayload = `{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"npm install left-pad","timeout":120000},"cwd":"/home/dev/project","sessionId":"01J9ZX"}`

func BenchmarkDecodePayload(b *testing.B) {
	for _, bc := range []struct{ name, data string }{
		{"small", benchPayload},
		{"toolInput-64KiB", `{"event":"PreToolUse","toolName":"write","toolInput":{"path":"a.txt","content":"` +
			strings.Repeat("x", 64<<10) + `"},"cwd":"/w"}`},
		{"nested", `{"event":"PostToolUse","toolName":"bash","toolInput":{"command":"ls"},"toolResult":{"content":"a b c","isError":false},"cwd":"/w"}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := []byte(bc.data)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodePayload(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDuplicateKey measures the scan that validates a tool input and checks it for duplicate keys
// at every depth, alone.
func BenchmarkDuplicateKey(b *testing.B) {
	for _, bc := range []struct{ name, data string }{
		{"small", `{"command":"npm install left-pad","timeout":120000}`},
		{"64KiB-string", `{"path":"a.txt","content":"` + strings.Repeat("x", 64<<10) + `"}`},
		{"1000-keys", `{` + manyKeys(1000) + `}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			data := []byte(bc.data)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := checkJSON("toolInput", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
