// Package facts reads the state of a ConnectX-7/8 GPU host.
//
// A fact is one kind of host state. Each is read by a [Probe]: a command that
// prints the state plus a pure parser of that output. The commands are
// [shell] values, built and quoted in one place, so the engine can print them
// in a plan and batch many into one SSH round trip;
// the parsers take the text a command printed and return typed values or a
// [*ParseError], never panicking on any input. Where reading a fact needs many
// small files (GID tables, the OFED ecn/ tree, debugfs cc_params), its probe is
// a single script that prints one line per file in a format defined here.
//
// Parsers are golden-tested on real output samples of the tools (ibv_devinfo,
// nvidia-smi, mlnx_qos, NCCL logs, ...) from public issues and vendor
// documentation, and fuzzed.
package facts
