package control

import (
	_ "embed"
	"encoding/json"
	"net/http"
)

// OpenAPI is the OpenAPI 3 document of the control API, kept beside this
// file as openapi.json and served at GET /_minisqs/openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

func (a *API) openAPI(http.ResponseWriter, *http.Request) (int, any, error) {
	return http.StatusOK, json.RawMessage(OpenAPI), nil
}
