package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/luahook/luahook"
)

func TestARequestOverItsClientsShareWaitsThenIsRefusedWithABodyThatDenies(t *testing.T) {
	release := make(chan struct{})
	holding := make(chan struct{})
	g := newRig(t, Options{Limits: Limits{MaxClientRequests: 1, ReadTimeout: 300 * time.Millisecond}})
	g.add(luahook.Spec{Event: luahook.PreToolUse, Name: "slow", Hook: luahook.HookFunc(func(ctx context.Context, in *luahook.Input) (*luahook.Outcome, error) {
		if in.ToolName == "slow" {
			close(holding)
			<-release
		}
		return nil, nil
	})})
	var wg sync.WaitGroup
	wg.Go(func() { g.post("/", `{"event":"PreToolUse","toolName":"slow"}`) })
	select { // the slow request holds the client's only slot
	case <-holding:
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("the slow request never reached its hook")
	}
	start := time.Now()
	resp, err := g.srv.Client().Post(g.srv.URL, "application/json", strings.NewReader(`{"event":"PreToolUse","toolName":"bash"}`))
	if err != nil {
		t.Fatal(err)
	}
	body := make([]byte, 4096)
	n, _ := resp.Body.Read(body)
	resp.Body.Close()
	took := time.Since(start)
	close(release)
	wg.Wait()
	out, err := luahook.ParseOutcome(body[:n])
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || err != nil || out == nil || out.Action != luahook.ActionDeny ||
		!strings.Contains(out.Reason, "already has 1 requests in flight") {
		t.Errorf("= %d %s (outcome %+v, %v); want 429 with Retry-After and a denial naming the limit", resp.StatusCode, body[:n], out, err)
	}
	if took < 250*time.Millisecond || took > 5*time.Second {
		t.Errorf("refused after %v, want after the 300 ms wait", took)
	}
	// Once the slot is free, the same client is served again.
	if code, _ := g.post("/", `{"event":"PreToolUse","toolName":"bash"}`); code != http.StatusOK {
		t.Errorf("after the slow request: %d", code)
	}
}

func TestAdmissionHoldsOnlyTheClientsWithARequestInFlight(t *testing.T) {
	a := newAdmission(Limits{MaxBytesInFlight: 100, MaxClientRequests: 2, MaxClientBytes: 50, ReadTimeout: 50 * time.Millisecond})
	var tickets []*ticket
	for i := range 20 {
		tk, err := a.admit(context.Background(), fmt.Sprintf("10.0.0.%d:1", i), "", 1)
		if err != nil {
			t.Fatal(err)
		}
		tickets = append(tickets, tk)
	}
	tk, err := a.admit(context.Background(), "[2001:db8::1]:1", "", 60)
	if err != nil {
		t.Fatalf("a request larger than its client's share takes the whole share: %v", err)
	}
	tickets = append(tickets, tk)
	if _, err := a.admit(context.Background(), "[2001:db8::2]:1", "", 1); err == nil {
		t.Error("another address of the same IPv6 /64 got past its full share")
	}
	if got := a.inUse(); got != 20+60 {
		t.Errorf("reserved %d bytes, want 80", got)
	}
	if n := len(a.clients); n != 21 {
		t.Errorf("%d clients held, want 21", n)
	}
	for _, tk := range tickets {
		tk.release()
	}
	if len(a.clients) != 0 || a.inUse() != 0 {
		t.Errorf("after every release: %d clients held, %d bytes reserved", len(a.clients), a.inUse())
	}
}

func TestSmallBodiesAreAdmittedWhileLargeOnesHoldTheBudget(t *testing.T) {
	a := newAdmission(Limits{MaxBytesInFlight: 16 << 20, MaxClientRequests: 8, MaxClientBytes: 2 << 20, ReadTimeout: 200 * time.Millisecond})
	var tickets []*ticket
	for i := 0; ; i++ { // clients of their own fill what large bodies may hold
		tk, err := a.admit(context.Background(), fmt.Sprintf("10.0.1.%d:1", i), "", 1<<20)
		if err != nil {
			break
		}
		tickets = append(tickets, tk)
	}
	if len(tickets) >= 16 {
		t.Fatalf("large bodies took the whole budget (%d of 1 MiB)", len(tickets))
	}
	start := time.Now()
	tk, err := a.admit(context.Background(), "10.0.2.1:1", "", 2<<10)
	if err != nil {
		t.Fatalf("a 2 KiB body was refused while large ones held the budget: %v", err)
	}
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("a 2 KiB body waited %v behind large ones", took)
	}
	tickets = append(tickets, tk)
	if got := a.inUse(); got > 16<<20 {
		t.Errorf("reserved %d bytes, over the 16 MiB budget", got)
	}
	for _, tk := range tickets {
		tk.release()
	}
	if a.inUse() != 0 {
		t.Errorf("%d bytes still reserved", a.inUse())
	}
}
