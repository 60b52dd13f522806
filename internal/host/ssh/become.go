package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// SudoCommand returns cmd decorated to run through sudo as user (root when
// empty), in a POSIX shell:
//
//	sudo -n -- sh -c '<cmd>'
//	sudo -S -p '' -- sh -c '<cmd>'     (password: written to stdin first)
//
// The password itself is never part of the command line. It fails when cmd
// contains a NUL byte.
func SudoCommand(cmd, user string, password bool) (string, error) {
	return shell.Sudo(shell.New("sh", "-c", cmd), shell.SudoOptions{User: user, Password: password}).Render()
}

// sudo decorates cmd with sudo according to Config.Become and returns the
// command line and the standard input to send (the password line, then
// stdin).
//
// sudo -S reads the password only when it needs one: where sudoers says
// NOPASSWD the password line would stay on stdin and reach the command (and,
// for WriteFile, the file). So before the first sudo command with a password
// on a host, the client checks once whether "sudo -n true" succeeds there; if
// it does, the password is not sent at all.
func (c *Client) sudo(ctx context.Context, hs *hostState, cmd string, stdin io.Reader) (string, io.Reader, error) {
	b := c.pool.cfg.Become
	withPassword := b.Password != ""
	if withPassword {
		noPW, err := c.sudoWithoutPassword(ctx, hs)
		if err != nil {
			return "", nil, err
		}
		withPassword = !noPW
	}
	line, err := SudoCommand(cmd, b.User, withPassword)
	if err != nil {
		return "", nil, fmt.Errorf("sudo command for %s: %w", hs.ep.addr, err)
	}
	if !withPassword {
		return line, stdin, nil
	}
	pw := strings.NewReader(b.Password + "\n")
	if stdin == nil {
		return line, pw, nil
	}
	return line, io.MultiReader(pw, stdin), nil
}

// sudoWithoutPassword reports whether sudo runs without a password on the
// host, asking it once per pool.
func (c *Client) sudoWithoutPassword(ctx context.Context, hs *hostState) (bool, error) {
	if err := hs.sudoLock.lock(ctx); err != nil {
		return false, fmt.Errorf("sudo on %s: %w", hs.ep.addr, err)
	}
	defer hs.sudoLock.unlock()
	if hs.sudoKnown {
		return hs.sudoNoPW, nil
	}
	probe, err := shell.Sudo(shell.New("true"), shell.SudoOptions{User: c.pool.cfg.Become.User}).Render()
	if err != nil {
		return false, err
	}
	_, err = c.exec(ctx, hs, probe, nil)
	var ce *CommandError
	switch {
	case err == nil:
		hs.sudoKnown, hs.sudoNoPW = true, true
	case errors.As(err, &ce) && ce.ExitStatus > 0:
		hs.sudoKnown, hs.sudoNoPW = true, false
	default:
		return false, err
	}
	return hs.sudoNoPW, nil
}
