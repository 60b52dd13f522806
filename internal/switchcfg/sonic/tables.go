package sonic

// CONFIG_DB tables the SONiC backend reads or writes (schemas in sonic-buildimage
// src/sonic-yang-models/yang-models).
const (
	tableDeviceMetadata = "DEVICE_METADATA"
	tableVersions       = "VERSIONS"
	tablePort           = "PORT"
	tableDSCPToTC       = "DSCP_TO_TC_MAP"
	tableTCToPG         = "TC_TO_PRIORITY_GROUP_MAP"
	tableTCToQueue      = "TC_TO_QUEUE_MAP"
	tablePFCToQueue     = "MAP_PFC_PRIORITY_TO_QUEUE"
	tablePFCToPG        = "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"
	tablePortQoS        = "PORT_QOS_MAP"
	tableWRED           = "WRED_PROFILE"
	tableScheduler      = "SCHEDULER"
	tableQueue          = "QUEUE"
	tableCableLength    = "CABLE_LENGTH"
	tablePFCWatchdog    = "PFC_WD"
	tableBufferPG       = "BUFFER_PG"
	tableBufferProfile  = "BUFFER_PROFILE"
	tableBufferPool     = "BUFFER_POOL"
	tableTrafficPattern = "LOSSLESS_TRAFFIC_PATTERN"
	tableLosslessParams = "DEFAULT_LOSSLESS_BUFFER_PARAMETER"
)

// APPL_DB tables of the dynamic buffer model: the priority groups and profiles buffermgrdyn
// derived (sonic-swss cfgmgr/buffermgrdyn.cpp); keys use ":" (Ethernet0:3-4).
const (
	applBufferPG      = "BUFFER_PG_TABLE"
	applBufferProfile = "BUFFER_PROFILE_TABLE"
)

// observedTables is everything one refresh reads, in a single Get.
var observedTables = []string{
	tableDeviceMetadata, tableVersions, tablePort,
	tableDSCPToTC, tableTCToPG, tableTCToQueue, tablePFCToQueue, tablePFCToPG,
	tablePortQoS, tableWRED, tableScheduler, tableQueue, tableCableLength, tablePFCWatchdog,
	tableBufferPG, tableBufferProfile, tableBufferPool, tableTrafficPattern, tableLosslessParams,
}

// cableLengthKey is the one CABLE_LENGTH entry SONiC's templates create; it holds a field per port.
const cableLengthKey = "AZURE"

// stockWREDProfile is the lossless WRED profile of SONiC's templates; before 202511 GCU only
// lets gNMI replace its green thresholds and probability, so the provider tunes it in place.
const stockWREDProfile = "AZURE_LOSSLESS"

// ownedWREDFromRelease is the first release whose GCU lets gNMI add a WRED profile.
const ownedWREDFromRelease = 202511
