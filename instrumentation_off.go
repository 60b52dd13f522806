//go:build !bench

package main

// startInstrumentation is the bench's per-process instrumentation, which only a build with
// the bench tag has (profile.go).
func startInstrumentation() (stop func(), err error) { return func() {}, nil }
