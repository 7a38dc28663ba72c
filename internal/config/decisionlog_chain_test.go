package config

import (
	"strings"
	"testing"
	"time"
)

// TestDecisionLogChainKeys: max_age is a duration, signing_key a path
// resolved against the config's folder, checkpoint_every a count; a bad
// value of each is an error naming its line and key.
func TestDecisionLogChainKeys(t *testing.T) {
	c, err := Parse("/etc/luahook/luahook.toml", []byte("[decision_log]\nmax_age = \"24h\"\nsigning_key = \"keys/log.key\"\ncheckpoint_every = 50\n"))
	if err != nil {
		t.Fatal(err)
	}
	l := c.DecisionLog
	if l.MaxAge != 24*time.Hour || l.SigningKey != "/etc/luahook/keys/log.key" || l.CheckpointEvery != 50 {
		t.Fatalf("[decision_log] = %+v, want max_age 24h, the key resolved, every 50", l)
	}
	if d := Default().DecisionLog; d.MaxAge != 0 || d.SigningKey != "" || d.CheckpointEvery != 0 {
		t.Fatalf("default %+v: want by size only, unsigned, the sink's default interval", d)
	}
	for _, c := range []struct{ toml, want string }{
		{`max_age = "soon"`, `luahook.toml:2: decision_log.max_age: must be a duration such as "24h" or "30m": "soon"`},
		{`max_age = "10s"`, `luahook.toml:2: decision_log.max_age: must be at least 1m, not 10s`},
		{`signing_key = " "`, `luahook.toml:2: decision_log.signing_key: must not be empty`},
		{`checkpoint_every = 0`, `luahook.toml:2: decision_log.checkpoint_every:`},
	} {
		_, err := Parse("luahook.toml", []byte("[decision_log]\n"+c.toml+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.toml, err, c.want)
		}
	}
}
