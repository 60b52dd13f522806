// Package tasks holds the host bootstrapper's tasks: each compares the facts
// of a host with one piece of wanted state and yields the changes that make
// them agree (see host.Task). Plans are pure; the engine in package host does
// the I/O.
package tasks
