//go:build !linux

package hostprofile

import "errors"

var errNotLinux = errors.New("host twin layers need Linux")

func lockDir(string) (func(), error) { return nil, errNotLinux }

func setOpaque(string) error { return errNotLinux }

func makeWhiteout(string) error { return errNotLinux }
