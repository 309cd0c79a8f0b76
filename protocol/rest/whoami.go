package rest

// WhoAmI tells a client, such as the web console, whether tokens are
// required and which role its token has, so that it can offer only what
// that role may do.

import "net/http"

type whoAmIJSON struct {
	Role           Role `json:"role"`
	TokensRequired bool `json:"tokensRequired"`
}

// whoAmI answers the token's role; without configured tokens every caller
// may do everything, as admin may.
func (a *API) whoAmI(c *call) (int, any, error) {
	if len(a.opts.Tokens) == 0 {
		return http.StatusOK, whoAmIJSON{Role: RoleAdmin}, nil
	}
	token, _ := bearer(c.r)
	role, _ := roleOf(a.opts.Tokens, token) // authorize has found it
	return http.StatusOK, whoAmIJSON{Role: role, TokensRequired: true}, nil
}
