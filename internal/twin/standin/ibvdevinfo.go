package standin

import (
	"strconv"
	"strings"
)

// ibvDevinfo imitates rdma-core's ibv_devinfo (libibverbs/examples/devinfo.c)
// over the fake /sys/class/infiniband: tab-aligned, GIDs only with -v (RoCE v1
// entries in full hex, RoCE v2 ones as inet_ntop text).
func ibvDevinfo(c *ctx, args []string) int {
	usage := func() {
		c.print("Usage: ibv_devinfo             print the ca attributes\n\n",
			"Options:\n",
			"  -d, --ib-dev=<dev>     use IB device <dev> (default all devices)\n",
			"  -i, --ib-port=<port>   use port <port> of IB device (default all ports)\n",
			"  -l, --list             print only the IB devices names\n",
			"  -v, --verbose          print all the attributes of the IB device(s)\n")
	}
	dev, ibport, verbose := "", "0", false
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "-v" || a == "--verbose":
			verbose = true
		case a == "-l" || a == "--list":
			devs := c.rdmaDevs()
			s := "s"
			if len(devs) == 1 {
				s = ""
			}
			c.printf("%d HCA%s found:\n", len(devs), s)
			for _, d := range devs {
				c.print("\t", d, "\n")
			}
			c.print("\n")
			return 0
		case a == "-d" || a == "--ib-dev" || a == "-i" || a == "--ib-port":
			if len(args) < 2 {
				usage()
				return 255
			}
			if a == "-d" || a == "--ib-dev" {
				dev = args[1]
			} else {
				ibport = args[1]
			}
			args = args[1:]
		case strings.HasPrefix(a, "--ib-dev="):
			dev = a[len("--ib-dev="):]
		case strings.HasPrefix(a, "--ib-port="):
			ibport = a[len("--ib-port="):]
		case len(a) > 2 && strings.HasPrefix(a, "-d"):
			dev = a[2:]
		case len(a) > 2 && strings.HasPrefix(a, "-i"):
			ibport = a[2:]
		default:
			usage()
			return 255
		}
		args = args[1:]
	}
	if ibport == "" || strings.Trim(ibport, "0123456789") != "" {
		usage()
		return 1
	}
	devs := c.rdmaDevs()
	if dev != "" {
		found := false
		for _, d := range devs {
			found = found || d == dev
		}
		if !found {
			c.errf("IB device '%s' wasn't found\n", dev)
			return 255
		}
		devs = fields(dev)
	} else if len(devs) == 0 {
		c.errf("No IB devices found\n")
		return 255
	}
	rc := 0
	for _, d := range devs {
		ok, exit := c.printDevice(d, ibport, verbose)
		if exit >= 0 {
			return exit
		}
		if !ok {
			rc = 1
		}
	}
	return rc
}

// printDevice prints device d: false when the port asked for is beyond the
// device's; exit >= 0 where a shell would end.
func (c *ctx) printDevice(d, ibport string, verbose bool) (ok bool, exit int) {
	cd := c.sys + "/class/infiniband/" + d
	b := c.bdf(d)
	pci := c.sys + "/bus/pci/devices/" + b
	nports := int64(len(globExisting(cd + "/ports")))
	if want, good := c.testInt(160, ibport, false); good && want > nports {
		c.errf("Invalid port requested for device\n")
		return false, -1
	}
	read := func(p string) string { v, _ := readLine(p); return v }
	c.print("hca_id:\t", d, "\n",
		"\ttransport:\t\t\tInfiniBand (0)\n",
		"\tfw_ver:\t\t\t\t", read(cd+"/fw_ver"), "\n",
		"\tnode_guid:\t\t\t", read(cd+"/node_guid"), "\n",
		"\tsys_image_guid:\t\t\t", read(cd+"/sys_image_guid"), "\n",
		"\tvendor_id:\t\t\t0x02c9\n")
	part := read(pci + "/device")
	c.printf("\tvendor_part_id:\t\t\t%d\n", c.printfInt(174, part))
	c.printf("\thw_ver:\t\t\t\t0x%X\n", uint64(c.printfInt(176, read(cd+"/hw_rev")))) //nolint:gosec // %X of intmax prints it unsigned
	c.print("\tboard_id:\t\t\t", read(cd+"/board_id"), "\n")
	c.printf("\tphys_port_cnt:\t\t\t%d\n", nports)
	if verbose {
		c.print(deviceCaps)
	}
	for p := int64(1); p <= nports; p++ {
		sel := false
		if v, good := c.testInt(183, ibport, false); good && v == 0 {
			sel = true
		} else if v, good := c.testInt(183, ibport, false); good && v == p {
			sel = true
		}
		if sel {
			if exit := c.printPort(d, p, verbose); exit >= 0 {
				return true, exit
			}
		}
	}
	return true, -1
}

