package qr

import (
	"errors"
	"strings"
)

// This file is a QR code encoder (ISO/IEC 18004, model 2), the algorithm
// of Project Nayuki's reference encoder: text in one numeric,
// alphanumeric or byte segment, the smallest version that holds it, the
// error correction level raised while the data still fits, and the mask
// of least penalty. It replaces github.com/piglig/go-qr (a port of the
// same algorithm, which the tests still compare against module for
// module) in the binary: that package fills a 512 KB Kanji table when
// the process starts, 130 pages touched in every CGI process for a
// QR code only the two-factor enrolment draws.

// ecc is an error correction level; the values index the tables below.
type ecc int

const (
	eccLow ecc = iota
	eccMedium
	eccQuartile
	eccHigh
)

// formatBits is the level's two bits in the format information.
var formatBits = [4]int{1, 0, 3, 2}

// eccPerBlock and eccBlocks are, per level and version (index 0 unused),
// the error correction codewords of a block and the number of blocks.
var eccPerBlock = [4][41]int8{
	{-1, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30},
	{-1, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28},
	{-1, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30},
	{-1, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30},
}

var eccBlocks = [4][41]int8{
	{-1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25},
	{-1, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49},
	{-1, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68},
	{-1, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81},
}

// errTooLong is text beyond a version 40 symbol.
var errTooLong = errors.New("data too long for a QR code")

const alphanumeric = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"

// segment is the text as one segment: its mode indicator, the bits of its
// character count for versions 1–9, 10–26 and 27–40, and its data bits.
type segment struct {
	mode    int
	ccBits  [3]int
	chars   int
	data    bits
	present bool // false for empty text: no segment at all
}

func (s *segment) countBits(ver int) int { return s.ccBits[(ver+7)/17] }

// bits is a bit string, one bool per bit, most significant first.
type bits []bool

func (b *bits) add(v, n int) {
	for i := n - 1; i >= 0; i-- {
		*b = append(*b, v>>i&1 != 0)
	}
}

func makeSegment(text string) segment {
	switch {
	case text == "":
		return segment{}
	case strings.Trim(text, "0123456789") == "":
		s := segment{mode: 1, ccBits: [3]int{10, 12, 14}, chars: len(text), present: true}
		for i := 0; i < len(text); i += 3 {
			n := min(3, len(text)-i)
			v := 0
			for _, c := range text[i : i+n] {
				v = v*10 + int(c-'0')
			}
			s.data.add(v, n*3+1)
		}
		return s
	case isAlphanumeric(text):
		s := segment{mode: 2, ccBits: [3]int{9, 11, 13}, chars: len(text), present: true}
		i := 0
		for ; i+2 <= len(text); i += 2 {
			s.data.add(strings.IndexByte(alphanumeric, text[i])*45+strings.IndexByte(alphanumeric, text[i+1]), 11)
		}
		if i < len(text) {
			s.data.add(strings.IndexByte(alphanumeric, text[i]), 6)
		}
		return s
	}
	s := segment{mode: 4, ccBits: [3]int{8, 16, 16}, chars: len(text), present: true}
	for i := 0; i < len(text); i++ {
		s.data.add(int(text[i]), 8)
	}
	return s
}

func isAlphanumeric(text string) bool {
	for i := 0; i < len(text); i++ {
		if strings.IndexByte(alphanumeric, text[i]) < 0 {
			return false
		}
	}
	return true
}

// totalBits is the segment's length at version ver, -1 when its count
// does not fit the count field.
func (s *segment) totalBits(ver int) int {
	if !s.present {
		return 0
	}
	cc := s.countBits(ver)
	if s.chars >= 1<<cc {
		return -1
	}
	return 4 + cc + len(s.data)
}

// rawDataModules is the number of modules of version ver that hold data
// and error correction (all but the function patterns and format bits).
func rawDataModules(ver int) int {
	res := (16*ver+128)*ver + 64
	if ver >= 2 {
		align := ver/7 + 2
		res -= (25*align-10)*align - 55
		if ver >= 7 {
			res -= 36
		}
	}
	return res
}

