//go:build wasip1

package wasihttp

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	witTypes "go.bytecodealliance.org/pkg/wit/types"

	terrarium "terrarium.dev/sdk"

	"terrarium.dev/sdk/internal/gcgate"
	handler "terrarium.dev/sdk/internal/wit/imports/wasi_http_outgoing_handler"
	h "terrarium.dev/sdk/internal/wit/imports/wasi_http_types"
	s "terrarium.dev/sdk/internal/wit/imports/wasi_io_streams"
)

func init() {
	// Ordinary Go HTTP code (http.Get, http.DefaultClient, clients without a Transport) goes
	// through the grants.
	http.DefaultTransport = Transport{}
}

// Request bodies go out in writes of at most this many bytes (what wasi:io accepts at once).
const writeChunk = 4096

// Headers the host refuses to take from a guest (it manages the connection itself).
var forbiddenHeaders = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-connection": true, "transfer-encoding": true,
	"upgrade": true, "host": true, "http2-settings": true,
}

// RoundTrip sends one request and returns its response, whose Body streams from the host.
func (Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		defer req.Body.Close()
	}
	u := req.URL
	if terrarium.Stopping(req.Context()) {
		// Terraform asked the provider to stop (Ctrl-C): no new request goes out, as with the
		// other SDKs' clients, so a call winding down does not start more work.
		return nil, httpStopped(u)
	}
	var scheme h.Scheme
	switch u.Scheme {
	case "https":
		scheme = h.MakeSchemeHttps()
	case "http":
		scheme = h.MakeSchemeHttp()
	default:
		return nil, fmt.Errorf("unsupported protocol scheme %q: only http and https URLs can be sent", u.Scheme)
	}
	fields := h.MakeFields()
	for name, values := range req.Header {
		if forbiddenHeaders[strings.ToLower(name)] {
			continue
		}
		for _, v := range values {
			if r := fields.Append(name, []byte(v)); r.IsErr() {
				fields.Drop()
				return nil, fmt.Errorf("the header %q cannot be sent", name)
			}
		}
	}
	if req.ContentLength > 0 && req.Header.Get("Content-Length") == "" {
		// Known up front: the server need not read a chunked body.
		fields.Append("Content-Length", []byte(strconv.FormatInt(req.ContentLength, 10)))
	}
	out := h.MakeOutgoingRequest(fields)
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	out.SetMethod(witMethod(method))
	out.SetScheme(witTypes.Some(scheme))
	out.SetAuthority(witTypes.Some(u.Host))
	out.SetPathWithQuery(witTypes.Some(u.RequestURI()))
	bodyResult := out.Body()
	options := witTypes.None[*h.RequestOptions]()
	if deadline, ok := req.Context().Deadline(); ok {
		o := h.MakeRequestOptions()
		left := witTypes.Some(uint64(max(time.Until(deadline), time.Millisecond)))
		// A host without an option sends the request without it.
		o.SetConnectTimeout(left)
		o.SetBetweenBytesTimeout(left)
		options = witTypes.Some(o)
	}
	sent := held(func() witTypes.Result[*h.FutureIncomingResponse, h.ErrorCode] { return handler.Handle(out, options) })
	if sent.IsErr() {
		if bodyResult.IsOk() {
			bodyResult.Ok().Drop()
		}
		return nil, failure(req, sent.Err())
	}
	future := sent.Ok()
	defer future.Drop()
	// The body goes out after the request: the host consumes it as it is written. A refused
	// request closes the stream at once; the refusal itself arrives on the response.
	var sendErr error
	if bodyResult.IsOk() {
		body := bodyResult.Ok()
		if req.Body != nil && req.Body != http.NoBody {
			sendErr = writeBody(body, req)
		}
		finish := func() witTypes.Result[witTypes.Unit, h.ErrorCode] {
			return h.OutgoingBodyFinish(body, witTypes.None[*h.Fields]())
		}
		if r := held(finish); r.IsErr() && sendErr == nil {
			sendErr = failure(req, r.Err())
		}
	}
	ready := future.Subscribe()
	ready.Block()
	ready.Drop()
	answer := held(future.Get)
	if answer.IsNone() || answer.Some().IsErr() {
		return nil, fmt.Errorf("the request to %s got no response", u.Redacted())
	}
	if answer.Some().Ok().IsErr() {
		return nil, failure(req, answer.Some().Ok().Err())
	}
	incoming := answer.Some().Ok().Ok()
	if sendErr != nil {
		incoming.Drop()
		return nil, sendErr
	}
	status := int(incoming.Status())
	headerFields := incoming.Headers()
	header := http.Header{}
	for _, e := range held(headerFields.Entries) {
		header.Add(e.F0, string(e.F1))
	}
	headerFields.Drop()
	consumed := incoming.Consume()
	if consumed.IsErr() {
		incoming.Drop()
		return nil, fmt.Errorf("the response from %s has no body to read", u.Redacted())
	}
	incomingBody := consumed.Ok()
	stream := incomingBody.Stream()
	if stream.IsErr() {
		incomingBody.Drop()
		incoming.Drop()
		return nil, fmt.Errorf("the response from %s has no body to read", u.Redacted())
	}
	length := int64(-1)
	if n, err := strconv.ParseInt(header.Get("Content-Length"), 10, 64); err == nil {
		length = n
	}
	return &http.Response{
		Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: header, ContentLength: length,
		Body:    &responseBody{req: req, stream: stream.Ok(), body: incomingBody, response: incoming},
		Request: req,
	}, nil
}

