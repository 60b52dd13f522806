// Package telemetry reads the counters that judge a RoCE fabric into
// [health.Sample]s: a SONiC switch's COUNTERS_DB over gNMI (two Gets: the name
// maps, then the ports' and lossless queues' hashes), a Cumulus Linux switch's QoS
// counters and PFC watchdog over NVUE (two GETs per port) and a host's RDMA ports
// over SSH (one command: hw_counters and ethtool -S). Each read is a sample:
// nothing is cached.
package telemetry
