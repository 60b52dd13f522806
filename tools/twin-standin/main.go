// Command twin-standin is the host twin's multi-call binary of stand-in tools
// (package standin): like busybox it runs the tool its name says, so the base
// layer links /usr/local/sbin/show_gids and the others to it.
package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/standin"
)

func main() {
	name := filepath.Base(os.Args[0])
	os.Exit(standin.Run(name, scriptPath(os.Args[0]), os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}

// scriptPath is what $0 was in the script this tool replaced: the path the
// kernel ran it by, i.e. argv[0] when it has a slash, else the first match
// on PATH, as the calling shell found it.
func scriptPath(arg0 string) string {
	if strings.Contains(arg0, "/") {
		return arg0
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			dir = "."
		}
		p := dir + "/" + arg0
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return arg0
}
