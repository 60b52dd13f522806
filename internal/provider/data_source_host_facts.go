package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
)

var _ datasource.DataSourceWithConfigure = (*hostFactsDataSource)(nil)

func newHostFactsDataSource() datasource.DataSource { return &hostFactsDataSource{} }

type hostFactsDataSource struct {
	data *providerData
}

type hostFactsModel struct {
	Host              types.String      `tfsdk:"host"`
	Detail            types.Bool        `tfsdk:"detail"`
	ID                types.String      `tfsdk:"id"`
	OFEDFlavor        types.String      `tfsdk:"ofed_flavor"`
	OFEDVersion       types.String      `tfsdk:"ofed_version"`
	Kernel            types.String      `tfsdk:"kernel"`
	Lockdown          types.String      `tfsdk:"lockdown"`
	NICs              []hostNICModel    `tfsdk:"nics"`
	GPUs              []hostGPUModel    `tfsdk:"gpus"`
	NVIDIADriver      types.String      `tfsdk:"nvidia_driver_version"`
	NVIDIAOpenModules types.Bool        `tfsdk:"nvidia_open_kernel_modules"`
	PeermemLoaded     types.Bool        `tfsdk:"peermem_loaded"`
	PeermemRegistered types.Bool        `tfsdk:"peermem_registered"`
	DMABUFCapable     types.Bool        `tfsdk:"dmabuf_capable"`
	DMABUFReason      types.String      `tfsdk:"dmabuf_reason"`
	NCCLVersion       types.String      `tfsdk:"nccl_version"`
	NCCLSource        types.String      `tfsdk:"nccl_source"`
	OS                types.String      `tfsdk:"os"`
	OSFamily          types.String      `tfsdk:"os_family"`
	Unavailable       map[string]string `tfsdk:"unavailable"`
}

type hostNICModel struct {
	Device         types.String   `tfsdk:"device"`
	Model          types.String   `tfsdk:"model"`
	Firmware       types.String   `tfsdk:"firmware"`
	Netdev         types.String   `tfsdk:"netdev"`
	IsVF           types.Bool     `tfsdk:"is_vf"`
	PortState      types.String   `tfsdk:"port_state"`
	LinkLayer      types.String   `tfsdk:"link_layer"`
	RoCEv2GIDIndex types.Int64    `tfsdk:"roce_v2_ipv4_gid_index"`
	GIDs           []hostGIDModel `tfsdk:"gids"`
}

type hostGIDModel struct {
	Index   types.Int64  `tfsdk:"index"`
	Type    types.String `tfsdk:"type"`
	Address types.String `tfsdk:"address"`
	Netdev  types.String `tfsdk:"netdev"`
}

type hostGPUModel struct {
	Name     types.String `tfsdk:"name"`
	NIC      types.String `tfsdk:"nic"`
	PathType types.String `tfsdk:"path_type"`
	BAR1MiB  types.Int64  `tfsdk:"bar1_mib"`
}

func (d *hostFactsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_host_facts"
}

