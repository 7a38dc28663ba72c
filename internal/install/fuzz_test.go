package install

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/luahook/luahook/agent"
)

// FuzzMerge: the strict parser accepts exactly what encoding/json accepts
// (the agents' readers), and a merge that succeeds writes a file that
// parses, holds every byte of the original that was not luahook's, and
// does not change on a second merge.
func FuzzMerge(f *testing.F) {
	for _, s := range existing {
		f.Add([]byte(s), uint8(0))
	}
	f.Add([]byte(`{"hooks": {"stop": [{"command": "luahook fire --agent cursor"}]}, "version": 1}`), uint8(3))
	f.Add([]byte(`{"hooks":{"PreToolUse":[{"hooks":[{"command":"x fire --agent claude"},{"command":"y"}]},1]}}`), uint8(0))
	f.Add([]byte("{\r\n\t\"a\": [1, 2], // c\r\n\t\"hooks\": {}\r\n}"), uint8(4))
	names := agent.Names()
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		name := names[int(which)%len(names)]
		tg := targets[name]
		if !bytes.HasPrefix(src, utf8BOM) {
			if _, err := parse("f", src, false); (err == nil) != json.Valid(src) {
				t.Fatalf("strict parse error %v, json.Valid %v", err, json.Valid(src))
			}
		}
		o := testOptions(name)
		out, _, err := merge(tg, o, "f", src)
		if err != nil {
			return
		}
		if _, err := parse("out", out, tg.comments); err != nil {
			t.Fatalf("the merged file does not parse: %v\n%s", err, out)
		}
		again, _, err := merge(tg, o, "f", out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("a second merge changed the file (err %v):\n%s\nthen:\n%s", err, out, again)
		}
		checkOneEntryPerEvent(t, tg, out)
	})
}
