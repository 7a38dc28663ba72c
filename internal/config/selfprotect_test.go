package config

import (
	"strings"
	"testing"
)

// TestSelfProtect reads [runner] self_protect: on by default, turned off
// in either format, and a value that is not a boolean is an error naming
// the file, line and key.
func TestSelfProtect(t *testing.T) {
	for _, tt := range []struct {
		file, text string
		want       bool
	}{
		{"luahook.toml", "", true},
		{"luahook.toml", "[runner]\nself_protect = true\n", true},
		{"luahook.toml", "[runner]\nself_protect = false\n", false},
		{"luahook.json", `{"runner": {"selfProtect": false}}`, false},
		{"luahook.json", `{"runner": {"allowNonPolicy": false}}`, true},
	} {
		c, err := Parse(tt.file, []byte(tt.text))
		if err != nil {
			t.Fatalf("%s %q: %v", tt.file, tt.text, err)
		}
		if c.Runner.SelfProtect != tt.want {
			t.Errorf("%s %q: self_protect %v, want %v", tt.file, tt.text, c.Runner.SelfProtect, tt.want)
		}
	}
	_, err := Parse("luahook.toml", []byte("[runner]\n\nself_protect = \"no\"\n"))
	if err == nil || !strings.Contains(err.Error(), "luahook.toml:3: runner.self_protect: must be a boolean") {
		t.Errorf("self_protect = \"no\": error %v", err)
	}
}
