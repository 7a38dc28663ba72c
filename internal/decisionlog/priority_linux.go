package decisionlog

import (
	"runtime"
	"syscall"
)

// writerNice is the nice value of the writer's thread: when the machine is
// busy, decisions go first and the log waits (and drops past its queue).
const writerNice = 19

// lowerPriority puts the calling goroutine on a thread of its own at
// writerNice. The thread ends with the goroutine (it stays locked), so no
// other goroutine ever runs at that priority.
func lowerPriority() {
	runtime.LockOSThread()
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), writerNice)
}
