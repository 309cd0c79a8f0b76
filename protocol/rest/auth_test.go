package rest_test

import (
	"fmt"
	"testing"

	"github.com/minisqs/minisqs/protocol/rest"
)

// TestTokens walks the role matrix of auth.go: each operation with no
// token, a wrong token and each role's token.
func TestTokens(t *testing.T) {
	tokens := map[string]rest.Role{"adm": rest.RoleAdmin, "pro": rest.RoleProducer, "con": rest.RoleConsumer, "ins": rest.RoleInspector}
	base := newRESTEnv(t, rest.Options{Tokens: tokens})
	admin := base.withToken("adm")
	admin.createQueue(msg{"name": "q"})
	admin.createQueue(msg{"name": "dlq"})

	type op struct {
		name         string
		method, path string
		body         func() any
		roles        string // the roles allowed besides admin: p, c, i; "*" needs no token
	}
	n := 0
	fresh := func() string { n++; return fmt.Sprint("fresh", n) }
	handle := func() string {
		admin.sendOK("q", msg{"body": "m"})
		return admin.receive("q", msg{"visibilityTimeoutSeconds": 0})[0].ReceiptHandle
	}
	ops := []op{
		{"CreateQueue", "POST", "/v1/queues", func() any { return msg{"name": fresh()} }, ""},
		{"ListQueues", "GET", "/v1/queues", nil, "i"},
		{"GetQueue", "GET", "/v1/queues/q", nil, "pci"},
		{"UpdateQueue", "PATCH", "/v1/queues/q", func() any { return msg{"delaySeconds": 0} }, ""},
		{"PurgeQueue", "POST", "/v1/queues/q/purge", nil, ""},
		{"SendMessages", "POST", "/v1/queues/q/messages", func() any { return msg{"messages": []msg{{"body": "x"}}} }, "p"},
		{"ReceiveMessages", "POST", "/v1/queues/q/messages/receive", func() any { return msg{} }, "c"},
		{"PeekMessages", "GET", "/v1/queues/q/messages", nil, "i"},
		{"PutSubscription", "PUT", "/v1/queues/q/subscription", func() any { return msg{"endpoint": "http://x"} }, ""},
		{"GetSubscription", "GET", "/v1/queues/q/subscription", nil, "i"},
		{"DeleteSubscription", "DELETE", "/v1/queues/q/subscription", nil, ""},
		{"AcknowledgeMessages", "POST", "/v1/messages/acknowledge", func() any { return msg{"receiptHandles": []string{handle()}} }, "*"},
		{"ChangeVisibility", "POST", "/v1/messages/visibility", func() any { return msg{"receiptHandle": handle(), "visibilityTimeoutSeconds": 0} }, "*"},
		{"GetOpenAPI", "GET", "/v1/openapi.json", nil, "*"},
		{"DeleteMessage", "DELETE", "/v1/queues/q/messages/00000000-0000-0000-0000-000000000000", nil, ""},
		{"GetQueueTags", "GET", "/v1/queues/q/tags", nil, "pci"},
		{"PutQueueTags", "PUT", "/v1/queues/q/tags", func() any { return msg{"tags": msg{}} }, ""},
		{"StartMoveTask", "POST", "/v1/queues/dlq/move-tasks", nil, ""},
		{"ListMoveTasks", "GET", "/v1/queues/dlq/move-tasks", nil, "i"},
		{"CancelMoveTask", "POST", "/v1/queues/dlq/move-tasks/cancel", nil, ""},
		{"GetQueueHistory", "GET", "/v1/queues/q/history", nil, "i"},
		{"ListQueueHistories", "GET", "/v1/history", nil, "i"},
		{"ListSubscriptions", "GET", "/v1/subscriptions", nil, "i"},
		{"WhoAmI", "GET", "/v1/whoami", nil, "pci"},
		{"DeleteQueue", "DELETE", "/v1/queues/dlq", nil, ""},
	}
	for _, o := range ops {
		body := func() any {
			if o.body == nil {
				return nil
			}
			return o.body()
		}
		allowed := func(role string) bool {
			return o.roles == "*" || role == "a" || role != "" && len(o.roles) > 0 && contains(o.roles, role)
		}
		for _, c := range []struct{ role, token string }{{"", ""}, {"", "wrong"}, {"p", "pro"}, {"c", "con"}, {"i", "ins"}} {
			v := base.withToken(c.token)
			r := v.do(o.method, o.path, body(), validRequest)
			switch {
			case allowed(c.role) && (r.Status == 401 || r.Status == 403):
				t.Errorf("%s with token %q: %d %s", o.name, c.token, r.Status, r.Body)
			case !allowed(c.role) && c.role == "" && (r.Status != 401 || r.ErrCode(t) != "unauthorized" || r.Header.Get("WWW-Authenticate") == ""):
				t.Errorf("%s with token %q: %d %s, want 401", o.name, c.token, r.Status, r.Body)
			case !allowed(c.role) && c.role != "" && (r.Status != 403 || r.ErrCode(t) != "forbidden"):
				t.Errorf("%s with token %q: %d %s, want 403", o.name, c.token, r.Status, r.Body)
			}
		}
		// Admin may do everything; run it last so deletes happen once.
		if r := admin.do(o.method, o.path, body(), validRequest); r.Status == 401 || r.Status == 403 || r.Status >= 500 {
			t.Errorf("%s as admin: %d %s", o.name, r.Status, r.Body)
		}
	}
}

func contains(s, role string) bool {
	for _, c := range s {
		if string(c) == role {
			return true
		}
	}
	return false
}

func TestNoTokensIsOpen(t *testing.T) {
	v := newEnv(t)
	v.withToken("anything").createQueue(msg{"name": "q"})
	v.must(200, "GET", "/v1/queues", nil)
}
