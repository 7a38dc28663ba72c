package decisionlog

import (
	"runtime"
	"sync/atomic"
	"syscall"
)

// writerNice is the nice value of the writer's thread: when the machine is
// busy, decisions go first and the log waits (and drops past its queue).
const writerNice = 19

// idleWriters hands a writer's loop to a low-priority thread that waits
// for one (runLowPriority).
var idleWriters = make(chan func())

// writerThreads counts the low-priority threads made.
var writerThreads atomic.Int64

// runLowPriority runs f on a thread of its own at writerNice, where no
// other goroutine ever runs. The threads are kept once made: a thread that
// ended would take with it every child process it started with a parent-
// death signal (Pdeathsig is the starting thread's, not the process's: a
// host's, or a test's, redis-server killed as a logger closes; see
// go.dev/issue/27505), and its nice could not be raised back without
// privilege. So when f returns its thread waits for the next writer; there
// are as many such threads as loggers ever wrote at once.
func runLowPriority(f func()) {
	select {
	case idleWriters <- f:
		return
	default:
	}
	writerThreads.Add(1)
	go func() {
		runtime.LockOSThread()
		_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), writerNice)
		for {
			f()
			f = <-idleWriters
		}
	}()
}
