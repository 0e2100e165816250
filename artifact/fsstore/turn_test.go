package fsstore_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/murlog/murlog/artifact/fsstore"
)

// TestTurns: a pass's exclusive turn keeps out every other turn, of this
// process (another Store on the folder) or of another; shared turns are
// had side by side; a wait ended by its context leaves no lock behind.
func TestTurns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	short := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, 50*time.Millisecond) }

	ra, err := a.Turn(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, exclusive := range []bool{false, true} {
		c, cancel := short()
		if _, err := b.Turn(c, exclusive); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a turn (exclusive %v) beside an exclusive one: %v; want to wait", exclusive, err)
		}
		cancel()
	}
	// A waiter whose wait is still pending when a is released.
	waiting, cancel := context.WithCancel(ctx)
	gave := make(chan error, 1)
	go func() { _, err := b.Turn(waiting, true); gave <- err }()
	cancel()
	if err := <-gave; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled wait: %v", err)
	}
	ra()

	// The cancelled waiter may be granted the lock after it gave up; it
	// lets it go at once, so the next turn is had within moments.
	c, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	rb, err := b.Turn(c, true)
	if err != nil {
		t.Fatalf("a turn after the exclusive one ended: %v", err)
	}
	rb()
	s1, err := a.Turn(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := b.Turn(ctx, false)
	if err != nil {
		t.Fatalf("a shared turn beside a shared one: %v", err)
	}
	c, cancel = short()
	if _, err := b.Turn(c, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an exclusive turn beside shared ones: %v; want to wait", err)
	}
	cancel()
	s1()
	s2()
}

// TestTurnsAcrossProcesses: a turn held by another process (this test
// binary, run again) keeps this one waiting until that process lets go.
func TestTurnsAcrossProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "MURLOG_TURN_DIR="+dir)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
		t.Fatalf("the other process: %q, %v", line, err)
	}
	s := open(t, dir)
	c, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	if _, err := s.Turn(c, false); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a turn beside another process's exclusive one: %v; want to wait", err)
	}
	cancel()
	in.Close() // the other process lets go and ends
	c, cancel = context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r, err := s.Turn(c, true)
	if err != nil {
		t.Fatalf("a turn after the other process let go: %v", err)
	}
	r()
}

// TestOwnersAcrossProcesses: an owner's request in another process (this
// test binary, run again) is seen here, and waited for; owners never
// wait for each other.
func TestOwnersAcrossProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir)
	if s.OwnersBusy() {
		t.Fatal("busy before any owner's request")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "MURLOG_TURN_DIR="+dir, "MURLOG_TURN_WHAT=owner")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill() // a test that failed early: cmd.Wait below is not reached
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "held\n" {
		in.Close()
		t.Fatalf("the other process: %q, %v", line, err)
	}
	if !s.OwnersBusy() {
		t.Error("another process's owner's request is not seen")
	}
	c, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	if err := s.WaitOwners(c); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting beside another process's owner's request: %v; want to wait", err)
	}
	cancel()
	c, cancel = context.WithTimeout(ctx, time.Second)
	mine, err := s.Owner(c)
	cancel()
	if err != nil {
		t.Fatalf("an owner's request beside another's waited: %v", err)
	}
	in.Close() // the other process lets go and ends
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if !s.OwnersBusy() {
		t.Error("this process's own owner's request is not seen")
	}
	mine()
	c, cancel = context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.WaitOwners(c); err != nil {
		t.Fatalf("waiting when no owner's request is left: %v", err)
	}
	if s.OwnersBusy() {
		t.Error("busy after every owner's request ended")
	}
}

// TestMain is also the other process of TestTurnsAcrossProcesses and
// TestOwnersAcrossProcesses: with MURLOG_TURN_DIR it holds an exclusive
// turn there (or, with MURLOG_TURN_WHAT=owner, an owner's mark) until its
// standard input closes.
func TestMain(m *testing.M) {
	dir := os.Getenv("MURLOG_TURN_DIR")
	if dir == "" {
		os.Exit(m.Run())
	}
	s, err := fsstore.New(dir)
	if err != nil {
		panic(err)
	}
	hold := func() (func(), error) { return s.Turn(ctx, true) }
	if os.Getenv("MURLOG_TURN_WHAT") == "owner" {
		hold = func() (func(), error) { return s.Owner(ctx) }
	}
	r, err := hold()
	if err != nil {
		panic(err)
	}
	os.Stdout.WriteString("held\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
	r()
	os.Exit(0)
}
