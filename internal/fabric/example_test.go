package fabric_test

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

func ExampleToS() {
	tos, err := fabric.ToS(26, 2) // DSCP 26 (AF31) with ECT(0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("NCCL_IB_TC =", tos)

	_, err = fabric.ToS(64, 2)
	fmt.Println(err)
	// Output:
	// NCCL_IB_TC = 106
	// dscp 64 is out of range: use 0..63
}

func ExampleComputeHeadroom() {
	port := fabric.Port{SpeedGbps: 800, CableLengthM: 40, MTU: 9100}
	h, err := fabric.ComputeHeadroom(port, fabric.WorstCasePattern(), fabric.HeadroomModel{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("xon %d B, xoff %d B, size %d B\n", h.XonBytes, h.XoffBytes, h.SizeBytes)

	sn5600, _ := fabric.LookupPlatform("SN5600")
	// A caller names the rules' fields as its users know them; GoNames uses the Go names.
	for _, v := range fabric.CheckCapacity(sn5600, h.SizeBytes, 256) {
		fmt.Println(v.Line(violation.GoNames))
	}
	// Output:
	// xon 38912 B, xoff 362496 B, size 410624 B
	// error: Capacity.Ports: Lossless Buffer Exhausted: 256 ports x 410624 B = 105119744 B exceeds the SN5600 ingress lossless pool of 67737959 B: reserve at most 264601 B per port or use fewer lossless ports
}

func ExampleRenderNCCLConf() {
	conf, err := fabric.RenderNCCLConf([]fabric.NCCLSetting{
		{Name: "NCCL_IB_HCA", Value: "=mlx5_0,mlx5_1"},
		{Name: "NCCL_IB_TC", Value: "106"},
	}, "2.26.2", "managed by terraform-provider-roce")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(conf)
	// Output:
	// # managed by terraform-provider-roce
	// NCCL_IB_HCA==mlx5_0,mlx5_1
	// NCCL_IB_TC=106
}
