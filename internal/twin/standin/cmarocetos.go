package standin

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// cmaRoceTos imitates mlnx-tools' cma_roce_tos (OFED only): sets and prints
// the default ToS of RDMA-CM connections per device port. The value lives in
// $TWIN_RUN/rdma_cm, so it is lost on reboot like the kernel's.
func cmaRoceTos(c *ctx, args []string) int {
	if !c.requireOFED("cma_roce_tos") {
		return 127
	}
	device, port, mode := "mlx5_0", "1", "-1"
	// getopts "d:t:hp:" as dash runs it.
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		args = args[1:]
		for i := 1; i < len(a); i++ {
			opt := a[i]
			switch opt {
			case 'h':
				c.print("Set/Show RoCE default ToS of RDMA_CM applications\n\nUsage:\n\tcma_roce_tos OPTIONS\n",
					"Options:\n\t-h              show this help\n",
					"\t-d <dev>        use IB device <dev> (default mlx5_0)\n",
					"\t-p <port>       use port <port> of IB device (default 1)\n",
					"\t-t <tos>        set ToS of RoCE RDMA_CM applications (0)\n")
				return 0
			case 'd', 'p', 't':
				var val string
				switch {
				case i+1 < len(a):
					val = a[i+1:]
				case len(args) > 0:
					val, args = args[0], args[1:]
				default:
					c.errf("No arg for -%c option\n", opt)
					i = len(a)
					continue
				}
				i = len(a)
				switch opt {
				case 'd':
					device = val
				case 'p':
					port = val
				default:
					mode = val
				}
			default:
				c.errf("Illegal option -%c\n", opt)
			}
		}
	}
	ib := c.sys + "/class/infiniband/" + device
	if !isDir(ib + "/ports/" + port) {
		if !isDir(ib) {
			c.print(echo("Failed to create configuration for " + device))
		} else {
			c.print(echo("Device " + device + " port " + port + " does not exist"))
		}
		return 1
	}
	f := c.run + "/rdma_cm/" + device + "/ports/" + port + "/default_roce_tos"
	if v, ok := c.testInt(35, mode, true); ok && v >= 0 {
		if v > 255 {
			c.errf("sh: echo: I/O error\n")
			return 1
		}
		dir := f[:strings.LastIndexByte(f, '/')]
		if err := os.MkdirAll(dir, 0o777); err != nil {
			p := dir
			var pe *fs.PathError
			if errors.As(err, &pe) {
				p = pe.Path
			}
			c.errf("mkdir: cannot create directory '%s': %s\n", p, errText(err))
		}
		if err := os.WriteFile(f, []byte(echo(mode)), 0o666); err != nil {
			msg := errText(err)
			if errors.Is(err, fs.ErrNotExist) {
				msg = "Directory nonexistent"
			}
			c.shErr(41, "cannot create "+f+": "+msg)
		}
	}
	if v, ok := readLine(f); ok {
		c.print(v, "\n")
	} else {
		c.print("0\n")
	}
	return 0
}
