package transports

import "testing"

func TestAllowedJudgesTheFirstWordExactly(t *testing.T) {
	tests := []struct {
		argv0 string
		extra []string
		want  bool
	}{
		{"bash", nil, true},
		{"sh", nil, true},
		{"dash", nil, true},
		{"zsh", nil, true},
		{"fish", nil, true},
		{"node", nil, true},
		{"python3", nil, true},
		{"lua", nil, true},
		{"jq", nil, true},
		{"git", nil, true},
		{"luahook", nil, true},
		{"cat", nil, true},
		{"pkill", nil, true},
		{"/usr/local/bin/anything", nil, true}, // absolute path: allowed whatever it is
		{"/opt/hooks/guard.sh", nil, true},     // absolute path to a script
		{"./node", nil, true},                  // relative path judged by its last segment
		{"../tools/bin/bash", nil, true},       // likewise
		{"./scripts/hook.sh", nil, false},      // last segment not allowed
		{"scripts/python3.12", nil, false},     // no version stripping
		{"Bash", nil, false},                   // case-sensitive
		{"NODE", nil, false},                   // case-sensitive
		{"node.exe", nil, false},               // no extension stripping
		{"python3.12", nil, false},             // exact names only
		{"env", nil, false},                    // not in the list: env could run anything
		{"sleep", nil, false},                  // not in the list
		{"true", nil, false},                   // not in the list
		{"bash ", nil, false},                  // exact: no trimming
		{"", nil, false},                       // empty first word
		{"./bash/", nil, false},                // empty last segment
		{"ruff", []string{"ruff"}, true},       // config extends the list
		{"./bin/ruff", []string{"ruff"}, true}, // extended name judged by last segment too
		{"Ruff", []string{"ruff"}, false},      // extension is case-sensitive too
		{"ruff", []string{"ruff-lsp"}, false},  // exact, not a prefix
		{"./scripts/guard.sh", []string{"./scripts/guard.sh"}, true}, // an entry with a slash matches the whole word
		{"./other/guard.sh", []string{"./scripts/guard.sh"}, false},
	}
	for _, tt := range tests {
		if got := Allowed(tt.argv0, tt.extra); got != tt.want {
			t.Errorf("Allowed(%q, %q) = %v, want %v", tt.argv0, tt.extra, got, tt.want)
		}
	}
}
