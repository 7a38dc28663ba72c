package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/luahook/luahook/server"
)

// The rest of fire is tested by the scripts in testdata/script.

func TestFireDoesNotWaitForATerminalOnStandardInput(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"--dir", t.TempDir(), "fire", "SessionStart"}, tty, &out, &errb)
	}()
	select {
	case code := <-done:
		if code != 0 || out.String() != "{}\n" {
			t.Errorf("exit %d, stdout %q, stderr %q; want 0 and {}", code, out.String(), errb.String())
		}
	case <-time.After(20 * time.Second):
		ptmx.Close() // ends the read
		<-done
		t.Fatal("fire waited for a payload on the terminal")
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
}

func TestFireRefusesADeeplyNestedPayloadCleanly(t *testing.T) {
	var out, errb bytes.Buffer
	deep := `{"event":"PreToolUse","toolName":"bash","toolInput":{"a":` + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + `}}`
	code := run(context.Background(), []string{"--dir", t.TempDir(), "fire"}, strings.NewReader(deep), &out, &errb)
	if code != 1 || out.Len() != 0 || !strings.Contains(errb.String(), "toolInput: nested more than 10000 levels deep") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and the nesting named", code, out.String(), errb.String())
	}
}
