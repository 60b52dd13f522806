package switchtwin

import (
	"context"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
)

// gnmiVersion is the gNMI version the twin claims, as sonic-gnmi does.
const gnmiVersion = "0.7.0"

// Capabilities implements gNMI Capabilities with sonic-gnmi's encodings.
func (t *Twin) Capabilities(context.Context, *gpb.CapabilityRequest) (*gpb.CapabilityResponse, error) {
	return &gpb.CapabilityResponse{
		SupportedModels: []*gpb.ModelData{
			{Name: "sonic-db", Organization: "SONiC", Version: "0.1.0"},
		},
		SupportedEncodings: []gpb.Encoding{gpb.Encoding_JSON, gpb.Encoding_JSON_IETF, gpb.Encoding_PROTO},
		GNMIVersion:        gnmiVersion,
	}, nil
}
