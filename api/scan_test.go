package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/murlog/murlog"
	"github.com/murlog/murlog/strictjson"
)

// TestSchemaCheck checks the exact-name walk on nested params.
func TestSchemaCheck(t *testing.T) {
	t.Parallel()
	sch := schemaOf(reflect.TypeFor[personaUpdateParams]())
	for raw, want := range map[string]string{
		`{"id":"x","fields":[{"name":"a","value":"b"}]}`: "",
		`{"id":"x","fields":[{"name":"a","VALUE":"b"}]}`: "fields[0].VALUE",
		`{"ID":"x"}`: "ID",
		`{"id":"x","display_name":null,"locked":true}`:   "",
		`{"id":"x","fields":[{"name":"a"},{"nam":"b"}]}`: "fields[1].nam",
	} {
		err := sch.check([]byte(raw), "")
		if (err == nil) != (want == "") || err != nil && murlog.AsError(err).Field != want {
			t.Errorf("check(%s) = %v; want an error naming %q", raw, err, want)
		}
	}
}

var benchBody = []byte(`{"jsonrpc":"2.0","method":"posts.get","params":{"id":"01a22c96-7857-70f9-bbb4-7a4a6ae66d4f"},"id":17}`)

// BenchmarkDecodeRequest is the strict path a posts.get body takes before
// the method runs: scan, parseRequest, decodeParams.
func BenchmarkDecodeRequest(b *testing.B) {
	sch := schemaOf(reflect.TypeFor[idParams]())
	b.ReportAllocs()
	for b.Loop() {
		elems, _, _, err := strictjson.Scan(benchBody, MaxBatch, maxMembers)
		if err != nil {
			b.Fatal(err)
		}
		req := parseRequest(&elems[0])
		var p idParams
		if req.err != nil || decodeParams(req.Params, sch, &p) != nil {
			b.Fatal("decode failed")
		}
	}
}

// BenchmarkDecodeRequestStdlib is what the same body cost before the
// strict decoder: json.Valid, json.Unmarshal of the request object and a
// Decoder with DisallowUnknownFields for the params.
func BenchmarkDecodeRequestStdlib(b *testing.B) {
	type request struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  *string         `json:"method"`
		Params  json.RawMessage `json:"params"`
		ID      json.RawMessage `json:"id"`
	}
	b.ReportAllocs()
	for b.Loop() {
		if !json.Valid(benchBody) {
			b.Fatal("invalid")
		}
		var req request
		if err := json.Unmarshal(benchBody, &req); err != nil {
			b.Fatal(err)
		}
		var p idParams
		dec := json.NewDecoder(bytes.NewReader(req.Params))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			b.Fatal(err)
		}
	}
}
