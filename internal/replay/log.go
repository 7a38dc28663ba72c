package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/luahook/luahook"
	"github.com/luahook/luahook/internal/decisionlog"
)

// DefaultMaxLineBytes bounds one line of a decision log: a record carries a
// payload of at most a few MiB (max_input_bytes) and its hooks' outcomes.
const DefaultMaxLineBytes = 16 << 20

// LineError is a line of the log that could not be read as a record.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// Reader reads the records of a decision log, one JSON line each. A line
// longer than its cap is skipped without being held in memory.
type Reader struct {
	br      *bufio.Reader
	max     int
	line    int
	buf     []byte
	pending error // a read error to return after the last line
}

// NewReader returns a Reader of r whose lines may be up to maxLine bytes
// (DefaultMaxLineBytes when maxLine <= 0).
func NewReader(r io.Reader, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), max: maxLine}
}

// Logged is one record read from the log, with the payload it carries.
type Logged struct {
	Line   int
	Record *decisionlog.Record
	// Input is Record.Input decoded, with the record's event.
	Input *luahook.Input
}

// Next returns the next record. A line that is not a
// record is a *LineError, after which Next goes on with the next line;
// blank lines are skipped. At the end of the log Next returns io.EOF; an
// error reading the log itself is returned as it is, and ends the reading.
func (r *Reader) Next() (*Logged, error) {
	for {
		if r.pending != nil {
			return nil, r.pending
		}
		data, tooLong, err := r.readLine()
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read the log at line %d: %w", r.line+1, err)
		}
		if err == io.EOF {
			r.pending = io.EOF
			if len(data) == 0 && !tooLong {
				return nil, io.EOF
			}
		}
		r.line++
		if tooLong {
			return nil, &LineError{r.line, fmt.Errorf("longer than %s", mib(r.max))}
		}
		if len(bytes.TrimSpace(data)) == 0 || decisionlog.IsChainLine(data) {
			continue // a blank line, or a checkpoint of the log's hash chain
		}
		rec, in, err := DecodeRecord(data)
		if err != nil {
			return nil, &LineError{r.line, err}
		}
		return &Logged{Line: r.line, Record: rec, Input: in}, nil
	}
}

// readLine reads up to the next newline, keeping at most r.max bytes: a
// longer line is read to its end and reported, never held.
func (r *Reader) readLine() (data []byte, tooLong bool, err error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		if !tooLong {
			n := len(chunk)
			if n > 0 && chunk[n-1] == '\n' {
				n-- // the newline is not the line's
			}
			if len(r.buf)+n > r.max {
				tooLong, r.buf = true, r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return r.buf, tooLong, err
		}
		return r.buf, tooLong, nil
	}
}

// DecodeRecord reads one line of a decision log and the payload it
// carries. The record's own fields
// are read as encoding/json reads them (a newer luahook may add fields);
// its input as strictly as luahook serve reads a payload
// (luahook.DecodeInput), and its event must be a known one that the input,
// when it names one, agrees with.
func DecodeRecord(data []byte) (*decisionlog.Record, *luahook.Input, error) {
	rec := &decisionlog.Record{}
	if err := json.Unmarshal(data, rec); err != nil {
		return nil, nil, fmt.Errorf("not a decision record: %w", err)
	}
	if rec.Time.IsZero() {
		return nil, nil, errors.New(`not a decision record: no "time"`)
	}
	if d := rec.Delivered; d != nil && (d.Cause == "read" || d.Cause == "decode" || d.Cause == "server" || d.Cause == "overloaded") {
		// A fail-closed answer no hook gave: to a payload luahook could
		// not read (the record holds none to run them on), or one the
		// policies were never asked (the server fire --http asked did
		// not answer, serve was overloaded): no decision to compare.
		return nil, nil, fmt.Errorf("the payload was not decided (cause %s), so it cannot be replayed: %s", d.Cause, d.Reason)
	}
	if _, err := luahook.ParseEvent(string(rec.Event)); err != nil {
		return nil, nil, fmt.Errorf("event: %w", err)
	}
	in, err := decodeInput(rec)
	if err != nil {
		return nil, nil, err
	}
	return rec, in, nil
}

// decodeInput decodes the payload a record was decided on (after masking),
// with the record's event.
func decodeInput(rec *decisionlog.Record) (*luahook.Input, error) {
	if rec.Truncated {
		return nil, fmt.Errorf("the payload (%d bytes) was over the log's max_input_bytes and was not logged, so it cannot be replayed", rec.InputBytes)
	}
	if len(bytes.TrimSpace(rec.Input)) == 0 || string(rec.Input) == "null" {
		return nil, errors.New(`no "input"`)
	}
	in, err := luahook.DecodeInput(rec.Input)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	switch in.Event {
	case "":
		in.Event = rec.Event
	case rec.Event:
	default:
		return nil, fmt.Errorf("input: its event %q is not the record's %q", in.Event, rec.Event)
	}
	return in, nil
}

func mib(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
