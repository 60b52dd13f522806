package sonic

// This file encodes sonic-utilities
// generic_config_updater/gcu_field_operation_validators.conf.json and
// field_operation_validators.py of the 202411, 202505 and 202511 branches
// (202605 and master match 202511) for the Spectrum-4/5 ASIC families.
// The per-platform minimum versions in that file (20221100 for spc4,
// 20241200 for spc5 and packet trimming) are older than every branch
// modelled here and are left out.

// matchMode is how GCU compares a patch path with an allowlisted field.
type matchMode int

const (
	// matchCleanedExact is rdma_config_update_validator: path elements
	// after the table that contain a digit (port names, generated profile
	// names) are dropped, the rest joined with "/" and lowercased, and the
	// result must equal an allowlisted field.
	matchCleanedExact matchMode = iota + 1
	// matchLastElement is rdma_config_update_validator_common with its
	// defaults: the last "/" element of the path must equal an allowlisted
	// field, whatever the key.
	matchLastElement
)

// scenario is one named group of allowlisted fields and operations.
type scenario struct {
	name   string
	fields []string
	ops    []Op
	asics  []string
}

// tableRule is the validator GCU runs on every patch element of a table.
type tableRule struct {
	validator string
	match     matchMode
	// objectOps are operations allowed on a whole entry whatever its fields
	// (buffer_profile_config_update_validator, 202511+).
	objectOps []Op
	scenarios []scenario
}

// allowlist is the table rules of the branches from `from` on.
type allowlist struct {
	from   int
	tables map[string]tableRule
}

var (
	spc4Only  = []string{ASICSpectrum4}
	spc4And5  = []string{ASICSpectrum4, ASICSpectrum5}
	addRmRepl = []Op{OpRemove, OpAdd, OpReplace}
	replOnly  = []Op{OpReplace}
)

const (
	rdmaValidator    = "rdma_config_update_validator"
	wredValidator    = "wred_profile_config_update_validator"
	profileValidator = "buffer_profile_config_update_validator"
)

// allowlists is ordered newest first; releases older than the last entry use
// the last entry.
var allowlists = []allowlist{
	{from: 202511, tables: map[string]tableRule{
		"PFC_WD": {validator: rdmaValidator, match: matchCleanedExact, scenarios: []scenario{{
			name:   "PFCWD enable/disable",
			fields: []string{"restoration_time", "detection_time", "action", "global/poll_interval", "pfc_stat_history", ""},
			ops:    addRmRepl, asics: spc4And5,
		}}},
		// An empty scenario: every BUFFER_POOL edit is rejected (PR #4219).
		"BUFFER_POOL": {validator: rdmaValidator, match: matchCleanedExact, scenarios: []scenario{{
			name: "Shared/headroom pool size changes",
		}}},
		"BUFFER_PROFILE": {validator: profileValidator, match: matchLastElement, objectOps: addRmRepl, scenarios: []scenario{
			{name: "Dynamic threshold tuning", fields: []string{"dynamic_th"}, ops: replOnly, asics: spc4And5},
			{name: "PG headroom modification", fields: []string{"xoff"}, ops: replOnly, asics: spc4And5},
			{name: "Packet trimming eligibility modification", fields: []string{"packet_discard_action"}, ops: []Op{OpAdd, OpReplace}, asics: spc4And5},
		}},
		// WRED_PROFILE has no validator on 202511+: YANG only.
	}},
	{from: 202505, tables: map[string]tableRule{
		"PFC_WD":      pfcwdRule(spc4And5),
		"BUFFER_POOL": bufferPoolRule(spc4And5),
		"BUFFER_PROFILE": {validator: rdmaValidator, match: matchCleanedExact, scenarios: []scenario{
			{name: "Dynamic threshold tuning", fields: []string{"dynamic_th"}, ops: replOnly, asics: spc4And5},
			{name: "PG headroom modification", fields: []string{"xoff"}, ops: replOnly, asics: spc4And5},
		}},
		"WRED_PROFILE": {validator: wredValidator, match: matchLastElement, scenarios: []scenario{{
			name:   "ECN tuning",
			fields: []string{"green_min_threshold", "green_max_threshold", "green_drop_probability"},
			ops:    replOnly, asics: spc4And5,
		}}},
	}},
	{from: 202411, tables: map[string]tableRule{
		"PFC_WD":      pfcwdRule(spc4Only),
		"BUFFER_POOL": bufferPoolRule(spc4Only),
		"BUFFER_PROFILE": {validator: rdmaValidator, match: matchCleanedExact, scenarios: []scenario{
			{name: "Dynamic threshold tuning", fields: []string{"dynamic_th"}, ops: replOnly, asics: spc4Only},
			{name: "PG headroom modification", fields: []string{"xoff"}, ops: replOnly, asics: spc4Only},
		}},
		"WRED_PROFILE": {validator: rdmaValidator, match: matchCleanedExact, scenarios: []scenario{{
			name: "ECN tuning",
			fields: []string{
				"azure_lossless/green_min_threshold",
				"azure_lossless/green_max_threshold",
				"azure_lossless/green_drop_probability",
			},
			ops: replOnly, asics: spc4Only,
		}}},
	}},
}

func pfcwdRule(asics []string) tableRule {
	return tableRule{validator: rdmaValidator, match: matchCleanedExact, scenarios: []scenario{{
		name:   "PFCWD enable/disable",
		fields: []string{"restoration_time", "detection_time", "action", "global/poll_interval", ""},
		ops:    addRmRepl, asics: asics,
	}}}
}

func bufferPoolRule(asics []string) tableRule {
	return tableRule{validator: rdmaValidator, match: matchCleanedExact, scenarios: []scenario{{
		name:   "Shared/headroom pool size changes",
		fields: []string{"ingress_lossless_pool/xoff", "ingress_lossless_pool/size", "egress_lossy_pool/size"},
		ops:    replOnly, asics: asics,
	}}}
}

// illegalRemovals are paths GCU never lets a patch remove
// (gu_common.py validate_field_operation), on every branch.
var illegalRemovals = []string{"/PFC_WD/GLOBAL/POLL_INTERVAL", "/PFC_WD/GLOBAL", "/LOOPBACK_INTERFACE/Loopback0"}
