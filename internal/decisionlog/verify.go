package decisionlog

import (
	"bufio"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// DefaultVerifyMaxLine bounds a line Verify reads (64 MiB): a longer one is
// a problem, never held whole.
const DefaultVerifyMaxLine = 64 << 20

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Key, when set, checks every checkpoint's signature, and requires
	// checkpoints: a log with none, or with more records after its last
	// one than its checkpoints' interval, is a problem.
	Key ed25519.PublicKey
	// AllowUnchained accepts records without the chain (a log written
	// before it existed) before the first chained line, counting them;
	// by default such a line is a problem. After the chain begins, a line
	// without it is always a problem.
	AllowUnchained bool
	// MaxLineBytes bounds a line; 0 means DefaultVerifyMaxLine.
	MaxLineBytes int
}

// Problem kinds.
const (
	ProblemEdited     = "edited"     // a line's bytes changed
	ProblemRemoved    = "removed"    // lines are missing
	ProblemReordered  = "reordered"  // lines are out of order
	ProblemDuplicated = "duplicated" // a line is repeated
	ProblemSignature  = "signature"  // a checkpoint's signature does not verify, or is missing
	ProblemUnsigned   = "unsigned"   // with a key: checkpoints are missing
	ProblemTruncated  = "truncated"  // a file ends in the middle of a line
	ProblemUnreadable = "unreadable" // a line is not JSON, or too long
	ProblemUnchained  = "unchained"  // a record without the chain
)

// Problem is the first thing Verify found wrong: where, and what.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Seq     uint64 `json:"seq,omitempty"` // the seq of the line at File:Line, when it has one
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (p *Problem) Error() string {
	s := fmt.Sprintf("%s:%d: ", p.File, p.Line)
	if p.Seq != 0 {
		s += fmt.Sprintf("seq %d: ", p.Seq)
	}
	return s + p.Kind + ": " + p.Message
}

// VerifyReport is what Verify found: the counts, notes on what the chain
// cannot vouch for, and the first problem (nil when none).
type VerifyReport struct {
	Files       []string `json:"files"`
	Records     int      `json:"records"`
	Checkpoints int      `json:"checkpoints"`
	// SignaturesChecked is set when a key checked the checkpoints.
	SignaturesChecked bool `json:"signaturesChecked"`
	// Logs are the ids of the logs the files hold, in order (a process
	// writing to standard output starts a new log each time).
	Logs     []string `json:"logs"`
	FirstSeq uint64   `json:"firstSeq,omitempty"`
	LastSeq  uint64   `json:"lastSeq,omitempty"`
	// Unchained counts the records without the chain that AllowUnchained
	// let through.
	Unchained int `json:"unchained,omitempty"`
	// Notes say what the files do not prove: a start after the log's
	// first record, a tail no signature or successor vouches for.
	Notes   []string `json:"notes,omitempty"`
	Problem *Problem `json:"problem,omitempty"`
}

// OK reports whether no problem was found.
func (r *VerifyReport) OK() bool { return r.Problem == nil }

// LogFiles returns the files of the log whose live file is path, oldest
// first: its rotated files PATH.N ... PATH.1 that exist, then PATH (when
// it exists).
func LogFiles(path string) ([]string, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list the log's folder: %w", err)
	}
	type rotated struct {
		n    int
		name string
	}
	var found []rotated
	live := false
	for _, e := range entries {
		name := e.Name()
		if name == base {
			live = true
			continue
		}
		rest, ok := strings.CutPrefix(name, base+".")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 || strconv.Itoa(n) != rest {
			continue
		}
		found = append(found, rotated{n, name})
	}
	slices.SortFunc(found, func(a, b rotated) int { return b.n - a.n })
	var files []string
	for _, r := range found {
		files = append(files, filepath.Join(dir, r.name))
	}
	if live {
		files = append(files, path)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no such log (nor its rotated files %s.1, %s.2, ...)", path, path, path)
	}
	return files, nil
}

