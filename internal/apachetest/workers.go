package apachetest

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// WorkerPids returns the running `<prog> worker …` processes: the workers
// CGI requests spawned. They leave Apache's process group (setsid), so
// Apache's shutdown does not reach them; tests find them here.
func WorkerPids(prog string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		argv := strings.Split(string(b), "\x00")
		if len(argv) > 1 && argv[0] == prog && argv[1] == "worker" {
			out = append(out, pid)
		}
	}
	return out
}

// KillWorkers kills every spawned worker of prog still running and waits
// (up to a second) for them to be gone.
func KillWorkers(prog string) {
	for _, pid := range WorkerPids(prog) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(time.Second)
	for len(WorkerPids(prog)) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}
