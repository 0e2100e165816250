package qr_test

import (
	"encoding/base64"
	"encoding/xml"
	"errors"
	"image"
	"image/color"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"

	goqr "github.com/piglig/go-qr"

	"github.com/murlog/murlog/qr"
)

// uri is what totp.setup encodes: a 32-character secret, a domain with a port.
const uri = "otpauth://totp/murlog:alice@blog.example.com:8443?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=murlog&algorithm=SHA1&digits=6&period=30"

// parseSVG reads the document as XML and returns the root's viewBox side
// and the d of its one <path>.
func parseSVG(t *testing.T, svg string) (int, string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	side, paths, rects, d := 0, 0, 0, ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not well-formed XML: %v\n%s", err, svg)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range el.Attr {
			attr[a.Name.Local] = a.Value
		}
		switch el.Name.Local {
		case "svg":
			if el.Name.Space != "http://www.w3.org/2000/svg" {
				t.Errorf("svg namespace = %q; want the SVG namespace", el.Name.Space)
			}
			f := strings.Fields(attr["viewBox"])
			if len(f) != 4 || f[0] != "0" || f[1] != "0" || f[2] != f[3] {
				t.Fatalf("viewBox = %q; want a square from 0 0", attr["viewBox"])
			}
			side, _ = strconv.Atoi(f[2])
		case "path":
			paths++
			d = attr["d"]
		case "rect":
			rects++
			if attr["fill"] != "#fff" {
				t.Errorf("background fill = %q; want white, so the code scans on a dark page", attr["fill"])
			}
		default:
			t.Errorf("unexpected element <%s>", el.Name.Local)
		}
	}
	if paths != 1 || rects != 1 {
		t.Fatalf("%d paths and %d rects; want one of each", paths, rects)
	}
	return side, d
}

var run = regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-(\d+)z`)

// rasterize draws the path's runs into a grid of side×side modules; it
// fails on anything in d that is not a run.
func rasterize(t *testing.T, side int, d string) [][]bool {
	t.Helper()
	if rest := run.ReplaceAllString(d, ""); rest != "" {
		t.Fatalf("path data has more than runs: %q", rest)
	}
	g := make([][]bool, side)
	for i := range g {
		g[i] = make([]bool, side)
	}
	for _, m := range run.FindAllStringSubmatch(d, -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		n, _ := strconv.Atoi(m[3])
		if m[3] != m[4] || y >= side || x+n > side {
			t.Fatalf("run %q does not close or leaves the %d-module square", m[0], side)
		}
		for i := x; i < x+n; i++ {
			g[y][i] = true
		}
	}
	return g
}

// image scales a module grid up, as a screen shows it.
func toImage(g [][]bool, scale int) image.Image {
	img := image.NewGray(image.Rect(0, 0, len(g)*scale, len(g)*scale))
	for y := range img.Rect.Dy() {
		for x := range img.Rect.Dx() {
			c := color.Gray{Y: 255}
			if g[y/scale][x/scale] {
				c = color.Gray{}
			}
			img.SetGray(x, y, c)
		}
	}
	return img
}

// TestSVGRoundTrip draws the SVG's path back into modules and decodes
// them with the library's decoder: what the page shows is the URI.
func TestSVGRoundTrip(t *testing.T) {
	t.Parallel()
	svg, err := qr.SVG(uri)
	if err != nil {
		t.Fatal(err)
	}
	side, d := parseSVG(t, svg)
	m, err := qr.Matrix(uri)
	if err != nil {
		t.Fatal(err)
	}
	n := len(m)
	version := (n - 17) / 4
	// 137 bytes in byte mode at level M need version 8 (7 holds 122, 8 holds 152).
	if n != 17+4*version || version != 8 {
		t.Errorf("symbol is %d modules (version %d) for a %d-byte URI; want version 8 (53 modules)", n, version, len(uri))
	}
	if side != n+2*qr.QuietZone {
		t.Fatalf("viewBox side %d; want %d modules and a %d-module quiet zone each side", side, n, qr.QuietZone)
	}
	g := rasterize(t, side, d)
	for y := range side {
		for x := range side {
			in := x >= qr.QuietZone && x < side-qr.QuietZone && y >= qr.QuietZone && y < side-qr.QuietZone
			want := in && m[y-qr.QuietZone][x-qr.QuietZone]
			if g[y][x] != want {
				t.Fatalf("module (%d,%d) drawn %v; want %v (quiet zone: %v)", x, y, g[y][x], want, !in)
			}
		}
	}
	got, err := goqr.Decode(toImage(g, 4))
	if err != nil || got != uri {
		t.Errorf("decoding the drawn SVG = %q, %v; want %q", got, err, uri)
	}
}

func TestDataURI(t *testing.T) {
	t.Parallel()
	u, err := qr.DataURI(uri)
	if err != nil {
		t.Fatal(err)
	}
	b64, ok := strings.CutPrefix(u, "data:image/svg+xml;base64,")
	if !ok {
		t.Fatalf("DataURI = %.40q…; want data:image/svg+xml;base64,…", u)
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	svg, _ := qr.SVG(uri)
	if err != nil || string(b) != svg {
		t.Errorf("the data URI's payload (%v) is not the SVG", err)
	}
	if _, err := qr.DataURI(strings.Repeat("x", 3000)); err == nil {
		t.Error("DataURI of 3,000 bytes (more than version 40 holds at level M): no error")
	}
}

// TestMatrixMatchesGoQR compares the encoder with github.com/piglig/go-qr
// (another port of the same reference algorithm, kept for the tests)
// module for module: every mode, lengths that need every version from 1
// to 40, and the choice of level and mask that follows from them.
func TestMatrixMatchesGoQR(t *testing.T) {
	t.Parallel()
	texts := []string{"", "0", "01234567", "HELLO WORLD", "hello, world", "こんにちは、世界", uri}
	for _, unit := range []string{"7", "Z9$", "otpauth://totp/x?secret=JBSWY3DP&", "é"} {
		for n := 1; n < 3000; n = n*11/10 + 1 {
			texts = append(texts, strings.Repeat(unit, n))
		}
	}
	versions := map[int]bool{}
	for _, text := range texts {
		want, werr := goqr.EncodeText(text, goqr.Medium)
		got, err := qr.Matrix(text)
		if werr != nil || err != nil {
			if (werr == nil) != (err == nil) {
				t.Errorf("Matrix(%d bytes %.20q) error %v; go-qr's %v", len(text), text, err, werr)
			}
			continue
		}
		versions[(want.Size()-17)/4] = true
		if len(got) != want.Size() {
			t.Errorf("Matrix(%d bytes %.20q) is %d modules wide; go-qr's %d", len(text), text, len(got), want.Size())
			continue
		}
	rows:
		for y, row := range got {
			for x, dark := range row {
				if dark != want.Module(x, y) {
					t.Errorf("Matrix(%d bytes %.20q): module (%d,%d) = %v; go-qr's %v", len(text), text, x, y, dark, !dark)
					break rows
				}
			}
		}
	}
	if len(versions) < 40 {
		t.Errorf("the inputs reached %d versions; want all 40", len(versions))
	}
}
