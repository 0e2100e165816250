package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestOK"}`,
		`{"Action":"output","Package":"p","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"output","Package":"p","Test":"TestOK","Output":"--- PASS: TestOK (0.00s)\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestOK"}`,
		`{"Action":"run","Package":"p","Test":"TestApache"}`,
		`{"Action":"output","Package":"p","Test":"TestApache","Output":"=== RUN   TestApache\n"}`,
		`{"Action":"output","Package":"p","Test":"TestApache","Output":"    apache_test.go:12: apache2 not installed; skipping\n"}`,
		`{"Action":"output","Package":"p","Test":"TestApache","Output":"--- SKIP: TestApache (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestApache"}`,
		`{"Action":"run","Package":"p","Test":"TestBad"}`,
		`{"Action":"output","Package":"p","Test":"TestBad","Output":"    x_test.go:3: got 1; want 2\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestBad"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\n"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}`,
		`{"Action":"fail","Package":"p"}`,
		`not json: go vet said something`,
	}, "\n")
	var out bytes.Buffer
	code := run(strings.NewReader(in), &out)
	got := out.String()
	if code != 1 {
		t.Errorf("exit code = %d; want 1 for a failed test", code)
	}
	for _, want := range []string{
		"--- FAIL: TestBad (p)\n    x_test.go:3: got 1; want 2\n",
		"FAIL\tp\t0.01s\n",
		"Skipped tests (1):\n  p TestApache: apache_test.go:12: apache2 not installed; skipping\n",
		"not json: go vet said something\n",
		"\n1 passed, 1 failed, 1 skipped\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "TestOK") {
		t.Errorf("output shows a passing test's lines:\n%s", got)
	}
}

func TestAllPassedExitsZero(t *testing.T) {
	t.Parallel()
	in := `{"Action":"pass","Package":"p","Test":"TestOK"}` + "\n" + `{"Action":"output","Package":"p","Output":"ok  \tp\t0.01s\n"}`
	var out bytes.Buffer
	if code := run(strings.NewReader(in), &out); code != 0 {
		t.Errorf("exit code = %d; want 0\n%s", code, out.String())
	}
	if !strings.HasSuffix(out.String(), "1 passed, 0 failed, 0 skipped\n") || !strings.Contains(out.String(), "ok  \tp\t0.01s") {
		t.Errorf("output = %q", out.String())
	}
}

func TestPackageFailureOutsideTests(t *testing.T) {
	t.Parallel()
	in := `{"Action":"output","Package":"p","Output":"panic: boom\n"}` + "\n" + `{"Action":"fail","Package":"p"}`
	var out bytes.Buffer
	if code := run(strings.NewReader(in), &out); code != 1 {
		t.Errorf("exit code = %d; want 1 when a package fails outside its tests\n%s", code, out.String())
	}
	if !strings.Contains(out.String(), "Failed packages: p") {
		t.Errorf("output = %q", out.String())
	}
}
