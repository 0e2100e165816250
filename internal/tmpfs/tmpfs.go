// Package tmpfs gives tests a real disk that fills up: a small tmpfs
// mounted for the test, and a filler that takes its last byte.
package tmpfs

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size ("3m") on dir and unmounts it when the
// test is done. Where mount is not permitted the test is skipped, saying
// why, except under CI=true, where it must run (CI runs as root).
func Mount(tb testing.TB, dir, size string) {
	tb.Helper()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput()
	if err != nil {
		msg := "cannot mount a tmpfs for a real full-disk test (needs root or CAP_SYS_ADMIN): " + strings.TrimSpace(string(out))
		if os.Getenv("CI") == "true" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	// Lazy: files the test opened may still be open when this runs; the
	// mount goes once they are closed.
	tb.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
}

// Fill writes a file in dir until the disk is full and returns its path;
// removing it gives the room back.
func Fill(tb testing.TB, dir string) string {
	tb.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				tb.Fatalf("filling the disk: %v", err)
			}
			return path
		}
	}
}
