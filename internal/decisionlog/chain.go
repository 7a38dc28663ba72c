package decisionlog

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// The hash chain. Every record a File or Writer sink writes carries "seq"
// (1, 2, 3... over the whole log, across rotations), "logId" (the log's
// random id) and "prev": "sha256:" and the hex SHA-256 of the exact bytes of
// the line before it, without its newline. A log's first record chains to
// Genesis(logId). Any change of any byte of a line breaks the prev of the
// line after it; a removed line leaves a gap in seq and a prev that names no
// line; a moved line breaks the order of seq.
//
// Two more kinds of line take part in the chain, each the next line's prev:
//
//   - {"checkpoint":{...}}: written, when a signing key is set, after every
//     CheckpointEvery records, at rotation (the last line of the file
//     rotated) and at close. It names the last record (seq, digest of its
//     line) and carries an Ed25519 signature (sig) over CheckpointMessage.
//   - {"continues":{...}}: the first line of a file that continues a log
//     (after a rotation, or when the sink opens an empty file whose
//     predecessor PATH.1 holds the log): the last seq before it and the
//     digest of the previous file's last line. Signed when a key is set.
//
// The records themselves are the masked records: masking happens before the
// line is written, so the chain covers what the file holds.

// Defaults and bounds of the chain.
const (
	// DefaultCheckpointEvery is how many records a checkpoint covers at
	// most when a signing key is set (1000).
	DefaultCheckpointEvery = 1000
	// MaxCheckpointEvery bounds ChainOptions.CheckpointEvery (1,000,000).
	MaxCheckpointEvery = 1_000_000
	// genesisText is what a log's genesis digest names, with its id.
	genesisText = "luahook decision log\n"
	// digestLen is the length of "sha256:" and 64 hex digits.
	digestLen = len("sha256:") + 2*sha256.Size
)

// ChainOptions configure the checkpoints of a sink's hash chain.
type ChainOptions struct {
	// SigningKey, when set, signs a checkpoint line every CheckpointEvery
	// records, at rotation and at close (LoadSigningKey reads one). Nil
	// writes no checkpoints: the chain alone.
	SigningKey ed25519.PrivateKey
	// CheckpointEvery is how many records a checkpoint covers at most; 0
	// means DefaultCheckpointEvery.
	CheckpointEvery int
	// Now is the clock of checkpoints (and of a file's age); nil means
	// time.Now.
	Now func() time.Time
}

func (o *ChainOptions) check() error {
	if o.CheckpointEvery < 0 || o.CheckpointEvery > MaxCheckpointEvery {
		return fmt.Errorf("a checkpoint every %d records is out of the range 1 to %d", o.CheckpointEvery, MaxCheckpointEvery)
	}
	if o.CheckpointEvery == 0 {
		o.CheckpointEvery = DefaultCheckpointEvery
	}
	if o.SigningKey != nil && len(o.SigningKey) != ed25519.PrivateKeySize {
		return fmt.Errorf("the signing key has %d bytes, not the %d of an Ed25519 private key", len(o.SigningKey), ed25519.PrivateKeySize)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// Checkpoint is the content of a checkpoint or continues line.
type Checkpoint struct {
	// LogID is the log's id.
	LogID string `json:"logId"`
	// Seq is the seq of the last record before the line.
	Seq uint64 `json:"seq"`
	// Digest is the digest of the line before this one ("sha256:hex"): the
	// last record's line for a checkpoint, the previous file's last line
	// for a continues line.
	Digest string `json:"digest"`
	// Time is when the line was written.
	Time time.Time `json:"time"`
	// Every is the sink's CheckpointEvery, when signed: verify expects no
	// more records than that after the last checkpoint.
	Every int `json:"every,omitempty"`
	// Sig is the base64 Ed25519 signature of CheckpointMessage; empty
	// without a key.
	Sig string `json:"sig,omitempty"`
}

// Line kinds, the key of a checkpoint or continues line.
const (
	KindCheckpoint = "checkpoint"
	KindContinues  = "continues"
)

// CheckpointMessage is what a checkpoint's signature covers: kind
// ("checkpoint" or "continues"), the log id, seq, digest, time (RFC 3339,
// nanoseconds, UTC) and every, one per line after a fixed first line.
func CheckpointMessage(kind string, c *Checkpoint) []byte {
	b := []byte("luahook decision log checkpoint v1\n")
	b = append(b, kind...)
	b = append(b, '\n')
	b = append(b, c.LogID...)
	b = append(b, '\n')
	b = strconv.AppendUint(b, c.Seq, 10)
	b = append(b, '\n')
	b = append(b, c.Digest...)
	b = append(b, '\n')
	b = c.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, '\n')
	b = strconv.AppendInt(b, int64(c.Every), 10)
	return b
}

// Genesis is the prev of a log's first record: the digest of
// "luahook decision log\n" and the log's id.
func Genesis(logID string) string { return digest([]byte(genesisText + logID)) }

// chain is a sink's place in its log: the writer's goroutine (or the file's
// lock) owns it.
type chain struct {
	logID string
	seq   uint64 // the last record's
	prev  string // the digest of the last line written
	since int    // records since the last checkpoint
	opts  ChainOptions
}

// newLogID returns a fresh random log id: 32 hex digits.
func newLogID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// newChain starts a new log.
func newChain(opts ChainOptions) *chain {
	id := newLogID()
	return &chain{logID: id, prev: Genesis(id), opts: opts}
}

// appendRecord stamps rec with the chain's next place and appends its line
// to b.
func (c *chain) appendRecord(b []byte, rec *Record) []byte {
	rec.Seq, rec.LogID, rec.Prev = c.seq+1, c.logID, c.prev
	n := len(b)
	b = AppendLine(b, rec)
	c.seq++
	c.since++
	c.prev = digest(b[n : len(b)-1])
	return b
}

// due reports whether a checkpoint is due after the record just written.
func (c *chain) due() bool {
	return c.opts.SigningKey != nil && c.since >= c.opts.CheckpointEvery
}

// appendCheckpoint appends a checkpoint line when a key is set and records
// were written since the last one.
func (c *chain) appendCheckpoint(b []byte) []byte {
	if c.opts.SigningKey == nil || c.since == 0 {
		return b
	}
	c.since = 0
	return c.appendMark(b, KindCheckpoint)
}

// appendContinues appends the first line of a file continuing the log.
func (c *chain) appendContinues(b []byte) []byte { return c.appendMark(b, KindContinues) }

func (c *chain) appendMark(b []byte, kind string) []byte {
	cp := Checkpoint{LogID: c.logID, Seq: c.seq, Digest: c.prev, Time: c.opts.Now().UTC()}
	if c.opts.SigningKey != nil {
		cp.Every = c.opts.CheckpointEvery
		cp.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(c.opts.SigningKey, CheckpointMessage(kind, &cp)))
	}
	n := len(b)
	b = appendMarkLine(b, kind, &cp)
	c.prev = digest(b[n : len(b)-1])
	return b
}

