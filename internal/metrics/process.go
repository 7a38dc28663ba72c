package metrics

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// NewProcessCollector returns a Collector of this process's figures from
// /proc/self, under the names Prometheus's process collector gives them:
// process_cpu_seconds_total, process_open_fds, process_max_fds,
// process_virtual_memory_bytes, process_virtual_memory_max_bytes,
// process_resident_memory_bytes, process_start_time_seconds and
// process_network_receive_bytes_total and _transmit_bytes_total (of the
// process's network namespace, from /proc/self/net/netstat). Where
// /proc cannot be read (not Linux), it adds nothing.
func NewProcessCollector() Collector { return CollectorFunc(collectProcess) }

// userHZ is the unit of /proc/PID/stat's times: USER_HZ, 100 on every Linux
// architecture Go supports.
const userHZ = 100

// procFileMax bounds what is read of one /proc file.
const procFileMax = 64 << 10

func collectProcess(s *Scrape) {
	if st, err := readProcStat(); err == nil {
		s.Counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", st.cpu)
		s.Gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.", st.vsize)
		s.Gauge("process_resident_memory_bytes", "Resident memory size in bytes.", st.rss)
		if boot, err := bootTime(); err == nil {
			s.Gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", boot+st.start)
		}
	}
	if n, err := countFDs(); err == nil {
		s.Gauge("process_open_fds", "Number of open file descriptors.", float64(n))
	}
	if b, err := readProc("/proc/self/net/netstat"); err == nil {
		if in, out, ok := ipOctets(b); ok {
			s.Counter("process_network_receive_bytes_total", "Number of bytes received by the process over the network.", in)
			s.Counter("process_network_transmit_bytes_total", "Number of bytes sent by the process over the network.", out)
		}
	}
	if b, err := readProc("/proc/self/limits"); err == nil {
		if v, ok := softLimit(b, "Max open files"); ok {
			s.Gauge("process_max_fds", "Maximum number of open file descriptors.", v)
		}
		if v, ok := softLimit(b, "Max address space"); ok {
			s.Gauge("process_virtual_memory_max_bytes", "Maximum amount of virtual memory available in bytes.", v)
		}
	}
}

func readProc(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, procFileMax))
}

type procStat struct {
	cpu, vsize, rss float64 // seconds, bytes, bytes
	start           float64 // seconds after boot
}

var errProcFormat = errors.New("metrics: unexpected /proc format")

// readProcStat reads /proc/self/stat. The command name (field 2) may hold
// spaces and parentheses, so the fields are counted from its last ')'.
func readProcStat() (procStat, error) {
	b, err := readProc("/proc/self/stat")
	if err != nil {
		return procStat{}, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errProcFormat
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state): field n is f[n-3].
	if len(f) < 22 {
		return procStat{}, errProcFormat
	}
	var v [5]float64
	for k, n := range [5]int{14, 15, 22, 23, 24} { // utime stime starttime vsize rss
		x, err := strconv.ParseUint(f[n-3], 10, 64)
		if err != nil {
			return procStat{}, errProcFormat
		}
		v[k] = float64(x)
	}
	return procStat{cpu: (v[0] + v[1]) / userHZ, start: v[2] / userHZ, vsize: v[3], rss: v[4] * float64(os.Getpagesize())}, nil
}

func bootTime() (float64, error) {
	b, err := readProc("/proc/stat")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, errProcFormat
}

// countFDs counts /proc/self/fd's entries in batches, so that the count
// costs no more memory for many descriptors than for few.
func countFDs() (int, error) {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return 0, err
	}
	defer d.Close()
	n := 0
	for {
		names, err := d.Readdirnames(512)
		n += len(names)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// softLimit reads a limit's soft value from /proc/self/limits; unlimited
// is the largest uint64, as Prometheus's process collector reports it.
func softLimit(b []byte, name string) (float64, bool) {
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(line, name)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		if f[0] == "unlimited" {
			return math.MaxUint64, true
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		return float64(v), err == nil
	}
	return 0, false
}

// ipOctets reads InOctets and OutOctets from the IpExt lines of
// /proc/self/net/netstat: a line of names, then a line of values.
func ipOctets(b []byte) (in, out float64, ok bool) {
	var names []string
	for line := range strings.Lines(string(b)) {
		rest, found := strings.CutPrefix(line, "IpExt:")
		if !found {
			continue
		}
		if names == nil {
			names = strings.Fields(rest)
			continue
		}
		values := strings.Fields(rest)
		var got int
		for i, n := range names {
			if i >= len(values) || n != "InOctets" && n != "OutOctets" {
				continue
			}
			v, err := strconv.ParseUint(values[i], 10, 64)
			if err != nil {
				return 0, 0, false
			}
			if n == "InOctets" {
				in = float64(v)
			} else {
				out = float64(v)
			}
			got++
		}
		return in, out, got == 2
	}
	return 0, 0, false
}
