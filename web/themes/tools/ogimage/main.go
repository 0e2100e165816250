// Command ogimage writes the default theme's social image, the og:image
// of pages that have no image of their own and a persona without an
// avatar: 1200×630 (the size Open Graph and X's large card ask for),
// murlog's icon (web/spa/public/icon.svg) on its blue.
//
//	go run ./web/themes/tools/ogimage > web/themes/default/assets/og-image.png
package main

import (
	"bufio"
	"image"
	"image/color"
	"image/png"
	"log"
	"os"
)

const (
	width, height = 1200, 630
	ss            = 4  // samples per pixel on each axis
	levels        = 16 // blends of blue and white in the palette
)

var blue, white = color.RGBA{0x34, 0x51, 0xb2, 0xff}, color.RGBA{0xff, 0xff, 0xff, 0xff}

// whiteAt reports whether the point (x, y) is white: inside the bubble
// or its tail, outside the eye.
func whiteAt(x, y float64) bool {
	in := func(cx, cy, r float64) bool { return (x-cx)*(x-cx)+(y-cy)*(y-cy) <= r*r }
	if in(600, 295, 65) {
		return false
	}
	return in(600, 295, 175) || inTriangle(x, y, 530, 435, 507, 528, 612, 458)
}

func inTriangle(x, y, ax, ay, bx, by, cx, cy float64) bool {
	side := func(px, py, qx, qy float64) float64 { return (qx-px)*(y-py) - (qy-py)*(x-px) }
	d1, d2, d3 := side(ax, ay, bx, by), side(bx, by, cx, cy), side(cx, cy, ax, ay)
	neg := d1 < 0 || d2 < 0 || d3 < 0
	pos := d1 > 0 || d2 > 0 || d3 > 0
	return !(neg && pos)
}

func main() {
	pal := make(color.Palette, levels)
	for i := range pal {
		mix := func(a, b uint8) uint8 { return uint8((int(a)*(levels-1-i) + int(b)*i) / (levels - 1)) }
		pal[i] = color.RGBA{mix(blue.R, white.R), mix(blue.G, white.G), mix(blue.B, white.B), 0xff}
	}
	img := image.NewPaletted(image.Rect(0, 0, width, height), pal)
	for py := range height {
		for px := range width {
			n := 0
			for sy := range ss {
				for sx := range ss {
					if whiteAt(float64(px)+(float64(sx)+0.5)/ss, float64(py)+(float64(sy)+0.5)/ss) {
						n++
					}
				}
			}
			img.SetColorIndex(px, py, uint8((n*(levels-1)+ss*ss/2)/(ss*ss)))
		}
	}
	w := bufio.NewWriter(os.Stdout)
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(w, img); err != nil {
		log.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
}
