package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/luahook/luahook/internal/server"
)

// The rest of fire is tested by the scripts in testdata/script.

// syncBuffer is a bytes.Buffer that a command writes while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// fire with a terminal on standard input and no --input says that it waits
// for the payload, and waits (without --read-timeout: a person types it),
// instead of firing {} unasked. Ctrl-D gives no payload.
func TestFireOnATerminalSaysItWaitsForThePayload(t *testing.T) {
	for _, tc := range []struct {
		name, typed, want string
		code              int
	}{
		{"a payload", `{"prompt":"my key is AKIA0000"}` + "\n", "deny", 2},
		{"Ctrl-D", "\x04", `{}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer ptmx.Close()
			defer tty.Close()
			go io.Copy(io.Discard, ptmx) // the terminal's echo
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "10-p.lua"), []byte(`hook.register("UserPromptSubmit", nil, function(input)
  if input.prompt:find("AKIA", 1, true) then return hook.deny("deny") end
end)`), 0o644)
			var out, errb syncBuffer
			done := make(chan int, 1)
			go func() {
				done <- run(context.Background(), []string{"--dir", dir, "fire", "UserPromptSubmit", "--read-timeout", "100ms"}, tty, &out, &errb)
			}()
			deadline := time.Now().Add(20 * time.Second)
			for !strings.Contains(errb.String(), "waiting for the payload on the terminal") {
				select {
				case code := <-done:
					t.Fatalf("fire did not wait: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
				case <-time.After(10 * time.Millisecond):
				}
				if time.Now().After(deadline) {
					t.Fatalf("fire says nothing on a terminal: stderr %q", errb.String())
				}
			}
			time.Sleep(300 * time.Millisecond) // past --read-timeout: a terminal has none
			if _, err := ptmx.Write([]byte(tc.typed)); err != nil {
				t.Fatal(err)
			}
			select {
			case code := <-done:
				if code != tc.code || !strings.Contains(out.String(), tc.want) {
					t.Errorf("exit %d, stdout %q, stderr %q; want %d and %s", code, out.String(), errb.String(), tc.code, tc.want)
				}
			case <-time.After(20 * time.Second):
				ptmx.Close()
				<-done
				t.Fatal("fire did not read what was typed")
			}
		})
	}
}

func TestFireReadsAtMostWhatServeAccepts(t *testing.T) {
	if maxPayloadBytes != server.DefaultMaxBody {
		t.Errorf("fire reads up to %d bytes, serve accepts %d", maxPayloadBytes, server.DefaultMaxBody)
	}
	const limit = 1024
	if data, err := readCapped(strings.NewReader(strings.Repeat("x", limit)), "stdin", limit); err != nil || len(data) != limit {
		t.Errorf("exactly the cap: %d bytes, %v", len(data), err)
	}
	if _, err := readCapped(strings.NewReader(strings.Repeat("x", limit+1)), "stdin", limit); err == nil || err.Error() != "stdin: payload larger than 1024 bytes" {
		t.Errorf("one byte over the cap: %v", err)
	}
	var out, errb bytes.Buffer
	over := io.MultiReader(strings.NewReader(`{"event":"Stop","prompt":"`), bytes.NewReader(make([]byte, maxPayloadBytes)))
	code := run(context.Background(), []string{"--dir", t.TempDir(), "fire"}, over, &out, &errb)
	if code != 1 || out.Len() != 0 || !strings.Contains(errb.String(), "standard input: payload larger than 8 MiB") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and the cap named", code, out.String(), errb.String())
	}
	// One whose event can block is denied, naming the cap, as serve denies it.
	out.Reset()
	errb.Reset()
	over = io.MultiReader(strings.NewReader(`{"event":"PreToolUse","toolName":"bash","toolInput":{"command":"`), bytes.NewReader(make([]byte, maxPayloadBytes)))
	code = run(context.Background(), []string{"--dir", t.TempDir(), "fire"}, over, &out, &errb)
	if code != 2 || !strings.Contains(out.String(), `"action":"deny"`) || !strings.Contains(errb.String(), "payload larger than 8 MiB") {
		t.Errorf("PreToolUse: exit %d, stdout %q, stderr %q; want 2, a denial and the cap named", code, out.String(), errb.String())
	}
}

func TestFireRefusesADeeplyNestedPayloadCleanly(t *testing.T) {
	var out, errb bytes.Buffer
	deep := `{"event":"PreToolUse","toolName":"bash","toolInput":{"a":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}}`
	code := run(context.Background(), []string{"--dir", t.TempDir(), "fire"}, strings.NewReader(deep), &out, &errb)
	// A PreToolUse payload that cannot be read is denied (fail closed), the
	// reason naming the nesting.
	if code != 2 || !strings.Contains(out.String(), `"action":"deny"`) || !strings.Contains(errb.String(), "toolInput: nested more than 10000 levels deep") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, a denial and the nesting named", code, out.String(), errb.String())
	}
}
