package rest

import (
	_ "embed"
	"encoding/json"
	"net/http"
)

// OpenAPI is the OpenAPI 3 document of the whole API, kept beside this file
// as openapi.json and served at GET /v1/openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

func (a *API) openAPI(*call) (int, any, error) {
	return http.StatusOK, json.RawMessage(OpenAPI), nil
}
