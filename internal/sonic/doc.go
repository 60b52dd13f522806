// Package sonic holds pure knowledge about SONiC's CONFIG_DB that both the
// provider and the switch twin need: the in-memory shape of CONFIG_DB
// (DB, Table, Entry), SONiC release parsing (ParseRelease), the JSON-patch
// difference that the Generic Config Updater (GCU) validates (Diff), and the
// per-release GCU field/operation allowlists for Spectrum-4 SKUs (Allowed,
// Check).
//
// Every gNMI Set on SONiC's native path becomes one JSON patch that GCU
// applies. GCU does not validate the operations the client sent: it computes
// the difference between the running and the target configuration
// (jsonpatch.JsonPatch.from_diff) and runs the per-table validators of
// sonic-utilities generic_config_updater/gcu_field_operation_validators.conf.json
// on each element of that difference. Check reproduces this, so a caller can
// refuse at plan time what a release would reject at apply time.
//
// The package does no I/O.
package sonic
