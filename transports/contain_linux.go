//go:build linux

package transports

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// Containment on Linux. A command hook's child leads a process group of its
// own, and carries a marker unique to the call in its environment
// (LUAHOOK_CALL), which its descendants inherit. When the call ends, however
// it ends, the whole group is killed while the child's pid is still held
// (the child has exited but is not yet reaped, so its pid, which is the
// group's id, cannot name another group). A descendant that left the group
// (setsid, a double-forked daemon) is then found by its marker in
// /proc/PID/environ, among the processes of the same user created since the
// child, and killed through a pidfd, so that a reused pid is never hit; the
// rounds repeat until none is found. Only processes that keep the marker in
// their environment and stay with the same user are found: one that clears
// its environment and leaves the group, or changes user, escapes.

// pidClock is what /proc says about process creation at one moment: the
// number of forks since boot, the number of tasks, and the last pid given.
type pidClock struct {
	forks uint64
	tasks int
	last  int
	ok    bool
}

// leftovers is a finished call whose descendants may have survived the
// group kill: those carry needle in their environment and have a pid given
// after leader's, up to last (cyclically; sweep reads last), unless so many
// were created that the pid counter may have gone round, when every pid is
// looked at. A call after which no pid was given has no descendant at all.
type leftovers struct {
	needle []byte // "\x00LUAHOOK_CALL=<marker>\x00"
	leader int
	start  pidClock
	last   int
	full   bool
	// marked: the last round killed marked processes; unsure: it found a
	// process whose environment read empty (one in the middle of an exec),
	// which the next round, after a pause, looks at again.
	marked, unsure bool
}

// callWatch is the pid clock read as a child starts.
type callWatch struct{ start pidClock }

// watchCall reads the pid clock right after a child was spawned. The forks
// the child makes before the read are not counted; sweep's margin covers
// them (a process cannot fork a thousand times in the microseconds between
// its exec and the read).
func watchCall() callWatch { return callWatch{start: readPIDClock(true)} }

// ended returns what the call that spawned leader may have left, for the
// sweeper, which reads /proc off the caller's path.
func (w callWatch) ended(leader int, marker string) *leftovers {
	return &leftovers{needle: []byte("\x00" + callVar + "=" + marker + "\x00"), leader: leader, start: w.start,
		last: leader, full: !w.start.ok}
}

// holdExited blocks until the child pid has exited, without reaping it, and
// reports whether it did so.
func holdExited(pid int) bool {
	const pPID, wNOWAIT = 1, 0x01000000
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
			syscall.WEXITED|wNOWAIT, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		return e == 0
	}
}

// readPIDClock reads /proc/loadavg (tasks, last pid) and, with forks,
// the fork count of /proc/stat.
func readPIDClock(forks bool) pidClock {
	var c pidClock
	var buf [128]byte
	b := readSmall("/proc/loadavg", buf[:])
	f := bytes.Fields(b)
	if len(f) < 5 {
		return c
	}
	_, total, _ := bytes.Cut(f[3], []byte("/"))
	var err1, err2 error
	c.tasks, err1 = strconv.Atoi(string(total))
	c.last, err2 = strconv.Atoi(string(f[4]))
	c.ok = err1 == nil && err2 == nil
	if forks && c.ok {
		var sbuf [16 << 10]byte
		s := readSmall("/proc/stat", sbuf[:])
		_, rest, found := bytes.Cut(s, []byte("\nprocesses "))
		if line, _, _ := bytes.Cut(rest, []byte("\n")); found {
			c.forks, err1 = strconv.ParseUint(string(line), 10, 64)
			c.ok = err1 == nil
		} else {
			c.ok = false
		}
	}
	return c
}

// readSmall reads what fits of a small /proc file into buf.
func readSmall(path string, buf []byte) []byte {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	n := 0
	for n < len(buf) {
		k, err := syscall.Read(fd, buf[n:])
		if k <= 0 || err != nil {
			break
		}
		n += k
	}
	return buf[:n]
}

// pidMax returns the size of the pid space.
func pidMax() int {
	var buf [32]byte
	n, err := strconv.Atoi(string(bytes.TrimSpace(readSmall("/proc/sys/kernel/pid_max", buf[:]))))
	if err != nil || n <= 0 {
		return 1 << 22
	}
	return n
}

// forkMargin is added to the forks counted since a call started when
// judging whether the pid counter may have gone round: it covers the forks
// made before the count was first read.
const forkMargin = 1024

// probeLimit is the longest pid range swept by looking at each pid; a
// longer one lists /proc instead.
const probeLimit = 256

