package host_test

import (
	"context"
	"fmt"
	"log"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/host/tasks"
)

// Plan and apply two tasks on a GPU host: nvidia_peermem loaded now and at
// boot, and an NCCL environment file.
func ExampleEngine() {
	pool, err := ssh.NewPool(ssh.Config{User: "root", PrivateKeyFile: "/home/ops/.ssh/id_ed25519"})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	eng := host.Engine{Runner: host.SSH(pool.Client("gpu-node-0.example.net"))}
	work := []host.Task{
		tasks.ModuleLoaded{Module: "nvidia_peermem", Persist: true},
		tasks.File{Path: "/etc/nccl.conf", Content: "NCCL_IB_HCA==mlx5_0\n", Mode: 0o644},
	}
	ctx := context.Background()
	plan, err := eng.Plan(ctx, work) // check mode: one round trip, no change
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(plan)
	if _, err := eng.Apply(ctx, work); err != nil {
		log.Fatal(err) // a *host.TaskError, *host.GatherError or *host.NotConvergedError
	}
}

// Read everything roce_host_facts shows, in one remote command.
func ExampleGather() {
	pool, err := ssh.NewPool(ssh.Config{User: "root", PrivateKeyFile: "/home/ops/.ssh/id_ed25519"})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	f, err := host.Gather(context.Background(), host.SSH(pool.Client("gpu-node-0.example.net")), host.AllFacts())
	if err != nil {
		log.Fatal(err)
	}
	for _, nic := range f.NICs() {
		idx, _ := f.GIDIndex(nic.Device)
		fmt.Println(nic.Device, nic.Netdev, nic.PortState, "GID index", idx)
	}
	for fact, why := range f.Absent {
		fmt.Println("absent:", fact, why)
	}
}