// appendMarkLine appends {"KIND":{...}} and a newline.
func appendMarkLine(b []byte, kind string, cp *Checkpoint) []byte {
	b = append(b, `{"`...)
	b = append(b, kind...)
	b = append(b, `":{"logId":`...)
	b = appendString(b, cp.LogID)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, cp.Seq, 10)
	b = append(b, `,"digest":`...)
	b = appendString(b, cp.Digest)
	b = append(b, `,"time":"`...)
	b = cp.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	if cp.Every != 0 {
		b = append(b, `,"every":`...)
		b = strconv.AppendInt(b, int64(cp.Every), 10)
	}
	b = optString(b, "sig", cp.Sig)
	return append(b, "}}\n"...)
}

// IsChainLine reports whether line (a line of a decision log) is a
// checkpoint or continues line rather than a record: readers of records
// skip it.
func IsChainLine(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	return bytes.HasPrefix(line, []byte(`{"`+KindCheckpoint+`":`)) || bytes.HasPrefix(line, []byte(`{"`+KindContinues+`":`))
}

// chainLine is what verify and a resuming sink read of any line.
type chainLine struct {
	Seq        uint64      `json:"seq"`
	LogID      string      `json:"logId"`
	Prev       string      `json:"prev"`
	Time       time.Time   `json:"time"`
	Checkpoint *Checkpoint `json:"checkpoint"`
	Continues  *Checkpoint `json:"continues"`
}

// parseChainLine reads line's chain fields.
func parseChainLine(line []byte) (*chainLine, error) {
	var l chainLine
	if err := json.Unmarshal(line, &l); err != nil {
		return nil, err
	}
	return &l, nil
}

// resume returns the chain that continues after last, the last line of a
// log's file (without its newline), or nil when last is not a chained
// line (a log written before the chain): the log then starts anew.
func resume(last []byte, opts ChainOptions) *chain {
	l, err := parseChainLine(last)
	if err != nil {
		return nil
	}
	c := &chain{prev: digest(last), opts: opts}
	switch {
	case l.Checkpoint != nil:
		c.logID, c.seq = l.Checkpoint.LogID, l.Checkpoint.Seq
	case l.Continues != nil:
		c.logID, c.seq = l.Continues.LogID, l.Continues.Seq
		// the records since the last checkpoint are not known: sign soon
		c.since = 1
	case l.Seq > 0 && l.LogID != "":
		c.logID, c.seq, c.since = l.LogID, l.Seq, 1
	default:
		return nil
	}
	if !validLogID(c.logID) {
		return nil
	}
	return c
}

// validLogID reports whether id is a log id a sink would write: 1 to 64
// letters and digits.
func validLogID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// errLineTooLong is a last line longer than a sink reads back to resume.
var errLineTooLong = errors.New("the last line is too long to resume the chain from")
