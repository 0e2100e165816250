package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/httpd"
)

// Response budgets, in bytes of encoded JSON per HTTP request (a batch
// included). A request's results are encoded one call at a time and only
// the encoded bytes are kept, so what one request can make the process hold
// is about its body (MaxBody, 1 MiB), one call's result while it is encoded
// and the budget itself. For an anonymous caller, whose posts.list pages
// are at most post.MaxPublicPage posts, that stays under ~16 MiB even with
// the largest posts; the owner, who is trusted and whose scripts export
// whole pages of long articles, gets more.
const (
	AnonBudget  = 4 << 20
	OwnerBudget = 64 << 20
)

// MaxAnonBatches is how many anonymous batch requests one process serves
// at once. Batches are the only way an anonymous client multiplies the work
// of one request; the owner's SPA and scripts are not capped. Four budgets
// in flight keep the worst case near 64 MiB above idle.
const MaxAnonBatches = 4

// anonBatchWait is how long an anonymous batch waits for a free slot before
// it is refused: long enough to absorb a burst, short enough that a flood
// does not pile up goroutines holding request bodies.
const anonBatchWait = 100 * time.Millisecond

// budget counts the encoded bytes of one request's responses.
type budget struct {
	limit, used int
	pool        *sync.Pool // of *bytes.Buffer, shared by the Server's requests
	bufs        []*bytes.Buffer
}

// maxPooled is the largest buffer given back to the pool: a page of posts
// fits, a rare huge answer is left to the collector rather than kept.
const maxPooled = 256 << 10

// errBudget is the error every call gets once the budget is spent.
func (b *budget) err() error {
	return murlog.Errorf(murlog.EInvalid,
		"response budget of %d bytes for this request is spent; ask for less per call (a lower limit) or per batch (fewer calls)", b.limit)
}

func (b *budget) spent() bool { return b.used >= b.limit }

// encode returns r as JSON, or the budget error in its place when r would
// not fit in what is left; sent is the response the bytes hold. The budget
// error itself is small and not counted, so every call past the budget
// still gets its answer. The bytes stay valid until release.
func (b *budget) encode(r *response) (out []byte, sent *response) {
	if !b.spent() {
		out, err := b.encodeResponse(r)
		if err != nil {
			// A result that cannot be encoded is a bug; answer internal.
			r = errorResponse(r.ID, murlog.Internal(err))
			out, _ = b.encodeResponse(r)
			return out, r
		}
		if b.used+len(out) <= b.limit {
			b.used += len(out)
			return out, r
		}
		// Too big: let the collector have it now rather than after the
		// response is written. Later calls are not even run.
		b.bufs = b.bufs[:len(b.bufs)-1]
		b.used = b.limit
	}
	r = errorResponse(r.ID, b.err())
	out, _ = b.encodeResponse(r)
	return out, r
}

// encodeResponse encodes r into a pooled buffer.
func (b *budget) encodeResponse(r *response) ([]byte, error) {
	var buf *bytes.Buffer
	if b.pool != nil {
		buf, _ = b.pool.Get().(*bytes.Buffer)
	}
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	buf.Reset()
	b.bufs = append(b.bufs, buf)
	if err := encodeTo(buf, r); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// release gives the buffers back once the response is written.
func (b *budget) release() {
	for _, buf := range b.bufs {
		if b.pool != nil && buf.Cap() <= maxPooled {
			b.pool.Put(buf)
		}
	}
	b.bufs = nil
}

// encodeTo encodes r without HTML escaping: post content is HTML and would
// grow by a third with every < and > escaped.
func encodeTo(w io.Writer, r *response) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

func errorResponse(id json.RawMessage, err error) *response {
	e := httpd.RPCErrorOf(err)
	return &response{JSONRPC: "2.0", Error: &e, ID: id, status: httpd.Status(err), err: err}
}

// acquireAnonBatch takes one of the anonymous batch slots, waiting briefly
// for one; it returns false when none freed up.
func (s *Server) acquireAnonBatch(r *http.Request) bool {
	select {
	case s.anonBatches <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(anonBatchWait)
	defer t.Stop()
	select {
	case s.anonBatches <- struct{}{}:
		return true
	case <-t.C:
	case <-r.Context().Done():
	}
	return false
}

func (s *Server) releaseAnonBatch() { <-s.anonBatches }
