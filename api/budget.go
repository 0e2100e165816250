package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/httpd"
)

// Response budgets, in bytes of encoded JSON per HTTP request (a batch
// included): httpd's, shared with the public read API. A request's
// results are encoded one call at a time and only the encoded bytes are
// kept. For an anonymous caller, whose posts.list pages are at most
// post.MaxPublicPage posts, what one request holds stays under ~16 MiB
// even with the largest posts.
const (
	AnonBudget  = httpd.AnonBudget
	OwnerBudget = httpd.OwnerBudget
)

// MaxAnonBatches is how many anonymous batch requests one process serves
// at once (httpd.AnonInFlight). Batches are the only way an anonymous
// client multiplies the work of one request; the owner's SPA and scripts
// are not capped.
const MaxAnonBatches = httpd.AnonInFlight

// anonBatchWait is how long an anonymous batch waits for a free slot
// before it is refused (httpd.AnonWait).
const anonBatchWait = httpd.AnonWait

// budget encodes one request's responses into pooled buffers, counting
// their bytes in an httpd.Budget.
type budget struct {
	httpd.Budget
	pool *sync.Pool // of *bytes.Buffer, shared by the Server's requests
	bufs []*bytes.Buffer
}

// maxPooled is the largest buffer given back to the pool: a page of posts
// fits, a rare huge answer is left to the collector rather than kept.
const maxPooled = 256 << 10

// errBudget is the error every call gets once the budget is spent.
func (b *budget) err() error {
	return murlog.Errorf(murlog.EInvalid,
		"response budget of %d bytes for this request is spent; ask for less per call (a lower limit) or per batch (fewer calls)", b.Limit)
}

// encode returns r as JSON, or the budget error in its place when r would
// not fit in what is left; sent is the response the bytes hold. The budget
// error itself is small and not counted, so every call past the budget
// still gets its answer. The bytes stay valid until release.
func (b *budget) encode(r *response) (out []byte, sent *response) {
	if !b.Spent() {
		out, err := b.encodeResponse(r)
		if err != nil {
			// A result that cannot be encoded is a bug; answer internal.
			r = errorResponse(r.ID, murlog.Internal(err))
			out, _ = b.encodeResponse(r)
			return out, r
		}
		if b.Take(len(out)) {
			return out, r
		}
		// Too big: let the collector have it now rather than after the
		// response is written. Later calls are not even run.
		b.bufs = b.bufs[:len(b.bufs)-1]
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
func (s *Server) acquireAnonBatch(r *http.Request) bool { return s.anonBatches.Acquire(r.Context()) }

func (s *Server) releaseAnonBatch() { s.anonBatches.Release() }
