package facts_test

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

func ExampleParseOFEDInfo() {
	for _, out := range []string{
		"MLNX_OFED_LINUX-24.10-3.2.5.0:\n",
		"OFED-internal-25.10-1.7.1:\n",
		"bash: line 1: ofed_info: command not found\n",
	} {
		info, err := facts.ParseOFEDInfo(out)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Printf("%s %q\n", info.Flavor, info.Version)
	}
	// Output:
	// mlnx "24.10-3.2.5.0"
	// doca "25.10-1.7.1"
	// inbox ""
}

func ExampleRoCEv2IPv4Index() {
	out := "mlx5_0\t1\t2\t2001:0db8:0000:0000:0000:0000:0000:0021\tRoCE v2\tens1f0np0\n" +
		"mlx5_0\t1\t4\t0000:0000:0000:0000:0000:ffff:0a0c:0015\tIB/RoCE v1\tens1f0np0\n" +
		"mlx5_0\t1\t5\t0000:0000:0000:0000:0000:ffff:0a0c:0015\tRoCE v2\tens1f0np0\n"
	entries, err := facts.ParseGIDTable(out)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	idx, ok := facts.RoCEv2IPv4Index(entries, "mlx5_0")
	fmt.Println(idx, ok, entries[2].IP())
	// Output:
	// 5 true 10.12.0.21
}

func ExampleTopology_BestNIC() {
	out := "\x1b[4m\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n" +
		"GPU0\t X \tNV18\tPIX\tSYS\t0-47\t0\t\tN/A\n" +
		"GPU1\tNV18\t X \tSYS\tPXB\t48-95\t1\t\tN/A\n" +
		"NIC0\tPIX\tSYS\t X \tSYS\n" +
		"NIC1\tSYS\tPXB\tSYS\t X \n\n" +
		"NIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n"
	topo, err := facts.ParseTopo(out)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, gpu := range topo.GPUs {
		dev, link, _ := topo.BestNIC(gpu)
		fmt.Println(gpu, dev, link)
	}
	// Output:
	// GPU0 mlx5_0 PIX
	// GPU1 mlx5_1 PXB
}

func ExampleProbe() {
	p := facts.LsmodProbe
	fmt.Println(p.Name, "runs:", p.Command)
	mods, err := p.Parse("Module                  Size  Used by\nnvidia_peermem         16384  0\n")
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(len(mods), "module")
	// Output:
	// lsmod runs: lsmod
	// 1 module
}

func ExampleECNTreeScript() {
	s, err := facts.ECNTreeScript("ens1f0np0")
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(s)
	// Output:
	// r_=/sys/class/net; for i in ens1f0np0; do e=$r_/$i/ecn; for s in rp np; do d=$e/roce_$s; for f in "$d"/* "$d"/enable/*; do [ -f "$f" ] || continue; { read -r v <"$f"; } 2>/dev/null || continue; printf '%s %s %s %s\n' "$i" "$s" "${f#"$d"/}" "$v"; done; done; done
}
