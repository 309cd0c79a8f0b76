// Package compat holds the tests that prove minisqs on the wire: they start a
// real server and drive it with the official AWS clients, aws-sdk-go-v2
// (JSON protocol), aws-sdk-go v1 before v1.47 (query protocol) and the aws
// CLI in both protocols.
package compat