func (d *hostFactsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Computed: true, MarkdownDescription: desc}
	}
	boolean := func(desc string) schema.BoolAttribute {
		return schema.BoolAttribute{Computed: true, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "What a ConnectX GPU host is, read over SSH in one remote command: RDMA stack, kernel, NICs with their ports (and, with `detail = true`, their GID tables), GPUs and their nearest NIC, GPUDirect readiness. Read-only: nothing on the host changes.\n\n" +
			"Terraform keeps what a data source reads in the state and copies the whole state after every instance it applies, so the bulk detail is opt-in: " +
			"without `detail`, each NIC's `gids` is null (its `roce_v2_ipv4_gid_index`, what NCCL needs, is always there). On a host with 8 ConnectX-7 ports and 8 GPUs the facts then take about 6 KiB of state instead of 13.",
		Attributes: map[string]schema.Attribute{
			"host": schema.StringAttribute{Required: true, MarkdownDescription: "SSH address of the host, `address` or `address:port` (the provider's `ssh.port` when absent)."},
			"detail": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Also keep every NIC's GID table (`nics[*].gids`) in the state. Default `false`: `gids` is null, which keeps a host's state small."},
			"id":           str("The host address."),
			"ofed_flavor":  str("RDMA stack: `doca` (DOCA-OFED), `mlnx` (MLNX_OFED) or `inbox` (distribution rdma-core)."),
			"ofed_version": str("OFED version as `ofed_info -s` reports it (`25.10-1.7.1`); empty on inbox stacks."),
			"kernel":       str("Running kernel release (`uname -r`)."),
			"lockdown":     str("Kernel lockdown mode (`none`, `integrity`, `confidentiality`); anything but `none` blocks debugfs writes."),
			"nics": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "RDMA devices in `ibv_devinfo` order.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"device":     str("RDMA device (`mlx5_0`)."),
					"model":      str("Adapter model from the PCI device id (`ConnectX-7`)."),
					"firmware":   str("Firmware version."),
					"netdev":     str("Network interface of the device."),
					"is_vf":      boolean("Whether the device is an SR-IOV virtual function (its DCQCN settings are read-only)."),
					"port_state": str("First port's state (`PORT_ACTIVE`, `PORT_DOWN`)."),
					"link_layer": str("First port's link layer (`Ethernet` for RoCE)."),
					"roce_v2_ipv4_gid_index": schema.Int64Attribute{Computed: true,
						MarkdownDescription: "Index of the RoCE v2 IPv4 GID (what `NCCL_IB_GID_INDEX` would need); null when the port has none."},
					"gids": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "Populated GID table entries of port 1, with `detail = true`; null without it.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"index":   schema.Int64Attribute{Computed: true, MarkdownDescription: "GID index."},
							"type":    str("`RoCE v2`, `RoCE v1` or `IB`."),
							"address": str("GID as sysfs prints it."),
							"netdev":  str("Interface the GID belongs to."),
						}}},
				}}},
			"gpus": schema.ListNestedAttribute{Computed: true, MarkdownDescription: "GPUs in `nvidia-smi topo -m` order, each with its closest NIC.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":      str("GPU label (`GPU0`)."),
					"nic":       str("Closest RDMA device."),
					"path_type": str("PCIe path to that NIC: `PIX` or `PXB` is what GPUDirect RDMA needs; `PHB`, `NODE`, `SYS` are too far."),
					"bar1_mib":  schema.Int64Attribute{Computed: true, MarkdownDescription: "BAR1 aperture in MiB (GPUDirect maps peer memory through it); -1 when unknown."},
				}}},
			"nvidia_driver_version":      str("Loaded NVIDIA driver version."),
			"nvidia_open_kernel_modules": boolean("Whether the NVIDIA driver uses the open GPU kernel modules (needed for DMA-BUF)."),
			"peermem_loaded":             boolean("Whether the `nvidia_peermem` module is loaded."),
			"peermem_registered":         boolean("Whether nvidia-peermem registered with OFED's peer-memory API (`/sys/kernel/mm/memory_peers/nv_mem`)."),
			"dmabuf_capable":             boolean("Whether GPU memory can be registered through DMA-BUF (kernel ≥ 5.12 and open NVIDIA kernel modules), which NCCL prefers to peermem."),
			"dmabuf_reason":              str("Why DMA-BUF is or is not available."),
			"nccl_version": str("NCCL installed on the host (`2.21.5`): the `libnccl2` (dpkg) or `libnccl` (rpm) package, else the `libnccl.so.2` in the linker cache; empty when neither exists. " +
				"Jobs that bring their own NCCL (containers, Python wheels) may run another version."),
			"nccl_source": str("Where `nccl_version` was read (`package libnccl2 2.21.5-1+cuda12.4`, `library /usr/lib/x86_64-linux-gnu/libnccl.so.2.21.5`), and any other install with another version."),
			"os":          str("The distribution as `/etc/os-release` names it (`PRETTY_NAME`: `Rocky Linux 9.6 (Blue Onyx)`)."),
			"os_family":   str("The package family `roce_host_bootstrap` takes from it: `debian` (Debian, Ubuntu) or `rhel` (RHEL, Rocky, Alma, Oracle, CentOS Stream, Fedora); empty for neither."),
			"unavailable": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Facts that could not be read, with the reason (a tool that is not installed on an inbox stack, a driver that is not loaded)."},
		},
	}
}

