// Package gnmi is the provider's gNMI client: one gRPC connection per switch, credentials
// (TLS, mTLS, username and password metadata), Get, Set and Capabilities with retries and
// backoff, and a Pool that shares one Client per switch address for the life of the
// process. It knows nothing of any switch's data model: package sonicdb builds SONiC's
// CONFIG_DB requests on top of it.
//
// Transport facts the client is built around (sonic-net/sonic-gnmi: telemetry/telemetry.go's
// --idle_conn_duration, the 600 s GCU timeout of sonic_service_client/dbus_client.go,
// issue #784): a validated Set can take tens of seconds (default SetTimeout 10 minutes);
// servers close idle connections (SONiC after 5 seconds), so the client re-dials
// transparently; only one Set is kept in flight per switch; a Set that may have reached
// the switch is not re-sent unless the caller opts in, because only the data-model layer
// can tell whether it applied.
// No call waits forever: each read attempt is bounded by GetTimeout and each Set attempt by
// SetTimeout, answers are capped at MaxResponseSize, and keepalive pings, no more often than
// SONiC's 5-minute enforcement allows, find a connection that stopped carrying bytes.
package gnmi
