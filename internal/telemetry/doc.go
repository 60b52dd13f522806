// Package telemetry reads a host's RDMA counters into [health.HostPort]s over SSH, in one
// command: every RDMA port's hw_counters and its netdevs' ethtool -S. Each read is a sample:
// nothing is cached. A switch's counters are its driver's (switchcfg.Driver.Counters).
package telemetry
