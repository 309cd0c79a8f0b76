// Package localstack serves the parts of LocalStack's own HTTP surface that
// test suites written against LocalStack use beside SQS itself: the SQS
// developer endpoint /_aws/sqs/messages, which lists a queue's messages
// without receiving them, and the /_localstack/health and
// /_localstack/init readiness checks. Shapes follow LocalStack's
// developer_api.py and internal.py, and its tests of them.
//
// Queue URLs with LocalStack's hosts (sqs.REGION.localhost.localstack.cloud
// and localhost.localstack.cloud, port 4566) need nothing here: the SQS
// API finds a queue by the path of its URL, whatever the host.
package localstack

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/julienschmidt/httprouter"
	"github.com/minisqs/minisqs/engine"
	"github.com/minisqs/minisqs/protocol/sqs"
)

// backdoorHandle is the receipt handle LocalStack gives listed messages:
// none of them is received, so none has a real one.
const backdoorHandle = "SQS/BACKDOOR/ACCESS"

// maxRequestBytes caps a listing request: a ReceiveMessage input is small.
const maxRequestBytes = 1 << 20

// Register adds LocalStack's routes to r over e.
func Register(r *httprouter.Router, e *engine.Engine) {
	h := &handler{e: e}
	list := func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) { h.listMessages(w, req) }
	// An SDK given the endpoint as its base URL posts to it with a
	// trailing slash.
	for _, path := range []string{"/_aws/sqs/messages", "/_aws/sqs/messages/"} {
		r.GET(path, list)
		r.POST(path, list)
	}
	r.GET("/_aws/sqs/messages/:region/:account/:queue", func(w http.ResponseWriter, req *http.Request, p httprouter.Params) {
		h.listQueueMessages(w, req, p.ByName("region"), p.ByName("account"), p.ByName("queue"))
	})
	r.GET("/_localstack/health", health)
	r.HEAD("/_localstack/health", func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) { w.WriteHeader(http.StatusOK) })
	r.GET("/_localstack/init", initStatus)
	r.GET("/_localstack/init/:stage", initStageStatus)
}

type handler struct{ e *engine.Engine }

// answer is how a listing request wants its answer.
type answer struct {
	jsonProtocol bool   // an AWS JSON client: the JSON protocol's shape
	mime         string // otherwise: text/xml, application/xml or, converted from the XML, application/json
}

// answerFor reads the wanted form as LocalStack does: the JSON protocol
// for a JSON client's content type, else the query protocol's XML, or its
// JSON rendering when the Accept header prefers application/json.
func answerFor(r *http.Request) answer {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/x-amz-json-1.0" {
		return answer{jsonProtocol: true}
	}
	return answer{mime: negotiate(r.Header.Get("Accept"))}
}

// listMessages answers /_aws/sqs/messages, which takes the queue as
// ReceiveMessage does: as an AWS SDK's ReceiveMessage call (either
// protocol) sent to this endpoint, or as a QueueUrl query parameter.
func (h *handler) listMessages(w http.ResponseWriter, r *http.Request) {
	ans := answerFor(r)
	r.Body = http.MaxBytesReader(w, r.Body, maxRequestBytes)
	if err := r.ParseForm(); err != nil {
		ans.fail(w, engine.ErrUnreadableRequest(err))
		return
	}
	queueURL := r.Form.Get("QueueUrl")
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case strings.Contains(ct, "x-amz-"):
		if r.Header.Get("X-Amz-Target") != "AmazonSQS.ReceiveMessage" {
			ans.fail(w, sqs.ErrOnlyReceive())
			return
		}
		var in sqs.ReceiveMessageInput
		body, err := io.ReadAll(r.Body)
		if err == nil && len(body) > 0 {
			err = json.Unmarshal(body, &in)
		}
		if err != nil {
			ans.fail(w, engine.ErrUnreadableRequest(err))
			return
		}
		queueURL = in.QueueUrl
	case ct == "application/x-www-form-urlencoded":
		if r.PostForm.Get("Action") != "ReceiveMessage" {
			ans.fail(w, sqs.ErrOnlyReceive())
			return
		}
	}
	if queueURL == "" {
		ans.fail(w, engine.ErrQueueMissing(""))
		return
	}
	region, account, name, ok := parseQueueURL(queueURL)
	if !ok {
		ans.fail(w, engine.ErrNotThisEndpoint(queueURL))
		return
	}
	h.serveMessages(w, r, ans, region, account, name)
}