// printPort prints port p of device d; it returns the exit status where a
// shell would end, else -1.
func (c *ctx) printPort(d string, p int64, verbose bool) int {
	pd := c.sys + "/class/infiniband/" + d + "/ports/" + itoa(p)
	st, ok := readLine(pd + "/state")
	if !ok {
		st = "0: unknown"
	}
	code, _, _ := strings.Cut(st, ":")
	name := map[string]string{"1": "PORT_DOWN", "2": "PORT_INIT", "3": "PORT_ARMED", "4": "PORT_ACTIVE"}[code]
	if name == "" {
		name = "invalid state"
	}
	mtu := "1500"
	if nd, ok := c.netdev(d); ok {
		if mtu, ok = readLine(c.sys + "/class/net/" + nd + "/mtu"); !ok {
			mtu = "1500"
		}
	}
	m, good := c.arithVar(112, mtu)
	if !good {
		return 2
	}
	// mlx5 RoCE: the IB MTU that fits the netdev MTU minus RoCE headers (84 B).
	room := m - 84
	am, amc := "256", "1"
	switch {
	case room >= 4096:
		am, amc = "4096", "5"
	case room >= 2048:
		am, amc = "2048", "4"
	case room >= 1024:
		am, amc = "1024", "3"
	case room >= 512:
		am, amc = "512", "2"
	}
	c.printf("\t\tport:\t%d\n", p)
	c.printf("\t\t\tstate:\t\t\t%s (%d)\n", name, c.printfInt(119, code))
	c.print("\t\t\tmax_mtu:\t\t4096 (5)\n")
	c.print("\t\t\tactive_mtu:\t\t", am, " (", amc, ")\n")
	c.print("\t\t\tsm_lid:\t\t\t0\n\t\t\tport_lid:\t\t0\n\t\t\tport_lmc:\t\t0x00\n")
	ll, _ := readLine(pd + "/link_layer")
	c.print("\t\t\tlink_layer:\t\t", ll, "\n")
	if verbose {
		n := 0
		for exists(pd + "/gids/" + strconv.Itoa(n)) {
			n++
		}
		rate, _ := readLine(pd + "/rate")
		speed := "25.0 Gbps (32)"
		switch {
		case strings.Contains(rate, "XDR"):
			speed = "200.0 Gbps (256)"
		case strings.Contains(rate, "NDR"):
			speed = "100.0 Gbps (128)"
		case strings.Contains(rate, "HDR"):
			speed = "50.0 Gbps (64)"
		}
		ps, ok := readLine(pd + "/phys_state")
		if !ok {
			ps = "0: unknown"
		}
		pcode, _, _ := strings.Cut(ps, ":")
		pname := map[string]string{
			"1": "SLEEP", "2": "POLLING", "3": "DISABLED", "4": "PORT_CONFIGURATION TRAINNING",
			"5": "LINK_UP", "6": "LINK_ERROR_RECOVERY", "7": "PHY TEST",
		}[pcode]
		if pname == "" {
			pname = "invalid physical state"
		}
		c.print("\t\t\tmax_msg_sz:\t\t0x40000000\n\t\t\tport_cap_flags:\t\t0x04010000\n",
			"\t\t\tport_cap_flags2:\t0x0000\n\t\t\tmax_vl_num:\t\tinvalid value (0)\n",
			"\t\t\tbad_pkey_cntr:\t\t0x0\n\t\t\tqkey_viol_cntr:\t\t0x0\n\t\t\tsm_sl:\t\t\t0\n")
		c.printf("\t\t\tpkey_tbl_len:\t\t1\n\t\t\tgid_tbl_len:\t\t%d\n", n)
		c.print("\t\t\tsubnet_timeout:\t\t0\n\t\t\tinit_type_reply:\t0\n",
			"\t\t\tactive_width:\t\t4X (2)\n\t\t\tactive_speed:\t\t", speed, "\n")
		c.printf("\t\t\tphys_state:\t\t%s (%d)\n", pname, c.printfInt(149, pcode))
		c.portGIDs(pd)
	}
	c.print("\n")
	return -1
}

// portGIDs prints the -v GID lines of port directory pd, GID[0] up to the
// first one that cannot be opened; the type's first word ("IB/RoCE v1",
// "RoCE v2") picks the format.
func (c *ctx) portGIDs(pd string) {
	for i := 0; ; i++ {
		n := strconv.Itoa(i)
		g, _, found := sysread(pd + "/gids/" + n)
		if !found {
			return
		}
		ty, _, _ := sysread(pd + "/gid_attrs/types/" + n)
		t := fields(ty)
		if g == "" || nullGID(g) || len(t) == 0 {
			continue
		}
		switch t[0] {
		case "IB/RoCE":
			c.print("\t\t\tGID[", pad(n, 3, false), "]:\t\t", g, ", RoCE v1\n")
		case "RoCE":
			c.print("\t\t\tGID[", pad(n, 3, false), "]:\t\t", ntop(g), ", RoCE v2\n")
		}
	}
}

