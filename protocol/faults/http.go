package faults

import (
	"net/http"

	"github.com/julienschmidt/httprouter"

	"github.com/minisqs/minisqs/protocol/rest"
)

// Path is where the rules are served.
const Path = "/_minisqs/faults"

// Register serves the rules on r, each route wrapped in guard (the admin
// token check):
//
//	POST   /_minisqs/faults       add a rule: 201 with it and its id
//	GET    /_minisqs/faults       {"faults": [...]}, with their hits
//	DELETE /_minisqs/faults/{id}  remove one: 204, or 404 not_found
//	DELETE /_minisqs/faults       remove all: 204
func (rs *Rules) Register(r *httprouter.Router, guard func(http.Handler) http.Handler) {
	r.Handler(http.MethodPost, Path, guard(http.HandlerFunc(rs.serveAdd)))
	r.Handler(http.MethodGet, Path, guard(http.HandlerFunc(rs.serveList)))
	r.Handler(http.MethodDelete, Path, guard(http.HandlerFunc(rs.serveClear)))
	r.Handler(http.MethodDelete, Path+"/:id", guard(http.HandlerFunc(rs.serveDelete)))
}

func (rs *Rules) serveAdd(w http.ResponseWriter, r *http.Request) {
	var rule Rule
	if err := rest.DecodeJSON(w, r, &rule, 0, false); err != nil {
		rest.WriteError(w, err)
		return
	}
	f, err := rs.Add(rule)
	if err != nil {
		rest.WriteError(w, err)
		return
	}
	rest.WriteJSON(w, http.StatusCreated, f)
}

func (rs *Rules) serveList(w http.ResponseWriter, _ *http.Request) {
	rest.WriteJSON(w, http.StatusOK, struct {
		Faults []Fault `json:"faults"`
	}{rs.List()})
}

func (rs *Rules) serveDelete(w http.ResponseWriter, r *http.Request) {
	id := httprouter.ParamsFromContext(r.Context()).ByName("id")
	if !rs.Delete(id) {
		rest.WriteError(w, rest.Errorf(rest.CodeNotFound, "No fault rule %q.", id))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (rs *Rules) serveClear(w http.ResponseWriter, _ *http.Request) {
	rs.Clear()
	w.WriteHeader(http.StatusNoContent)
}