// listQueueMessages answers /_aws/sqs/messages/REGION/ACCOUNT/QUEUE.
func (h *handler) listQueueMessages(w http.ResponseWriter, r *http.Request, region, account, name string) {
	if err := r.ParseForm(); err != nil {
		answerFor(r).fail(w, engine.ErrUnreadableRequest(err))
		return
	}
	h.serveMessages(w, r, answerFor(r), region, account, name)
}

// serveMessages lists the queue's messages as LocalStack does: the visible
// ones; with ShowInvisible those in flight first, marked IsVisible; with
// ShowDelayed the delayed ones last, marked IsDelayed. Every attribute is
// given, and no receive is counted.
func (h *handler) serveMessages(w http.ResponseWriter, r *http.Request, ans answer, region, account, name string) {
	showInvisible := flag(r.Form.Get("ShowInvisible"))
	showDelayed := flag(r.Form.Get("ShowDelayed"))
	q, err := h.e.QueueIn(h.e.Namespace(account, region), name)
	var all []engine.MessageState
	if err == nil {
		all, err = q.Messages()
	}
	if err != nil {
		ans.fail(w, err)
		return
	}
	var picked []engine.MessageState
	for _, status := range []engine.MessageStatus{engine.MessageInFlight, engine.MessageVisible, engine.MessageDelayed} {
		if status == engine.MessageInFlight && !showInvisible || status == engine.MessageDelayed && !showDelayed {
			continue
		}
		for _, m := range all {
			if m.Status == status {
				picked = append(picked, m)
			}
		}
	}
	msgs := make([]sqs.Message, 0, len(picked))
	for _, m := range picked {
		extra := map[string]string{}
		if showInvisible {
			extra["IsVisible"] = boolText(m.Status == engine.MessageVisible)
		}
		if showDelayed {
			extra["IsDelayed"] = boolText(m.Status == engine.MessageDelayed)
		}
		msgs = append(msgs, sqs.PeekedMessage(m, backdoorHandle, extra))
	}
	ans.write(w, func(w http.ResponseWriter) { sqs.WriteReceiveResult(w, msgs, ans.jsonProtocol) })
}

// flag reads LocalStack's booleans: "true" or "1", in any case.
func flag(v string) bool {
	v = strings.ToLower(v)
	return v == "true" || v == "1"
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func (ans answer) fail(w http.ResponseWriter, err error) {
	ans.write(w, func(w http.ResponseWriter) { sqs.WriteError(w, err, ans.jsonProtocol) })
}

// write runs an SQS writer, turning its XML into the wanted form.
func (ans answer) write(w http.ResponseWriter, render func(http.ResponseWriter)) {
	if ans.jsonProtocol {
		render(w)
		return
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	render(rec)
	body := rec.body.Bytes()
	if ans.mime == mimeJSON {
		converted, err := xmlToJSON(body)
		if err != nil {
			http.Error(w, "converting the answer to JSON: "+err.Error(), http.StatusInternalServerError)
			return
		}
		body = converted
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", ans.mime)
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.status)
	w.Write(body)
}

// parseQueueURL reads the queue URLs of every LocalStack endpoint strategy:
// http://sqs.REGION.localhost.localstack.cloud:4566/ACCOUNT/NAME (standard),
// http://REGION.queue.localhost.localstack.cloud:4566/ACCOUNT/NAME (domain),
// http://localhost:4566/queue/REGION/ACCOUNT/NAME (path), and any host's
// /ACCOUNT/NAME, whose region is the engine's.
func parseQueueURL(raw string) (region, account, name string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", "", false
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	switch {
	case len(parts) == 4 && parts[0] == "queue":
		region, parts = parts[1], parts[2:]
	case len(parts) != 2:
		return "", "", "", false
	}
	if parts[0] == "" || parts[1] == "" {
		return "", "", "", false
	}
	host := u.Hostname()
	if r, ok := strings.CutPrefix(host, "sqs."); ok && region == "" {
		region, _, _ = strings.Cut(r, ".")
	} else if r, rest, ok := strings.Cut(host, ".queue."); ok && region == "" && rest != "" {
		region = r
	}
	if region == "localhost" {
		region = "" // sqs.localhost.localstack.cloud names no region
	}
	return region, parts[0], parts[1], true
}
