package standin

import "strings"

// ibdev2netdev imitates OFED's ibdev2netdev (ofed-scripts): "<dev> port <n>
// ==> <netdev> (Up|Down)" from the netdev's carrier; -v adds PCI address,
// part number, description, firmware and port state.
func ibdev2netdev(c *ctx, args []string) int {
	if !c.requireOFED("ibdev2netdev") {
		return 127
	}
	verbose := false
	if len(args) > 0 {
		switch args[0] {
		case "-v":
			verbose = true
		case "":
		default:
			c.errf("Usage: ibdev2netdev [-v]\n")
			return 1
		}
	}
	for _, d := range c.rdmaDevs() {
		cd := c.sys + "/class/infiniband/" + d
		nd, _ := c.netdev(d)
		for _, p := range globExisting(cd + "/ports") {
			pd := cd + "/ports/" + p
			carrier, _ := readLine(c.sys + "/class/net/" + nd + "/carrier")
			link := "NA"
			switch carrier {
			case "1":
				link = "Up"
			case "0":
				link = "Down"
			}
			if !verbose {
				c.print(d, " port ", p, " ==> ", nd, " (", link, ")\n")
				continue
			}
			b := c.bdf(d)
			dv, _ := readLine(c.sys + "/bus/pci/devices/" + b + "/device")
			part := itoa(c.printfInt(32, dv))
			st, ok := readLine(pd + "/state")
			if !ok {
				st = "0: UNKNOWN"
			}
			if _, after, found := strings.Cut(st, ": "); found {
				st = after
			}
			fw, _ := readLine(cd + "/fw_ver")
			c.print(b, " ", d, " (MT", part, " - ", c.get("TWIN_NIC_PART"), ") ", c.get("TWIN_NIC_DESC"),
				" fw ", fw, " port ", p, " (", pad(st, 6, true), ") ==> ", nd, " (", link, ")\n")
		}
	}
	return 0
}
