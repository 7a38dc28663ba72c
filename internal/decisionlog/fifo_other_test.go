//go:build !unix

package decisionlog_test

import "errors"

func mkfifo(string) error { return errors.New("no named pipes here") }
