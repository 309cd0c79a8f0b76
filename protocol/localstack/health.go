package localstack

import (
	"bytes"
	"net/http"

	"github.com/julienschmidt/httprouter"
)

// reportedVersion is the LocalStack version whose health shape this is.
// minisqs is not LocalStack; it reports a version for clients that parse
// the field.
const reportedVersion = "4.0.0"

// health answers GET /_localstack/health as LocalStack does, with SQS, the
// one service here, running.
func health(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	writeJSON(w, http.StatusOK, objectOf(
		"services", objectOf("sqs", "running"),
		"edition", "community",
		"version", reportedVersion,
	))
}

// initStages are LocalStack's init-hook stages; minisqs runs none, so each
// is complete as soon as it serves, but SHUTDOWN.
var initStages = []string{"BOOT", "START", "READY", "SHUTDOWN"}

// initStatus answers GET /_localstack/init, which readiness checks read
// for READY.
func initStatus(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
	completed := &object{}
	for _, s := range initStages {
		completed.add(s, s != "SHUTDOWN")
	}
	writeJSON(w, http.StatusOK, objectOf("completed", completed, "scripts", []node{}))
}

// initStageStatus answers GET /_localstack/init/STAGE, as in the common
// healthcheck `curl localhost:4566/_localstack/init/ready`.
func initStageStatus(w http.ResponseWriter, _ *http.Request, p httprouter.Params) {
	stage := bytes.ToUpper([]byte(p.ByName("stage")))
	for _, s := range initStages {
		if string(stage) == s {
			writeJSON(w, http.StatusOK, objectOf("completed", s != "SHUTDOWN", "scripts", []node{}))
			return
		}
	}
	http.Error(w, "no such stage "+p.ByName("stage"), http.StatusNotFound)
}

func writeJSON(w http.ResponseWriter, status int, v node) {
	var buf bytes.Buffer
	writePython(&buf, v)
	w.Header().Set("Content-Type", mimeJSON)
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