// sweep makes one pass over the processes that jobs may have left, kills
// the marked ones and returns the jobs that had any, their ranges extended
// to the pids given since, for another round. buf is scratch space.
func sweep(jobs []*leftovers, buf []byte) []*leftovers {
	now := readPIDClock(true)
	space := pidMax()
	span := 0
	for _, j := range jobs {
		// The pids after the leader's name every process created since,
		// unless the counter may have gone all the way round: each fork
		// since the start advances it by one, each task that already
		// existed lets it skip one pid.
		if !now.ok || j.full || int(now.forks-j.start.forks)+j.start.tasks+forkMargin >= space-300 {
			j.full = true
		}
		if now.ok {
			j.last = now.last
		}
		span += cyclicLen(j.leader, j.last, space)
		if j.full {
			span = space
		}
	}
	self, uid := os.Getpid(), uint32(os.Geteuid())
	found, unsure := make([]bool, len(jobs)), make([]bool, len(jobs))
	check := func(pid int) {
		if pid == self {
			return
		}
		var hit []int
		for i, j := range jobs {
			if j.full || inCyclic(pid, j.leader, j.last) {
				hit = append(hit, i)
			}
		}
		if len(hit) == 0 {
			return
		}
		dir := "/proc/" + strconv.Itoa(pid)
		var st syscall.Stat_t
		if syscall.Stat(dir, &st) != nil || st.Uid != uid {
			return
		}
		for _, i := range hit {
			has, empty := environFind(dir, jobs[i].needle, buf)
			switch {
			case has:
				found[i] = true
				kill(pid, dir, jobs[i].needle, buf, self)
			case empty && !unsure[i] && execing(dir, buf):
				// An exec replaces the environment's memory: read in
				// between, it is empty, marker or not.
				unsure[i] = true
			}
		}
	}
	if span <= probeLimit {
		for _, j := range jobs {
			if j.last == j.leader {
				continue
			}
			for pid := j.leader + 1; ; pid++ {
				if pid >= space {
					pid = 1
				}
				check(pid)
				if pid == j.last {
					break
				}
			}
		}
	} else if d, err := os.Open("/proc"); err == nil {
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, name := range names {
			if pid, err := strconv.Atoi(name); err == nil {
				check(pid)
			}
		}
	}
	var again []*leftovers
	for i, j := range jobs {
		if found[i] || unsure[i] {
			j.marked, j.unsure = found[i], unsure[i]
			again = append(again, j)
		}
	}
	return again
}

// execing reports whether the process at dir, whose environment read empty,
// may be in the middle of an exec: it is neither a zombie nor a kernel
// thread (which have no environment), and it still exists.
func execing(dir string, buf []byte) bool {
	b := readSmall(dir+"/stat", buf)
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 7 || f[0][0] == 'Z' || f[0][0] == 'X' {
		return false
	}
	flags, err := strconv.ParseUint(string(f[6]), 10, 64)
	return err == nil && flags&pfKthread == 0
}

// pfKthread is the kernel's PF_KTHREAD flag in /proc/PID/stat.
const pfKthread = 0x00200000

func cyclicLen(from, to, space int) int {
	if to >= from {
		return to - from
	}
	return space - from + to
}

// inCyclic reports whether pid is in the cyclic range (from, to].
func inCyclic(pid, from, to int) bool {
	if from == to {
		return false
	}
	if from < to {
		return pid > from && pid <= to
	}
	return pid > from || pid <= to
}

// kill sends SIGKILL to pid through a pidfd, after checking that the
// process the pidfd names still carries needle, and reaps it if it is our
// own child (as an orphan is when this process is a subreaper).
func kill(pid int, dir string, needle, buf []byte, self int) {
	p, err := os.FindProcess(pid) // a pidfd: it cannot come to name another process
	if err != nil {
		return
	}
	defer p.Release()
	if !environHas(dir, needle, buf) {
		return
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		return
	}
	if parentOf(dir, buf) == self {
		_, _ = p.Wait()
	}
}

// environHas reports whether the environment of the process at dir has the
// entry that needle ("\x00NAME=value\x00") holds, reading it in pieces of
// buf.
func environHas(dir string, needle, buf []byte) bool {
	has, _ := environFind(dir, needle, buf)
	return has
}

// environFind is environHas, and whether the environment read empty (a
// zombie's, a kernel thread's, or one in the middle of an exec).
func environFind(dir string, needle, buf []byte) (has, empty bool) {
	f, err := os.Open(dir + "/environ")
	if err != nil {
		return false, false
	}
	defer f.Close()
	keep := 0 // bytes carried over from the last piece, to find a needle across pieces
	for first := true; ; first = false {
		n, err := f.Read(buf[keep:])
		chunk := buf[:keep+n]
		if first && bytes.HasPrefix(chunk, needle[1:]) || bytes.Contains(chunk, needle) {
			return true, false
		}
		if err != nil || n == 0 {
			return false, first && n == 0
		}
		keep = min(len(needle)-1, len(chunk))
		copy(buf, chunk[len(chunk)-keep:])
	}
}

// parentOf returns the parent pid that /proc/PID/stat names, or -1.
func parentOf(dir string, buf []byte) int {
	b := readSmall(dir+"/stat", buf)
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 2 {
		return -1
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil {
		return -1
	}
	return ppid
}
