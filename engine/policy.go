package engine

import (
	"encoding/json"
	"slices"
)

// The queue policy document that AddPermission and RemovePermission edit.
// Its form follows what SQS writes: Version 2008-10-17, Id
// "<queue ARN>/SQSDefaultPolicy", one statement per label, and a single
// principal or action written as a string rather than a list.
type policyDocument struct {
	Version   string            `json:"Version"`
	ID        string            `json:"Id"`
	Statement []json.RawMessage `json:"Statement"`
}

// statementSid reads a statement's Sid. Statements are kept as written, so
// a Policy set with SetQueueAttributes (say with "Principal": "*" or a
// Condition) survives AddPermission and RemovePermission unchanged.
func statementSid(raw json.RawMessage) string {
	var s struct{ Sid string }
	_ = json.Unmarshal(raw, &s)
	return s.Sid
}

type policyStatement struct {
	Sid       string          `json:"Sid"`
	Effect    string          `json:"Effect"`
	Principal policyPrincipal `json:"Principal"`
	Action    json.RawMessage `json:"Action"`
	Resource  string          `json:"Resource"`
}

type policyPrincipal struct {
	AWS json.RawMessage `json:"AWS"`
}

// oneOrMany writes a single value as a string and several as a list.
func oneOrMany(vals []string) json.RawMessage {
	var b []byte
	if len(vals) == 1 {
		b, _ = json.Marshal(vals[0])
	} else {
		b, _ = json.Marshal(vals)
	}
	return b
}

// AddPermission adds a statement, named label, letting the accounts perform
// the actions on the queue.
func (q *Queue) AddPermission(label string, accounts, actions []string) error {
	if label == "" {
		return ErrMissing("Label")
	}
	if len(accounts) == 0 {
		return ErrMissing("AWSAccountIds")
	}
	if len(actions) == 0 {
		return ErrMissing("Actions")
	}
	return q.editPolicy(func(doc *policyDocument) error {
		if slices.ContainsFunc(doc.Statement, func(s json.RawMessage) bool { return statementSid(s) == label }) {
			return ErrInvalidParameter("Label", label, ReasonExists)
		}
		principals := make([]string, len(accounts))
		for i, a := range accounts {
			principals[i] = "arn:aws:iam::" + a + ":root"
		}
		qualified := make([]string, len(actions))
		for i, a := range actions {
			qualified[i] = "SQS:" + a
		}
		st, err := json.Marshal(policyStatement{
			Sid: label, Effect: "Allow", Principal: policyPrincipal{AWS: oneOrMany(principals)},
			Action: oneOrMany(qualified), Resource: q.arn,
		})
		doc.Statement = append(doc.Statement, st)
		return err
	})
}

// RemovePermission removes the statement named label; removing the last
// one removes the policy.
func (q *Queue) RemovePermission(label string) error {
	if label == "" {
		return ErrMissing("Label")
	}
	return q.editPolicy(func(doc *policyDocument) error {
		i := slices.IndexFunc(doc.Statement, func(s json.RawMessage) bool { return statementSid(s) == label })
		if i < 0 {
			return ErrInvalidParameter("Label", label, ReasonNotFound)
		}
		doc.Statement = slices.Delete(doc.Statement, i, i+1)
		return nil
	})
}

func (q *Queue) editPolicy(edit func(*policyDocument) error) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.deleted {
		return errNoQueue()
	}
	a := q.Attributes()
	doc := policyDocument{Version: "2008-10-17", ID: q.arn + "/SQSDefaultPolicy"}
	if a.Policy != "" {
		if err := json.Unmarshal([]byte(a.Policy), &doc); err != nil {
			return ErrPolicyNotEditable(err)
		}
	}
	if err := edit(&doc); err != nil {
		return err
	}
	a.Policy = ""
	if len(doc.Statement) > 0 {
		b, err := json.Marshal(doc)
		if err != nil {
			return err
		}
		a.Policy = string(b)
	}
	q.attrs.Store(&a)
	q.modified = q.e.clock.Now()
	return q.saveLocked()
}