func dataCodewords(ver int, e ecc) int {
	return rawDataModules(ver)/8 - int(eccPerBlock[e][ver])*int(eccBlocks[e][ver])
}

// encode returns the modules of text, [y][x] true for dark, at least at
// level e (raised while the data still fits), with the mask of least
// penalty.
func encode(text string, e ecc) ([][]bool, error) {
	seg := makeSegment(text)
	ver, used := 1, 0
	for ; ; ver++ {
		used = seg.totalBits(ver)
		if used != -1 && used <= dataCodewords(ver, e)*8 {
			break
		}
		if ver >= 40 {
			return nil, errTooLong
		}
	}
	for _, up := range []ecc{eccMedium, eccQuartile, eccHigh} {
		if used <= dataCodewords(ver, up)*8 {
			e = up
		}
	}
	var b bits
	if seg.present {
		b.add(seg.mode, 4)
		b.add(seg.chars, seg.countBits(ver))
		b = append(b, seg.data...)
	}
	capacity := dataCodewords(ver, e) * 8
	b.add(0, min(4, capacity-len(b)))
	b.add(0, (8-len(b)%8)%8)
	for pad := 0xEC; len(b) < capacity; pad ^= 0xEC ^ 0x11 {
		b.add(pad, 8)
	}
	data := make([]byte, len(b)/8)
	for i, bit := range b {
		if bit {
			data[i>>3] |= 1 << (7 - i&7)
		}
	}
	return newSymbol(ver, e, data).modules, nil
}

// symbol is a QR code being drawn.
type symbol struct {
	ver, size int
	e         ecc
	modules   [][]bool
	function  [][]bool // modules of the function patterns, which masks leave alone
}

func newSymbol(ver int, e ecc, data []byte) *symbol {
	q := &symbol{ver: ver, size: ver*4 + 17, e: e}
	q.modules, q.function = grid(q.size), grid(q.size)
	q.drawFunctionPatterns()
	q.drawCodewords(q.addECCAndInterleave(data))
	best, least := 0, -1
	for m := 0; m < 8; m++ {
		q.applyMask(m)
		q.drawFormatBits(m)
		if p := q.penalty(); least < 0 || p < least {
			best, least = m, p
		}
		q.applyMask(m) // XOR: undoes it
	}
	q.applyMask(best)
	q.drawFormatBits(best)
	return q
}

func grid(n int) [][]bool {
	g := make([][]bool, n)
	cells := make([]bool, n*n)
	for y := range g {
		g[y] = cells[y*n : (y+1)*n]
	}
	return g
}

func (q *symbol) set(x, y int, dark bool) {
	q.modules[y][x] = dark
	q.function[y][x] = true
}

func (q *symbol) drawFunctionPatterns() {
	for i := 0; i < q.size; i++ {
		q.set(6, i, i%2 == 0)
		q.set(i, 6, i%2 == 0)
	}
	q.drawFinder(3, 3)
	q.drawFinder(q.size-4, 3)
	q.drawFinder(3, q.size-4)
	pos := q.alignmentPositions()
	n := len(pos)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == 0 && j == 0 || i == 0 && j == n-1 || i == n-1 && j == 0 {
				continue // the finders are there
			}
			q.drawAlignment(pos[i], pos[j])
		}
	}
	q.drawFormatBits(0) // reserves the area; redrawn with the mask
	q.drawVersion()
}