func (d *hostFactsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerDataFrom(req.ProviderData, &resp.Diagnostics)
}

func (d *hostFactsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m hostFactsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	engine, address, err := d.data.hostEngine(m.Host.ValueString())
	if err != nil {
		addSSHSettingsError(&resp.Diagnostics, address, err)
		return
	}
	f, err := engine.Read(ctx, readFacts)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("host"), "Unable to Read Host Facts",
			fmt.Sprintf("Reading facts of %s: %v", address, err))
		return
	}
	m.ID = types.StringValue(address)
	m.fill(f, m.Detail.ValueBool())
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// fill copies the gathered facts into the model, each NIC's GID table only with detail.
func (m *hostFactsModel) fill(f host.Facts, detail bool) {
	m.OFEDFlavor = types.StringValue(string(f.OFED.Flavor))
	m.OFEDVersion = types.StringValue(f.OFED.Version)
	m.Kernel = types.StringValue(f.Kernel.Release)
	m.Lockdown = types.StringValue(string(f.Lockdown))
	m.NVIDIADriver = types.StringValue(f.NVIDIA.Version)
	m.NVIDIAOpenModules = types.BoolValue(f.NVIDIA.Open)
	m.PeermemLoaded = types.BoolValue(f.ModuleLoaded("nvidia_peermem"))
	m.PeermemRegistered = types.BoolValue(f.PeerMem.Registered)
	ok, why := f.DMABUF()
	m.DMABUFCapable, m.DMABUFReason = types.BoolValue(ok), types.StringValue(why)
	m.NCCLVersion = types.StringValue(f.NCCL.Version)
	m.NCCLSource = types.StringValue(strings.Join(append([]string{f.NCCL.Source}, f.NCCL.Others...), "; "))
	fam, _ := f.OS.Family()
	m.OS, m.OSFamily = types.StringValue(f.OS.String()), types.StringValue(fam)
	m.Unavailable = map[string]string{}
	for k, v := range f.Absent {
		m.Unavailable[k] = v
	}
	m.NICs = []hostNICModel{}
	for _, n := range f.NICs() {
		nic := hostNICModel{
			Device: types.StringValue(n.Device), Model: types.StringValue(n.Model), Firmware: types.StringValue(n.FWVersion),
			Netdev: types.StringValue(n.Netdev), IsVF: types.BoolValue(n.IsVF),
			PortState: types.StringValue(n.PortState), LinkLayer: types.StringValue(n.LinkLayer),
			RoCEv2GIDIndex: types.Int64Null(),
		}
		if i, ok := f.GIDIndex(n.Device); ok {
			nic.RoCEv2GIDIndex = types.Int64Value(int64(i))
		}
		if detail {
			nic.GIDs = nicGIDs(f, n.Device)
		}
		m.NICs = append(m.NICs, nic)
	}
	m.GPUs = []hostGPUModel{}
	for i, gpu := range f.Topology.GPUs {
		g := hostGPUModel{Name: types.StringValue(gpu), NIC: types.StringValue(""), PathType: types.StringValue(""), BAR1MiB: types.Int64Value(-1)}
		if dev, link, ok := f.Topology.BestNIC(gpu); ok {
			g.NIC, g.PathType = types.StringValue(dev), types.StringValue(link)
		}
		if i < len(f.GPUMemory) {
			g.BAR1MiB = types.Int64Value(f.GPUMemory[i].BAR1Total)
		}
		m.GPUs = append(m.GPUs, g)
	}
}

// nicGIDs returns the populated GID entries of port 1 of device.
func nicGIDs(f host.Facts, device string) []hostGIDModel {
	gids := []hostGIDModel{}
	for _, g := range f.GIDs {
		if g.Device == device && g.Port == 1 {
			gids = append(gids, hostGIDModel{Index: types.Int64Value(int64(g.Index)), Type: types.StringValue(string(g.Type)),
				Address: types.StringValue(g.GID), Netdev: types.StringValue(g.Netdev)})
		}
	}
	return gids
}
