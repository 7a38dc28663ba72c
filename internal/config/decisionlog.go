package config

import (
	"math"
	"strings"
	"time"

	"github.com/luahook/luahook/internal/logconf"
)

func (d *decoder) decisionLog(n *node, l *DecisionLog) {
	known := []string{"enabled", "path", "max_bytes", "max_files", "queue", "max_input_bytes", "drop", "mask", "mask_with", "redact_secrets",
		"max_age", "signing_key", "checkpoint_every"}
	d.table(n, known, func(key string, v *node) {
		switch key {
		case "enabled":
			if b, ok := d.boolean(v); ok {
				l.Enabled = &b
			}
		case "path":
			if s, ok := d.str(v); ok {
				if strings.TrimSpace(s) == "" {
					d.errorf(v.line, v.path(), `must not be empty (a file, "stdout" or "stderr")`)
				} else {
					l.Path = s
				}
			}
		case "max_bytes":
			if i, ok := d.integer(v, 4096, math.MaxInt); ok {
				l.MaxBytes = int64(i)
			}
		case "max_files":
			if i, ok := d.integer(v, 0, logconf.MaxMaxFiles); ok {
				l.MaxFiles = i
			}
		case "queue":
			if i, ok := d.integer(v, 1, logconf.MaxQueue); ok {
				l.Queue = i
			}
		case "max_input_bytes":
			if i, ok := d.integer(v, 1, math.MaxInt); ok {
				l.MaxInputBytes = i
			}
		case "drop":
			l.Drop, _ = d.strList(v, checkLogPath)
		case "mask":
			l.Mask, _ = d.strList(v, checkLogPath)
		case "mask_with":
			l.MaskWith, _ = d.str(v)
		case "max_age":
			if s, ok := d.str(v); ok {
				age, err := time.ParseDuration(s)
				switch {
				case err != nil:
					d.errorf(v.line, v.path(), `must be a duration such as "24h" or "30m": %q`, s)
				case age < time.Minute:
					d.errorf(v.line, v.path(), "must be at least 1m, not %s", s)
				default:
					l.MaxAge = age
				}
			}
		case "signing_key":
			if s, ok := d.str(v); ok {
				if strings.TrimSpace(s) == "" {
					d.errorf(v.line, v.path(), "must not be empty (the path of an Ed25519 private key, PEM PKCS #8)")
				} else {
					l.SigningKey = s
				}
			}
		case "checkpoint_every":
			if i, ok := d.integer(v, 1, 1_000_000); ok {
				l.CheckpointEvery = i
			}
		case "redact_secrets":
			if b, ok := d.boolean(v); ok {
				l.RedactSecrets = b
			}
		}
	})
}

// checkLogPath judges a drop or mask path.
func checkLogPath(s string) string {
	if _, err := logconf.ParsePath(s); err != nil {
		return err.Error()
	}
	return ""
}
