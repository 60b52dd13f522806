//go:build bench && !unix

package main

import "time"

// processCPU reports nothing where getrusage is missing (windows): the bench runs on Linux.
func processCPU() (time.Duration, bool) { return 0, false }