// Verify checks the hash chain of a log's files, given oldest first (see
// LogFiles), and stops at the first problem. An error is a file that could
// not be read; what is wrong with the log is the report's Problem.
func Verify(files []string, opts VerifyOptions) (*VerifyReport, error) {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultVerifyMaxLine
	}
	v := &verifier{opts: opts, rep: &VerifyReport{Files: files, Logs: []string{}, SignaturesChecked: opts.Key != nil}, seen: map[string]bool{}}
	for _, name := range files {
		if err := v.file(name); err != nil {
			return nil, err
		}
		if v.rep.Problem != nil {
			return v.rep, nil
		}
	}
	v.end()
	return v.rep, nil
}

type place struct {
	file string
	line int
	seq  uint64
}

type verifier struct {
	opts    VerifyOptions
	rep     *VerifyReport
	started bool
	logID   string
	seq     uint64 // the last record's
	prev    string // the digest of the last line
	last    place  // the last line
	lastRec bool   // the last line is a record
	seen    map[string]bool
	// gap is a removal judged at the next line, which may be the missing
	// record come late (reordered).
	gap       *Problem
	gapExpect uint64
	// the last checkpoint, and the records after it
	cp      *place
	cpEvery int
	afterCP int
}

func (v *verifier) problem(at place, kind, format string, args ...any) {
	if v.rep.Problem == nil {
		v.rep.Problem = &Problem{File: at.file, Line: at.line, Seq: at.seq, Kind: kind, Message: fmt.Sprintf(format, args...)}
	}
}

func (v *verifier) note(format string, args ...any) {
	v.rep.Notes = append(v.rep.Notes, fmt.Sprintf(format, args...))
}

func (p place) String() string { return fmt.Sprintf("%s:%d", p.file, p.line) }

