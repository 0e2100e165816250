// Package qr draws QR codes as SVG, for the owner's two-factor enrolment
// (the otpauth URI an authenticator app scans). It encodes the module
// matrix itself (encode.go) and draws the SVG, so the markup that reaches
// the page is small and known.
package qr

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// QuietZone is the light border around the symbol, in modules: the 4 that
// ISO/IEC 18004 asks for, without which some scanners do not find it.
const QuietZone = 4

// modulePixels is the drawn size of one module when nothing scales the
// image; a version 7 symbol (an otpauth URI) is then 318 px wide.
const modulePixels = 6

// Matrix returns the modules of text encoded as a QR code with error
// correction level M (15 % of the symbol may be lost or smudged),
// matrix[y][x] true for a dark module.
func Matrix(text string) ([][]bool, error) {
	m, err := encode(text, eccMedium)
	if err != nil {
		return nil, fmt.Errorf("qr: %w", err)
	}
	return m, nil
}

// SVG returns text as a QR code in an SVG document: a white square and
// one black <path> of horizontal runs of dark modules, one user unit per
// module, with the quiet zone.
func SVG(text string) (string, error) {
	m, err := Matrix(text)
	if err != nil {
		return "", err
	}
	side := len(m) + 2*QuietZone
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" shape-rendering="crispEdges">`,
		side, side, side*modulePixels, side*modulePixels)
	b.WriteString(`<rect width="100%" height="100%" fill="#fff"/><path fill="#000" d="`)
	for y, row := range m {
		for x := 0; x < len(row); {
			if !row[x] {
				x++
				continue
			}
			run := 1
			for x+run < len(row) && row[x+run] {
				run++
			}
			fmt.Fprintf(&b, "M%d %dh%dv1h-%dz", x+QuietZone, y+QuietZone, run, run)
			x += run
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String(), nil
}

// DataURI returns SVG(text) as a data: URI, ready for an <img src>.
func DataURI(text string) (string, error) {
	svg, err := SVG(text)
	if err != nil {
		return "", err
	}
	return "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg)), nil
}
