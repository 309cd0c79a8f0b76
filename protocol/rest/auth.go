package rest

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// Role is what a bearer token may do. The roles separate producers,
// consumers, inspectors and queue administrators; inspection (reading
// messages without leasing them) is its own permission, so peek belongs to
// inspector, not consumer.
//
// The matrix (also in openapi.json, as each operation's x-minisqs-roles):
//
//	operation            admin producer consumer inspector  no token
//	CreateQueue            ✓                                  (open only)
//	ListQueues             ✓                        ✓
//	GetQueue, GetQueueTags ✓     ✓        ✓         ✓
//	WhoAmI                 ✓     ✓        ✓         ✓
//	UpdateQueue            ✓
//	DeleteQueue            ✓
//	PurgeQueue             ✓
//	PutQueueTags           ✓
//	SendMessages           ✓     ✓
//	ReceiveMessages        ✓              ✓
//	PeekMessages           ✓                        ✓
//	DeleteMessage          ✓
//	Start/CancelMoveTask   ✓
//	ListMoveTasks          ✓                        ✓
//	Get/ListQueueHistories ✓                        ✓
//	GetSubscription        ✓                        ✓
//	ListSubscriptions      ✓                        ✓
//	Put/DeleteSubscription ✓
//	AcknowledgeMessages    ✓     ✓        ✓         ✓         ✓
//	ChangeVisibility       ✓     ✓        ✓         ✓         ✓
//	GET /v1/openapi.json   ✓     ✓        ✓         ✓         ✓
//
// Acknowledge and change visibility work with the receipt handle alone
// (docs/rest-api.md, "Receipt handles"): the handle is the credential for its one
// delivery. Without Options.Tokens every operation is open.
type Role string

// The roles.
const (
	RoleAdmin     Role = "admin"
	RoleProducer  Role = "producer"
	RoleConsumer  Role = "consumer"
	RoleInspector Role = "inspector"
)

// ValidRole reports whether r is one of the four roles.
func ValidRole(r Role) bool {
	switch r {
	case RoleAdmin, RoleProducer, RoleConsumer, RoleInspector:
		return true
	}
	return false
}

// permission is the set of roles that may call an operation; admin may call
// every one. permNone needs no token at all.
type permission struct {
	none  bool
	roles []Role
}

var (
	permNone    = permission{none: true}
	permAdmin   = permission{}
	permInspect = permission{roles: []Role{RoleInspector}}
	permProduce = permission{roles: []Role{RoleProducer}}
	permConsume = permission{roles: []Role{RoleConsumer}}
	permAnyRole = permission{roles: []Role{RoleProducer, RoleConsumer, RoleInspector}}
)

func (p permission) allows(r Role) bool {
	if r == RoleAdmin {
		return true
	}
	for _, x := range p.roles {
		if x == r {
			return true
		}
	}
	return false
}

// authorize checks the request's bearer token against the operation's
// permission.
func (a *API) authorize(r *http.Request, p permission) error {
	return authorize(a.opts.Tokens, r, p)
}

// RequireAdmin guards h with the admin role: when tokens are configured,
// only a request with an admin token reaches h, and the others get the
// API's 401 or 403. Without tokens h is open. The test-control routes use
// it.
func RequireAdmin(tokens map[string]Role, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := authorize(tokens, r, permAdmin); err != nil {
			writeError(w, err)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// authorize checks the request's bearer token against tokens and a
// permission: 401 without a known token, 403 when its role may not.
func authorize(tokens map[string]Role, r *http.Request, p permission) error {
	if len(tokens) == 0 || p.none {
		return nil
	}
	token, ok := bearer(r)
	if !ok {
		return apiErrorf(codeUnauthorized, "This operation needs an Authorization: Bearer token.")
	}
	role, ok := roleOf(tokens, token)
	if !ok {
		return apiErrorf(codeUnauthorized, "The bearer token is not valid.")
	}
	if !p.allows(role) {
		return apiErrorf(codeForbidden, "The %s role may not do this.", role)
	}
	return nil
}

// roleOf finds a token's role, comparing in constant time.
func roleOf(tokens map[string]Role, token string) (Role, bool) {
	var found Role
	ok := false
	for t, role := range tokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
			found, ok = role, true
		}
	}
	return found, ok
}

func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}
