package server

import (
	"errors"
	"net"
	"net/http"
	"testing"
	"time"
)

func TestLimitsZeroValueAppliesTheDefaults(t *testing.T) {
	srv := Limits{}.HTTPServer(http.NotFoundHandler(), nil)
	if srv.ReadHeaderTimeout != DefaultReadHeaderTimeout || srv.ReadTimeout != DefaultReadTimeout ||
		srv.IdleTimeout != DefaultIdleTimeout || srv.WriteTimeout != DefaultWriteTimeout ||
		srv.MaxHeaderBytes != DefaultMaxHeaderBytes {
		t.Errorf("server %+v, want the defaults", srv)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if ll, ok := (Limits{}).Listener(ln).(*limitListener); !ok || cap(ll.slots) != DefaultMaxConns {
		t.Errorf("listener %T, want a limit of %d", ll, DefaultMaxConns)
	}
	if got := (Limits{MaxConns: -1}).Listener(ln); got != ln {
		t.Errorf("a negative MaxConns still wraps the listener")
	}
}

func TestLimitListenerAcceptsAtMostMaxConnsAtOnce(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Limits{MaxConns: 2}.Listener(inner)
	defer ln.Close()
	accepted := make(chan net.Conn, 3)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	for range 3 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	first, second := <-accepted, <-accepted
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted while two were open")
	case <-time.After(200 * time.Millisecond): // a negative check: nothing must arrive
	}
	first.Close()
	first.Close() // a second Close must not free a second slot
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(5 * time.Second):
		t.Fatal("closing a connection did not free its slot")
	}
	second.Close()
}

func TestLimitListenerCloseEndsAWaitForASlot(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := Limits{MaxConns: 1}.Listener(inner)
	c, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	held, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	done := make(chan error)
	go func() { _, err := ln.Accept(); done <- err }()
	ln.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept after Close: %v, want net.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept still waits for a slot after Close")
	}
}
