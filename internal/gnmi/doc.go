// Package gnmi is the provider's gNMI client for SONiC switches (NVIDIA
// Spectrum-4 running SONiC's gnmi container), writing CONFIG_DB through the
// native "sonic-db" path.
//
// Requests are values built first and sent last: a Batch collects the
// deletes, replaces and updates of one Terraform operation, prints itself as
// readable lines for a plan (Batch.Lines) and becomes one SetRequest, which
// SONiC applies as one transaction (Batch.Request, Client.Set).
//
// SONiC facts the client is built around (shared/research/switch.md §1b):
// Set values are JSON_IETF and every CONFIG_DB value is a string; an update
// of an entry replaces the whole entry; a validated Set can take tens of
// seconds (default SetTimeout 10 minutes); a Set can report failure although
// it was applied (sonic-gnmi#238), so after any Set error the client re-reads
// what it sent and says whether it is there (SetError.Applied); the server
// closes idle connections after 5 seconds, so the client re-dials
// transparently; only one Set may be in flight per switch.
//
// A Pool keeps one Client per switch address for the life of the process.
package gnmi
