// Package sonicdb reads and writes SONiC's Redis databases through sonic-gnmi's native
// "sonic-db" origin, on top of the generic client in package gnmi.
//
// Requests are values built first and sent last: a Batch collects the deletes, replaces and
// updates of one Terraform operation, prints itself as readable lines for a plan
// (Batch.Lines) and becomes one SetRequest, which SONiC applies as one transaction
// (Batch.Request, Client.Set).
//
// SONiC facts the package is built around (sonic-net/sonic-gnmi gnmi_server/server.go and
// sonic_data_client/mixed_db_client.go): Set values are JSON_IETF and every CONFIG_DB value is a string; an update of an entry replaces the whole
// entry; a Set can report failure although it was applied (sonic-gnmi#238), so after any
// Set error that may have reached the switch the client re-reads what it sent and says
// whether it is there (SetError.Applied); a Get whose paths name two databases is refused.
package sonicdb
