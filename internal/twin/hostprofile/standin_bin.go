package hostprofile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// StandInEnv names a prebuilt twin-standin binary that BuildBase installs as
// is instead of building one.
const StandInEnv = "ROCE_TWIN_STANDIN"

type standInBin struct{ content, hash string }

var (
	standInOnce sync.Once
	standInVal  standInBin
	standInErr  error
)

// standInBinary returns the Go stand-in binary: $ROCE_TWIN_STANDIN, or
// "go build ./tools/twin-standin" run once per process in the module source
// this file was compiled from (tests and the tools in ./bin run from that
// checkout).
func standInBinary() (standInBin, error) {
	standInOnce.Do(func() {
		var b []byte
		if p := os.Getenv(StandInEnv); p != "" {
			b, standInErr = os.ReadFile(p)
			if standInErr != nil {
				standInErr = fmt.Errorf("%s: %w", StandInEnv, standInErr)
				return
			}
		} else if b, standInErr = buildStandIn(); standInErr != nil {
			standInErr = fmt.Errorf("the host twin builds its stand-in tools from the module source with go build (or set %s to a prebuilt twin-standin): %w", StandInEnv, standInErr)
			return
		}
		sum := sha256.Sum256(b)
		standInVal = standInBin{content: string(b), hash: hex.EncodeToString(sum[:])}
	})
	return standInVal, standInErr
}

// buildStandIn builds tools/twin-standin, static (CGO_ENABLED=0) for this
// machine, and returns the executable.
func buildStandIn() ([]byte, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "twin-standin-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "twin-standin")
	cmd := exec.Command(gobin, "build", "-trimpath", "-ldflags=-s -w", "-o", out, "./tools/twin-standin")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("in %s: %w\n%s", root, err, msg)
	}
	return os.ReadFile(out)
}

// moduleRoot is the directory holding go.mod above this source file.
func moduleRoot() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", errors.New("no source path compiled in")
	}
	for dir := filepath.Dir(file); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "tools", "twin-standin", "main.go")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return dir, nil
			}
		}
		if dir == filepath.Dir(dir) {
			return "", fmt.Errorf("no module source with tools/twin-standin above %s", file)
		}
	}
}