func (q *symbol) drawFormatBits(mask int) {
	data := formatBits[q.e]<<3 | mask
	rem := data
	for i := 0; i < 10; i++ {
		rem = rem<<1 ^ (rem>>9)*0x537
	}
	v := (data<<10 | rem) ^ 0x5412
	bit := func(i int) bool { return v>>i&1 != 0 }
	for i := 0; i <= 5; i++ {
		q.set(8, i, bit(i))
	}
	q.set(8, 7, bit(6))
	q.set(8, 8, bit(7))
	q.set(7, 8, bit(8))
	for i := 9; i < 15; i++ {
		q.set(14-i, 8, bit(i))
	}
	for i := 0; i < 8; i++ {
		q.set(q.size-1-i, 8, bit(i))
	}
	for i := 8; i < 15; i++ {
		q.set(8, q.size-15+i, bit(i))
	}
	q.set(8, q.size-8, true) // the dark module
}

func (q *symbol) drawVersion() {
	if q.ver < 7 {
		return
	}
	rem := q.ver
	for i := 0; i < 12; i++ {
		rem = rem<<1 ^ (rem>>11)*0x1F25
	}
	v := q.ver<<12 | rem
	for i := 0; i < 18; i++ {
		dark := v>>i&1 != 0
		a, b := q.size-11+i%3, i/3
		q.set(a, b, dark)
		q.set(b, a, dark)
	}
}

func (q *symbol) drawFinder(x, y int) {
	for dy := -4; dy <= 4; dy++ {
		for dx := -4; dx <= 4; dx++ {
			d := max(abs(dx), abs(dy))
			if xx, yy := x+dx, y+dy; 0 <= xx && xx < q.size && 0 <= yy && yy < q.size {
				q.set(xx, yy, d != 2 && d != 4)
			}
		}
	}
}

func (q *symbol) drawAlignment(x, y int) {
	for dy := -2; dy <= 2; dy++ {
		for dx := -2; dx <= 2; dx++ {
			q.set(x+dx, y+dy, max(abs(dx), abs(dy)) != 1)
		}
	}
}

func (q *symbol) alignmentPositions() []int {
	if q.ver == 1 {
		return nil
	}
	n := q.ver/7 + 2
	step := (q.ver*8 + n*3 + 5) / (n*4 - 4) * 2
	pos := make([]int, n)
	pos[0] = 6
	for i, p := n-1, q.size-7; i >= 1; i, p = i-1, p-step {
		pos[i] = p
	}
	return pos
}

// addECCAndInterleave splits data into the version's blocks, appends
// each block's Reed–Solomon remainder and interleaves the blocks.
func (q *symbol) addECCAndInterleave(data []byte) []byte {
	blocks, eccLen := int(eccBlocks[q.e][q.ver]), int(eccPerBlock[q.e][q.ver])
	raw := rawDataModules(q.ver) / 8
	short, shortLen := blocks-raw%blocks, raw/blocks
	div := rsDivisor(eccLen)
	bs := make([][]byte, blocks)
	for i, k := 0, 0; i < blocks; i++ {
		n := shortLen - eccLen
		if i >= short {
			n++
		}
		d := data[k : k+n]
		k += n
		b := make([]byte, 0, shortLen+1)
		b = append(b, d...)
		if i < short {
			b = append(b, 0) // the gap short blocks leave, skipped below
		}
		bs[i] = append(b, rsRemainder(d, div)...)
	}
	out := make([]byte, 0, raw)
	for i := range bs[0] {
		for j, b := range bs {
			if i != shortLen-eccLen || j >= short {
				out = append(out, b[i])
			}
		}
	}
	return out
}

// drawCodewords lays the codewords out in the zigzag of two-module
// columns, right to left, skipping function modules.
func (q *symbol) drawCodewords(data []byte) {
	i := 0
	for right := q.size - 1; right >= 1; right -= 2 {
		if right == 6 {
			right = 5
		}
		for vert := 0; vert < q.size; vert++ {
			for j := 0; j < 2; j++ {
				x := right - j
				upward := (right+1)&2 == 0
				y := vert
				if upward {
					y = q.size - 1 - vert
				}
				if !q.function[y][x] && i < len(data)*8 {
					q.modules[y][x] = data[i>>3]>>(7-i&7)&1 != 0
					i++
				}
			}
		}
	}
}