// deviceCaps are the -v device attributes of a ConnectX-7/8.
const deviceCaps = "\tmax_mr_size:\t\t\t0xffffffffffffffff\n\tpage_size_cap:\t\t\t0xfffffffffffff000\n" +
	"\tmax_qp:\t\t\t\t131072\n\tmax_qp_wr:\t\t\t32768\n\tdevice_cap_flags:\t\t0x21361c36\n" +
	"\t\t\t\t\tBAD_PKEY_CNTR\n\t\t\t\t\tBAD_QKEY_CNTR\n\t\t\t\t\tAUTO_PATH_MIG\n\t\t\t\t\tCHANGE_PHY_PORT\n" +
	"\t\t\t\t\tPORT_ACTIVE_EVENT\n\t\t\t\t\tSYS_IMAGE_GUID\n\t\t\t\t\tRC_RNR_NAK_GEN\n\t\t\t\t\tMEM_WINDOW\n" +
	"\t\t\t\t\tUD_IP_CSUM\n\t\t\t\t\tXRC\n\t\t\t\t\tMEM_MGT_EXTENSIONS\n\t\t\t\t\tMEM_WINDOW_TYPE_2B\n" +
	"\t\t\t\t\tRAW_IP_CSUM\n\t\t\t\t\tMANAGED_FLOW_STEERING\n" +
	"\tmax_sge:\t\t\t30\n\tmax_sge_rd:\t\t\t30\n\tmax_cq:\t\t\t\t16777216\n\tmax_cqe:\t\t\t4194303\n" +
	"\tmax_mr:\t\t\t\t16777216\n\tmax_pd:\t\t\t\t8388608\n\tmax_qp_rd_atom:\t\t\t16\n" +
	"\tmax_ee_rd_atom:\t\t\t0\n\tmax_res_rd_atom:\t\t2097152\n\tmax_qp_init_rd_atom:\t\t16\n" +
	"\tmax_ee_init_rd_atom:\t\t0\n\tatomic_cap:\t\t\tATOMIC_HCA (1)\n\tmax_ee:\t\t\t\t0\n" +
	"\tmax_rdd:\t\t\t0\n\tmax_mw:\t\t\t\t16777216\n\tmax_raw_ipv6_qp:\t\t0\n\tmax_raw_ethy_qp:\t\t0\n" +
	"\tmax_mcast_grp:\t\t\t2097152\n\tmax_mcast_qp_attach:\t\t240\n\tmax_total_mcast_qp_attach:\t503316480\n" +
	"\tmax_ah:\t\t\t\t2147483647\n\tmax_fmr:\t\t\t0\n\tmax_srq:\t\t\t8388608\n" +
	"\tmax_srq_wr:\t\t\t32767\n\tmax_srq_sge:\t\t\t31\n\tmax_pkeys:\t\t\t128\n" +
	"\tlocal_ca_ack_delay:\t\t16\n\tgeneral_odp_caps:\n\t\t\t\t\tODP_SUPPORT\n\t\t\t\t\tODP_SUPPORT_IMPLICIT\n" +
	"\trc_odp_caps:\n\t\t\t\t\tSUPPORT_SEND\n\t\t\t\t\tSUPPORT_RECV\n\t\t\t\t\tSUPPORT_WRITE\n\t\t\t\t\tSUPPORT_READ\n\t\t\t\t\tSUPPORT_SRQ\n" +
	"\tuc_odp_caps:\n\t\t\t\t\tNO SUPPORT\n\tud_odp_caps:\n\t\t\t\t\tSUPPORT_SEND\n" +
	"\txrc_odp_caps:\n\t\t\t\t\tSUPPORT_SEND\n\t\t\t\t\tSUPPORT_WRITE\n\t\t\t\t\tSUPPORT_READ\n\t\t\t\t\tSUPPORT_SRQ\n" +
	"\tcompletion timestamp_mask:\t\t\t0x7fffffffffffffff\n\thca_core_clock:\t\t\t156250kHZ\n" +
	"\tdevice_cap_flags_ex:\t\t0x1521361C36\n\t\t\t\t\tPCI_WRITE_END_PADDING\n" +
	"\ttso_caps:\n\t\tmax_tso:\t\t\t262144\n\t\tsupported_qp:\n\t\t\t\t\tSUPPORT_RAW_PACKET\n" +
	"\trss_caps:\n\t\tmax_rwq_indirection_tables:\t\t\t65536\n\t\tmax_rwq_indirection_table_size:\t\t\t2048\n" +
	"\t\trx_hash_function:\t\t\t\t0x1\n\t\trx_hash_fields_mask:\t\t\t\t0x800000FF\n" +
	"\t\tsupported_qp:\n\t\t\t\t\tSUPPORT_RAW_PACKET\n\tmax_wq_type_rq:\t\t\t8388608\n" +
	"\tpacket_pacing_caps:\n\t\tqp_rate_limit_min:\t1kbps\n\t\tqp_rate_limit_max:\t800000000kbps\n" +
	"\t\tsupported_qp:\n\t\t\t\t\tSUPPORT_RAW_PACKET\n\ttag matching not supported\n" +
	"\n\tcq moderation caps:\n\t\tmax_cq_count:\t65535\n\t\tmax_cq_period:\t4095 us\n\n" +
	"\tmaximum available device memory:\t131072Bytes\n\n\tnum_comp_vectors:\t\t63\n"