func (v *verifier) file(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		buf = buf[:0]
		tooLong, complete := false, false
		var rerr error
		for {
			chunk, err := br.ReadSlice('\n')
			if !tooLong {
				if len(buf)+len(chunk) > v.opts.MaxLineBytes+1 {
					tooLong, buf = true, buf[:0]
				} else {
					buf = append(buf, chunk...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == nil {
				complete = true
			} else if err != io.EOF {
				return fmt.Errorf("%s:%d: %w", name, n, err)
			} else {
				rerr = io.EOF
				if len(chunk) == 0 && len(buf) == 0 && !tooLong {
					return nil // the end
				}
			}
			break
		}
		at := place{file: name, line: n}
		switch {
		case tooLong:
			v.problem(at, ProblemUnreadable, "the line is longer than %d bytes, the most verify reads", v.opts.MaxLineBytes)
		case !complete:
			v.problem(at, ProblemTruncated, "the file ends in the middle of a line: a record was cut (a torn write, or the file was truncated)")
		default:
			v.line(at, buf[:len(buf)-1])
		}
		if v.rep.Problem != nil || rerr == io.EOF {
			return nil
		}
	}
}

// line judges one line (without its newline).
func (v *verifier) line(at place, data []byte) {
	l, err := parseChainLine(data)
	if err != nil {
		v.problem(at, ProblemUnreadable, "the line is not JSON (%v): it was edited, or torn", err)
		return
	}
	d := digest(data)
	if v.gap != nil {
		if l.Checkpoint == nil && l.Continues == nil && l.Seq == v.gapExpect {
			v.problem(place{v.gap.File, v.gap.Line, v.gap.Seq}, ProblemReordered,
				"seq %d comes before seq %d (%s): the records were reordered", v.gap.Seq, l.Seq, at)
		} else {
			v.rep.Problem = v.gap
		}
		return
	}
	switch {
	case l.Checkpoint != nil:
		v.checkpoint(at, l.Checkpoint, d)
	case l.Continues != nil:
		v.continues(at, l.Continues, d)
	case l.Seq == 0:
		if !v.started && v.opts.AllowUnchained {
			v.rep.Unchained++
			return
		}
		if v.started {
			v.problem(at, ProblemUnchained, "a line without the chain (seq, prev) in a chained log: it was inserted or edited")
		} else {
			v.problem(at, ProblemUnchained, "no chain: the record has no seq or prev (a log written before luahook chained its records?); --allow-unchained accepts such records before the chain begins")
		}
		return
	default:
		v.record(at, l, d)
	}
}

func (v *verifier) record(at place, l *chainLine, d string) {
	at.seq = l.Seq
	switch {
	case l.Seq == 1 && l.Prev == Genesis(l.LogID):
		if v.seen[l.LogID] {
			v.problem(at, ProblemDuplicated, "a second first record of log %s", l.LogID)
			return
		}
		if v.started {
			v.note("log %s ends at seq %d (%s); log %s begins at %s", v.logID, v.seq, v.last, l.LogID, at)
			v.tail()
		}
		v.begin(l.LogID)
	case !v.started:
		v.problem(at, ProblemRemoved, "the first line is seq %d of log %s, neither the log's first record nor a file's continues line: the lines before it were removed", l.Seq, l.LogID)
		return
	case l.Prev == v.prev:
		// it follows the line before it: its own fields must say so
		if l.Seq != v.seq+1 {
			v.problem(at, ProblemEdited, "its seq is %d, but it follows seq %d (%s): its seq was changed", l.Seq, v.seq, v.last)
			return
		}
		if l.LogID != v.logID {
			v.problem(at, ProblemEdited, "its logId is %s, but it follows a record of log %s: its logId was changed", l.LogID, v.logID)
			return
		}
	case l.Seq == v.seq+1:
		v.problem(v.last, ProblemEdited, "the line's digest is not the prev of the line after it (%s): the line was changed, or a checkpoint between them removed", at)
		return
	case l.Seq > v.seq+1:
		v.gap = &Problem{File: at.file, Line: at.line, Seq: l.Seq, Kind: ProblemRemoved,
			Message: fmt.Sprintf("seq %s missing before this line (it follows seq %d at %s)", seqRange(v.seq+1, l.Seq-1), v.seq, v.last)}
		v.gapExpect = v.seq + 1
		return
	case d == v.prev:
		v.problem(at, ProblemDuplicated, "the line repeats the line before it (%s)", v.last)
		return
	default:
		v.problem(at, ProblemReordered, "seq %d comes after seq %d (%s): the records were reordered", l.Seq, v.seq, v.last)
		return
	}
	v.seq, v.prev, v.last, v.lastRec = l.Seq, d, at, true
	v.rep.Records++
	if v.rep.FirstSeq == 0 {
		v.rep.FirstSeq = l.Seq
	}
	v.rep.LastSeq = l.Seq
	v.afterCP++
}

func seqRange(a, b uint64) string {
	if a == b {
		return strconv.FormatUint(a, 10) + " is"
	}
	return fmt.Sprintf("%d to %d are", a, b)
}

// begin starts log id.
func (v *verifier) begin(id string) {
	v.started, v.logID, v.seq, v.prev = true, id, 0, Genesis(id)
	v.seen[id] = true
	v.rep.Logs = append(v.rep.Logs, id)
	v.cp, v.cpEvery, v.afterCP = nil, 0, 0
}

// mark checks what a checkpoint or continues line says of the line before
// it; false when it is a problem.
func (v *verifier) mark(at place, kind string, cp *Checkpoint) bool {
	at.seq = cp.Seq
	switch {
	case cp.LogID != v.logID:
		v.problem(at, ProblemEdited, "the %s names log %s, but the lines before it are of log %s", kind, cp.LogID, v.logID)
	case cp.Seq > v.seq:
		v.problem(at, ProblemRemoved, "the %s follows seq %d, but the line before it is seq %d (%s): seq %s missing", kind, cp.Seq, v.seq, v.last, seqRange(v.seq+1, cp.Seq))
	case cp.Seq < v.seq:
		v.problem(at, ProblemReordered, "the %s follows seq %d, but the line before it is seq %d (%s): the lines were reordered", kind, cp.Seq, v.seq, v.last)
	case cp.Digest != v.prev:
		v.problem(v.last, ProblemEdited, "the line's digest is not the one the %s after it (%s) names: the line was changed", kind, at)
	default:
		return v.signature(at, kind, cp)
	}
	return false
}

// signature checks cp's signature when a key is set.
func (v *verifier) signature(at place, kind string, cp *Checkpoint) bool {
	if v.opts.Key == nil {
		return true
	}
	since := "the log's start"
	if v.cp != nil {
		since = "the checkpoint at " + v.cp.String()
	}
	sig, err := base64.StdEncoding.DecodeString(cp.Sig)
	switch {
	case cp.Sig == "":
		v.problem(at, ProblemSignature, "the %s is not signed: the log was written without a signing key, or the lines since %s were rewritten", kind, since)
	case err != nil || !ed25519.Verify(v.opts.Key, CheckpointMessage(kind, cp), sig):
		v.problem(at, ProblemSignature, "the %s's signature does not verify with the key: it was forged or edited, or the lines since %s were rewritten (with their chain recomputed)", kind, since)
	default:
		return true
	}
	return false
}

func (v *verifier) checkpoint(at place, cp *Checkpoint, d string) {
	if !v.started {
		v.problem(place{at.file, at.line, cp.Seq}, ProblemRemoved, "the first line is a checkpoint of seq %d of log %s: the records it covers were removed", cp.Seq, cp.LogID)
		return
	}
	if !v.mark(at, KindCheckpoint, cp) {
		return
	}
	v.rep.Checkpoints++
	at.seq = cp.Seq
	v.prev, v.last, v.lastRec = d, at, false
	v.cp, v.cpEvery, v.afterCP = &at, cp.Every, 0
}

func (v *verifier) continues(at place, cp *Checkpoint, d string) {
	at.seq = cp.Seq
	if !v.started {
		if !validLogID(cp.LogID) {
			v.problem(at, ProblemEdited, "the continues line names no valid log id")
			return
		}
		if v.seen[cp.LogID] {
			v.problem(at, ProblemDuplicated, "log %s continues again", cp.LogID)
			return
		}
		v.begin(cp.LogID)
		v.seq, v.prev = cp.Seq, cp.Digest
		v.last = at
		if !v.signature(at, KindContinues, cp) {
			return
		}
		v.note("the files start after seq %d of log %s (%s): the records before it are in files not present (rotated away, or not given)", cp.Seq, cp.LogID, at)
	} else if !v.mark(at, KindContinues, cp) {
		return
	}
	v.prev, v.last, v.lastRec = d, at, false
	if v.opts.Key != nil {
		// a signed continues line vouches for the lines before it
		v.cp, v.afterCP = &at, 0
		if cp.Every > 0 {
			v.cpEvery = cp.Every
		}
	}
}

// tail judges the end of a log: what no signature or successor vouches
// for.
func (v *verifier) tail() {
	if !v.started || v.rep.Problem != nil {
		return
	}
	if v.opts.Key != nil {
		switch {
		case v.cp == nil && v.afterCP > 0:
			v.problem(v.last, ProblemUnsigned, "log %s has no checkpoint: it was written without a signing key, or its checkpoints were removed (its chain could have been recomputed by anyone)", v.logID)
		case v.cpEvery > 0 && v.afterCP > v.cpEvery:
			v.problem(v.last, ProblemUnsigned, "%d records follow the last checkpoint (%s), more than the %d a checkpoint covers: checkpoints were removed", v.afterCP, v.cp, v.cpEvery)
		case v.afterCP > 0:
			v.note("the last %d record(s) of log %s (seq %d to %d) follow its last checkpoint (%s): no signature vouches for them yet (the log is still open, or its writer ended without closing it)", v.afterCP, v.logID, v.seq-uint64(v.afterCP)+1, v.seq, v.cp)
		}
		return
	}
	if v.lastRec {
		v.note("the last line of log %s (%s, seq %d) has no successor: a change to it cannot be detected without a signed checkpoint after it or its digest kept elsewhere", v.logID, v.last, v.seq)
	} else {
		v.note("the last line of log %s (%s) is a checkpoint not checked (no key): a change to it, or to the chain recomputed before it, cannot be detected", v.logID, v.last)
	}
}

func (v *verifier) end() {
	if v.gap != nil {
		v.rep.Problem = v.gap
		return
	}
	v.tail()
	if v.rep.Problem == nil && v.opts.Key == nil && v.rep.Checkpoints > 0 {
		v.note("%d checkpoint(s) were chained but their signatures not checked: give the public key (--key) to check them", v.rep.Checkpoints)
	}
}