func (q *symbol) applyMask(mask int) {
	for y := 0; y < q.size; y++ {
		for x := 0; x < q.size; x++ {
			var inv bool
			switch mask {
			case 0:
				inv = (x+y)%2 == 0
			case 1:
				inv = y%2 == 0
			case 2:
				inv = x%3 == 0
			case 3:
				inv = (x+y)%3 == 0
			case 4:
				inv = (x/3+y/2)%2 == 0
			case 5:
				inv = x*y%2+x*y%3 == 0
			case 6:
				inv = (x*y%2+x*y%3)%2 == 0
			case 7:
				inv = ((x+y)%2+x*y%3)%2 == 0
			}
			q.modules[y][x] = q.modules[y][x] != (inv && !q.function[y][x])
		}
	}
}

// penalty scores the symbol as it stands by the standard's four rules.
func (q *symbol) penalty() int {
	const n1, n2, n3, n4 = 3, 3, 40, 10
	res, dark := 0, 0
	at := func(line, i int, rows bool) bool {
		if rows {
			return q.modules[line][i]
		}
		return q.modules[i][line]
	}
	for _, rows := range []bool{true, false} {
		for line := 0; line < q.size; line++ {
			color, run := false, 0
			var hist [7]int
			for i := 0; i < q.size; i++ {
				if at(line, i, rows) == color {
					run++
					if run == 5 {
						res += n1
					} else if run > 5 {
						res++
					}
					continue
				}
				q.addHistory(run, &hist)
				if !color {
					res += q.finderLike(&hist) * n3
				}
				color, run = at(line, i, rows), 1
			}
			if color {
				q.addHistory(run, &hist)
				run = 0
			}
			q.addHistory(run+q.size, &hist)
			res += q.finderLike(&hist) * n3
		}
	}
	for y := 0; y < q.size; y++ {
		for x := 0; x < q.size; x++ {
			c := q.modules[y][x]
			if c {
				dark++
			}
			if x+1 < q.size && y+1 < q.size && c == q.modules[y][x+1] && c == q.modules[y+1][x] && c == q.modules[y+1][x+1] {
				res += n2
			}
		}
	}
	total := q.size * q.size
	k := (abs(dark*20-total*10)+total-1)/total - 1
	return res + k*n4
}

func (q *symbol) addHistory(run int, h *[7]int) {
	if h[0] == 0 {
		run += q.size // the light border before the first run
	}
	copy(h[1:], h[:6])
	h[0] = run
}

// finderLike counts 1:1:3:1:1 patterns with light space on a side in the
// run history.
func (q *symbol) finderLike(h *[7]int) int {
	n := h[1]
	core := n > 0 && h[2] == n && h[3] == n*3 && h[4] == n && h[5] == n
	res := 0
	if core && h[0] >= n*4 && h[6] >= n {
		res++
	}
	if core && h[6] >= n*4 && h[0] >= n {
		res++
	}
	return res
}

// rsDivisor is the Reed–Solomon generator polynomial of the given degree
// over GF(2⁸/0x11D), highest coefficient (1) left out.
func rsDivisor(degree int) []byte {
	res := make([]byte, degree)
	res[degree-1] = 1
	root := byte(1)
	for i := 0; i < degree; i++ {
		for j := range res {
			res[j] = rsMultiply(res[j], root)
			if j+1 < len(res) {
				res[j] ^= res[j+1]
			}
		}
		root = rsMultiply(root, 0x02)
	}
	return res
}

func rsRemainder(data, div []byte) []byte {
	res := make([]byte, len(div))
	for _, b := range data {
		factor := b ^ res[0]
		copy(res, res[1:])
		res[len(res)-1] = 0
		for i, c := range div {
			res[i] ^= rsMultiply(c, factor)
		}
	}
	return res
}

func rsMultiply(x, y byte) byte {
	z := 0
	for i := 7; i >= 0; i-- {
		z = z<<1 ^ (z>>7)*0x11D
		z ^= int(y>>i&1) * int(x)
	}
	return byte(z)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
