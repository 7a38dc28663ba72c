//go:build !linux

package transports

// Without /proc and waitid(WNOWAIT), containment is the process group: it
// is killed when the call's context ends or its output overflows, and
// descendants that leave it, or that a hook which exits leaves running,
// are not tracked.

type callWatch struct{}

type leftovers struct {
	leader         int
	marked, unsure bool
}

func watchCall() callWatch { return callWatch{} }

func (callWatch) ended(int, string) *leftovers { return nil }

// holdExited reports false: the child cannot be held unreaped here, so its
// group is not killed after it exits.
func holdExited(int) bool { return false }

func sweep([]*leftovers, []byte) []*leftovers { return nil }
