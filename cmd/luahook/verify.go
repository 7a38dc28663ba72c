package main

import (
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/luahook/luahook/internal/decisionlog"
)

type verifyOptions struct {
	json           bool
	key            string
	allowUnchained bool
}

func newVerifyCmd(s *streams) *cobra.Command {
	o := &verifyOptions{}
	cmd := &cobra.Command{
		Use:   "verify LOG [LOG...]",
		Short: "Check a decision log's hash chain and signed checkpoints; report the first edited, removed or reordered record",
		Long: `verify checks the hash chain of a decision log: each record's seq follows the
one before it and its prev is the SHA-256 of the line before it, byte for
byte, across the log's rotated files. With --key (the Ed25519 public key of
the [decision_log] signing_key, PEM) it also checks every checkpoint's
signature, and that checkpoints are there.

One LOG is the live file: its rotated files LOG.N ... LOG.1 are read first,
oldest first. Several LOGs are read as given, oldest first.

It prints OK with the counts (records, checkpoints, files, first and last
seq) and what the log cannot vouch for (records after the last checkpoint,
or a last record without a successor), or the first problem: FILE:LINE, the
seq, and the kind: edited, removed, reordered, duplicated, signature,
unsigned, truncated, unreadable, unchained.

A log whose oldest files rotation removed starts at a continues line: verify
starts there and says so. Records written before the chain existed have no
seq: they are a problem (unchained) unless --allow-unchained, which accepts
them before the chain begins.

Exit status 0 when the log verifies, 1 at a problem, 2 on bad usage or a
file that cannot be read.`,
		Example: `  luahook verify /var/log/luahook/decisions.jsonl
  luahook verify --key decisions.pub decisions.jsonl
  luahook verify --json decisions.jsonl.2 decisions.jsonl.1 decisions.jsonl`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(errors.New("verify takes the LOG to check (the live file, or its files oldest first)"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(s, o, args)
		},
	}
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError(fmt.Errorf("%w (see: %s --help)", err, c.CommandPath()))
	})
	f := cmd.Flags()
	f.BoolVar(&o.json, "json", false, "print the report as one JSON object")
	f.StringVar(&o.key, "key", "", "the Ed25519 public key (PEM) that checks the checkpoints' signatures")
	f.BoolVar(&o.allowUnchained, "allow-unchained", false, "accept records without the chain (written before it existed) before the chain begins")
	return cmd
}

func runVerify(s *streams, o *verifyOptions, args []string) error {
	var key ed25519.PublicKey
	if o.key != "" {
		k, err := decisionlog.LoadPublicKey(o.key)
		if err != nil {
			return usageError(fmt.Errorf("--key: %w", err))
		}
		key = k
	}
	files := args
	if len(args) == 1 {
		var err error
		if files, err = decisionlog.LogFiles(args[0]); err != nil {
			return usageError(err)
		}
	}
	rep, err := decisionlog.Verify(files, decisionlog.VerifyOptions{Key: key, AllowUnchained: o.allowUnchained})
	if err != nil {
		return usageError(fmt.Errorf("verify: %w", err))
	}
	if o.json {
		out := struct {
			OK bool `json:"ok"`
			*decisionlog.VerifyReport
		}{rep.OK(), rep}
		data, err := json.Marshal(out)
		if err != nil {
			return err
		}
		fmt.Fprintf(s.out, "%s\n", data)
	} else {
		printVerify(s.out, rep)
	}
	if !rep.OK() {
		return &exitError{code: 1}
	}
	return nil
}

// printVerify prints the report for a person.
func printVerify(w io.Writer, rep *decisionlog.VerifyReport) {
	if p := rep.Problem; p != nil {
		fmt.Fprintf(w, "PROBLEM %s\n", p.Error())
	} else {
		signed := "not checked"
		if rep.SignaturesChecked {
			signed = "signatures checked"
		}
		seq := ""
		if rep.Records > 0 {
			seq = fmt.Sprintf(" (seq %d to %d)", rep.FirstSeq, rep.LastSeq)
		}
		fmt.Fprintf(w, "OK %d records%s in %d %s, %d checkpoints (%s), %d %s\n", rep.Records, seq,
			len(rep.Files), plural(len(rep.Files), "file", "files"), rep.Checkpoints, signed,
			len(rep.Logs), plural(len(rep.Logs), "log", "logs"))
		if rep.Unchained > 0 {
			fmt.Fprintf(w, "  %d records without the chain before it began (--allow-unchained)\n", rep.Unchained)
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if len(rep.Files) > 1 {
		fmt.Fprintf(w, "  files: %s\n", strings.Join(rep.Files, ", "))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
