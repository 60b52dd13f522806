package ssh_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

func ExampleSudoCommand() {
	line, err := ssh.SudoCommand("modprobe nvidia-peermem && echo ok", "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(line)
	// Output: sudo -n -- sh -c 'modprobe nvidia-peermem && echo ok'
}

func ExamplePool() {
	pool, err := ssh.NewPool(ssh.Config{
		User:           "ubuntu",
		PrivateKeyFile: "/home/ops/.ssh/id_ed25519",
		Jumps:          []ssh.Hop{{Address: "bastion.example.com", PrivateKeyFile: "/home/ops/.ssh/bastion_ed25519"}},
		Become:         ssh.Become{Password: "from a sensitive attribute"},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	host := pool.Client("gpu-01.example.com")
	res, err := host.Run(ctx, "ofed_info -s", ssh.RunOptions{})
	if err != nil {
		log.Fatal(err) // a *ssh.CommandError or *ssh.ConnectError
	}
	fmt.Printf("%s", res.Stdout)
	err = host.WriteFile(ctx, "/etc/nccl.conf", []byte("NCCL_IB_HCA==mlx5_0\n"), 0o644, "root:root", true)
	if err != nil {
		log.Fatal(err)
	}
}
