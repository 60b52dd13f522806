package sonic

import "strings"

// ASIC families as GCU names them (helper_data.rdma_config_update_validator
// in gcu_field_operation_validators.conf.json).
const (
	ASICSpectrum4 = "spc4"
	ASICSpectrum5 = "spc5"
	ASICUnknown   = "unknown"
)

// spc4SKUs and spc5SKUs are GCU's HWSKU lists (sonic-utilities 202511).
var (
	spc4SKUs = []string{
		"ACS-SN5600", "Mellanox-SN5600-O128", "Mellanox-SN5600-V256", "Mellanox-SN5600-C256S1",
		"ACS-SN5400", "Mellanox-SN5600-C224O8", "Mellanox-SN5610N-C256S2", "Mellanox-SN5610N-C224O8",
	}
	spc5SKUs = []string{
		"ACS-SN5640", "Mellanox-SN5640-C512S2", "Mellanox-SN5640-C448O16", "Mellanox-SN5640-C512X2",
		"Mellanox-SN5640-C508O1X2", "Mellanox-SN5640-O128X2",
	}
)

// ASIC returns the GCU ASIC family of a HWSKU (DEVICE_METADATA|localhost
// hwsku), compared case-insensitively like GCU does: ASICSpectrum4,
// ASICSpectrum5 or ASICUnknown. GCU rejects every edit of a validated table
// (WRED_PROFILE, BUFFER_POOL, BUFFER_PROFILE, PFC_WD) on an unknown ASIC;
// only the Spectrum-4/5 lists are modelled here.
func ASIC(hwsku string) string {
	for _, s := range spc4SKUs {
		if strings.EqualFold(s, hwsku) {
			return ASICSpectrum4
		}
	}
	for _, s := range spc5SKUs {
		if strings.EqualFold(s, hwsku) {
			return ASICSpectrum5
		}
	}
	return ASICUnknown
}
