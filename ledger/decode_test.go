package ledger

import (
	"encoding/json"
	"strconv"
	"testing"
)

// decodeMark and decodeCall answer as json.Unmarshal does, on the ledger's
// own records and on any other bytes.
func FuzzDecodeIsEncodingJSON(f *testing.F) {
	for _, m := range []Mark{{Label: "private-data", Detail: "read ~/.ssh/id_rsa", AtMs: 1796600000000, Slot: 3},
		{Label: "a\"b", Detail: "\x00\u2028é<>&"}, {Label: "x", AtMs: -1}, {Label: "bad \xff utf-8", Detail: "\t"}} {
		f.Add(append(strconv.AppendInt(m.appendHead(nil), m.Slot, 10), '}'))
	}
	for _, c := range []Call{{Tool: "Bash", Event: "PostToolUse", OK: true, Summary: "make test", Digest: "0123", AtMs: 5, Seq: 7},
		{Tool: "Read", Event: "PostToolUse", Digest: "d"}, {Tool: "\\", Summary: "\"quoted\"", Seq: 1}} {
		f.Add(append(strconv.AppendInt(c.appendHead(nil), c.Seq, 10), '}'))
	}
	f.Add([]byte(`{"label":"a","at":01,"slot":1}`))
	f.Add([]byte(`{"slot":1,"label":"a","at":2}`))
	f.Add([]byte(`{"tool":"a","event":"e","ok":true,"digest":"d","at":1.0,"seq":1}`))
	f.Add([]byte(`{"tool":"a","event":"e","ok":true,"digest":"d","at":1,"seq":1} `))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var m1, m2 Mark
		e1, e2 := decodeMark(raw, &m1), json.Unmarshal(raw, &m2)
		if (e1 == nil) != (e2 == nil) || (e2 == nil && m1 != m2) {
			t.Fatalf("mark %q: decodeMark %+v, %v; json.Unmarshal %+v, %v", raw, m1, e1, m2, e2)
		}
		var c1, c2 Call
		e1, e2 = decodeCall(raw, &c1), json.Unmarshal(raw, &c2)
		if (e1 == nil) != (e2 == nil) || (e2 == nil && c1 != c2) {
			t.Fatalf("call %q: decodeCall %+v, %v; json.Unmarshal %+v, %v", raw, c1, e1, c2, e2)
		}
	})
}
