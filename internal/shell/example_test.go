package shell_test

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

func ExampleQuote() {
	fmt.Println(shell.Quote("mlx5_0"))
	fmt.Println(shell.Quote("it's $(here)"))
	fmt.Println(shell.Quote(""))
	// Output:
	// mlx5_0
	// 'it'\''s $(here)'
	// ''
}

func ExampleCommand_Render() {
	cmd := shell.New("mlnx_qos", "-i", "ens1f0np0").Arg("--pfc", "0,0,0,1,0,0,0,0")
	line, err := cmd.Render()
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(line)
	// Output:
	// mlnx_qos -i ens1f0np0 --pfc 0,0,0,1,0,0,0,0
}

func ExampleCommand_Render_nul() {
	_, err := shell.New("echo", "a\x00b").Render()
	fmt.Println(err)
	// Output:
	// argument 1 of echo: contains a NUL byte
}

func ExampleCommand_Env() {
	cmd := shell.New("all_reduce_perf", "-b", "8").
		Env("NCCL_DEBUG", "INFO").
		Env("NCCL_DEBUG_SUBSYS", "INIT,NET")
	fmt.Println(cmd)
	// Output:
	// NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET all_reduce_perf -b 8
}

func ExampleSudo() {
	load := shell.New("modprobe", "nvidia-peermem")
	fmt.Println(shell.Sudo(load, shell.SudoOptions{}))
	// The password goes to the session's stdin when the prompt appears, never to the line.
	fmt.Println(shell.Sudo(load, shell.SudoOptions{Prompt: "[sudo 7Q] password:"}))
	// Output:
	// sudo -n -- modprobe nvidia-peermem
	// sudo -S -p '[sudo 7Q] password:' -- modprobe nvidia-peermem
}

func ExamplePipe() {
	s := shell.Pipe(shell.New("lsmod"), shell.New("grep", "-w", "nvidia_peermem"))
	fmt.Println(s)
	// Output:
	// lsmod | grep -w nvidia_peermem
}

func ExampleOr() {
	s := shell.Or(shell.New("ofed_info", "-s").With(shell.Discard(2)), shell.New("true"))
	fmt.Println(s)
	// Output:
	// ofed_info -s 2>/dev/null || true
}

func ExampleSh() {
	script := shell.And(shell.New("test", "-d", "/sys/kernel/debug/mlx5"), shell.New("ls", "/sys/kernel/debug/mlx5"))
	fmt.Println(shell.Sudo(shell.Sh(script), shell.SudoOptions{}))
	// Output:
	// sudo -n -- sh -c 'test -d /sys/kernel/debug/mlx5 && ls /sys/kernel/debug/mlx5'
}
