package replay

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/decisionlog"
)

func replaced(output string) decisionlog.Decision {
	o := luahook.ReplaceOutput(json.RawMessage(output))
	return decisionlog.Decision{Action: o.Action, Outcome: o}
}

func TestReplayComparesTheOutputTheModelReads(t *testing.T) {
	if c := Compare(replaced(`"a [redacted: x]"`), replaced(`"a [redacted: x]"`), false); len(c) != 0 {
		t.Fatalf("same output: changes %v", c)
	}
	if c := Compare(replaced(`{"a":1,"b":2}`), replaced(`{"b":2,"a":1}`), false); len(c) != 0 {
		t.Fatalf("the same value written in another order: changes %v", c)
	}
	if c := Compare(replaced(`"a [redacted: x]"`), replaced(`"a secret"`), false); !slices.Equal(c, []string{ChangedOutput}) {
		t.Fatalf("another output: changes %v, want [output]", c)
	}
	big := json.RawMessage(`"` + strings.Repeat("y", decisionlog.MaxLoggedOutputBytes) + `"`)
	logged := replaced(string(decisionlog.LoggedOutput(big)))
	if c := Compare(logged, replaced(string(big)), false); len(c) != 0 {
		t.Fatalf("a large output logged as its digest, decided the same: changes %v", c)
	}
	other := json.RawMessage(`"` + strings.Repeat("z", decisionlog.MaxLoggedOutputBytes) + `"`)
	if c := Compare(logged, replaced(string(other)), false); !slices.Equal(c, []string{ChangedOutput}) {
		t.Fatalf("a large output logged as its digest, decided otherwise: changes %v", c)
	}
}
