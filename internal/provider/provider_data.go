package provider

// providerData is what Configure hands to every resource and data source: the resolved
// settings, and (as the transports join) the per-target connection pools shared by all
// resources of one provider process.
type providerData struct {
	settings settings
}

func newProviderData(s settings) *providerData {
	return &providerData{settings: s}
}
