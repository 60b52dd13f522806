// Package health judges whether a RoCE fabric is lossless from two samples of
// its counters: the switches' per-port PFC and per-queue ECN, drop and PFC
// watchdog counters, and the hosts' per-priority pause counters (ethtool -S)
// and RDMA hw_counters. It names no switch vendor's counter: a switch's reader
// translates its counters into the neutral names of switch.go and supplies its
// operating system's [SwitchAdvice]. It does no I/O: collectors fill [Sample]s, [Diff]
// takes their deltas and [Judge] turns them into verdicts with remedies,
// including the cross-checks between switch and NIC that nobody does by hand
// (ECN marks without CNPs, CNPs ignored, pauses outside the lossless
// priority).
package health
