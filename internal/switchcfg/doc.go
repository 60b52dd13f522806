// Package switchcfg turns a fabric QoS policy into switch configuration and reads it back.
//
// The resource layer speaks to a Backend; the only backend today is SONiC, which writes
// CONFIG_DB through gNMI (package gnmi). A backend for NVIDIA Cumulus (NVUE REST) can be added
// behind the same interface.
package switchcfg