func writeBody(body *h.OutgoingBody, req *http.Request) error {
	w := body.Write()
	if w.IsErr() {
		return fmt.Errorf("the request to %s failed while sending its body", req.URL.Redacted())
	}
	stream := w.Ok()
	defer stream.Drop()
	buf := make([]byte, writeChunk)
	for {
		n, err := req.Body.Read(buf)
		if n > 0 {
			if r := stream.BlockingWriteAndFlush(buf[:n]); r.IsErr() {
				return fmt.Errorf("the request to %s failed while sending its body", req.URL.Redacted())
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the body of the request to %s: %w", req.URL.Redacted(), err)
		}
	}
}

// responseBody streams a response's body from the host.
type responseBody struct {
	req      *http.Request
	stream   *s.InputStream
	body     *h.IncomingBody
	response *h.IncomingResponse
	done     bool
}

func (b *responseBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	r := held(func() witTypes.Result[[]uint8, s.StreamError] { return b.stream.BlockingRead(uint64(len(p))) })
	if r.IsErr() {
		e := r.Err()
		b.done = true
		if e.Tag() == s.StreamError_Closed {
			return 0, io.EOF
		}
		failed := e.LastOperationFailed()
		defer failed.Drop()
		if code := held(func() witTypes.Option[h.ErrorCode] { return h.HttpErrorCode(failed) }); code.IsSome() {
			return 0, failure(b.req, code.Some())
		}
		return 0, fmt.Errorf("reading the response from %s failed: %s", b.req.URL.Redacted(), held(failed.ToDebugString))
	}
	return copy(p, r.Ok()), nil
}

func (b *responseBody) Close() error {
	if b.stream != nil {
		b.stream.Drop()
		b.stream = nil
		h.IncomingBodyFinish(b.body).Drop()
		b.response.Drop()
		b.done = true
	}
	return nil
}

// held calls an imported function whose results the host allocates in the component (lists,
// strings, error codes holding them) with the garbage collector stopped: a collection starting
// there would call the host, which traps (guest-sdk/go/internal/gcgate).
func held[T any](call func() T) T {
	defer gcgate.Hold()()
	return call()
}

// failure is the error of a request wasi:http answered with code.
func failure(req *http.Request, code h.ErrorCode) error {
	switch code.Tag() {
	case h.ErrorCode_HttpRequestDenied:
		return httpDenied(req.URL)
	case h.ErrorCode_HttpResponseBodySize:
		return httpTooLarge(req.URL)
	}
	name := "error " + strconv.Itoa(int(code.Tag()))
	if int(code.Tag()) < len(errorCodeNames) {
		name = errorCodeNames[code.Tag()]
	}
	return fmt.Errorf("the request to %s failed: %s", req.URL.Redacted(), name)
}

// errorCodeNames are wasi:http's error-code cases, in their order.
var errorCodeNames = strings.Fields(`DNS-timeout DNS-error destination-not-found destination-unavailable
destination-IP-prohibited destination-IP-unroutable connection-refused connection-terminated
connection-timeout connection-read-timeout connection-write-timeout connection-limit-reached
TLS-protocol-error TLS-certificate-error TLS-alert-received HTTP-request-denied
HTTP-request-length-required HTTP-request-body-size HTTP-request-method-invalid
HTTP-request-URI-invalid HTTP-request-URI-too-long HTTP-request-header-section-size
HTTP-request-header-size HTTP-request-trailer-section-size HTTP-request-trailer-size
HTTP-response-incomplete HTTP-response-header-section-size HTTP-response-header-size
HTTP-response-body-size HTTP-response-trailer-section-size HTTP-response-trailer-size
HTTP-response-transfer-coding HTTP-response-content-coding HTTP-response-timeout
HTTP-upgrade-failed HTTP-protocol-error loop-detected configuration-error internal-error`)

func witMethod(m string) h.Method {
	switch m {
	case http.MethodGet:
		return h.MakeMethodGet()
	case http.MethodHead:
		return h.MakeMethodHead()
	case http.MethodPost:
		return h.MakeMethodPost()
	case http.MethodPut:
		return h.MakeMethodPut()
	case http.MethodDelete:
		return h.MakeMethodDelete()
	case http.MethodPatch:
		return h.MakeMethodPatch()
	case http.MethodOptions:
		return h.MakeMethodOptions()
	}
	return h.MakeMethodOther(m)
}
