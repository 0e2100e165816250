package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMakeRunListen: the README's `make run` starts murlog serve on
// 127.0.0.1:8080, and `make run LISTEN=…` on the address given. make -n
// prints the commands without running them (no build, no npm).
func TestMakeRunListen(t *testing.T) {
	t.Parallel()
	mk, err := exec.LookPath("make")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("make is not installed; CI=true, so this is a failure")
		}
		t.Skip("make is not installed")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	serve := regexp.MustCompile(`(?m)murlog serve --listen (\S+)\s*$`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "127.0.0.1:8080"},
		{[]string{"run", "LISTEN=127.0.0.1:9999"}, "127.0.0.1:9999"},
		{[]string{"run", "LISTEN=0.0.0.0:8080"}, "0.0.0.0:8080"},
	} {
		cmd := exec.Command(mk, append([]string{"-n", "-C", root}, tc.args...)...)
		// A LISTEN in the test's own environment must not decide the
		// default case.
		cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "LISTEN=") })
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %v: %v\n%s", tc.args, err, out)
		}
		m := serve.FindSubmatch(out)
		if m == nil || string(m[1]) != tc.want {
			t.Errorf("make -n %v runs\n%s\nwant murlog serve --listen %s", tc.args, out, tc.want)
		}
	}
}
