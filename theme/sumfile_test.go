package theme

import (
	"testing"
	"testing/fstest"
)

// TestSumFileIsSumOfContent: an asset served as it is keeps the hash of
// its whole content when it is hashed in pieces.
func TestSumFileIsSumOfContent(t *testing.T) {
	t.Parallel()
	big := make([]byte, 10000)
	for i := range big {
		big[i] = byte(i * 7)
	}
	fsys := fstest.MapFS{"a.js": {Data: big}, "e.png": {Data: nil}}
	for name, f := range fsys {
		got, err := sumFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		if want := sum(f.Data); got != want {
			t.Errorf("sumFile(%s) = %s; want %s", name, got, want)
		}
	}
	if _, err := sumFile(fsys, "missing.js"); err == nil {
		t.Error("sumFile(missing.js): no error")
	}
}
