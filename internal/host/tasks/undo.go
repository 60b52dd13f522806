package tasks

import "github.com/clusterbid/terraform-provider-roce/internal/shell"

// Undo returns the commands that take the pin away when its resource is destroyed: the apt
// source and preferences and the holds (on RHEL the dnf repository and version locks). The
// packages stay installed: removing the RDMA stack of a GPU node is a decision for a person.
// With the family left to the host, Undo takes away both families' files and locks, each
// step tolerating the other family's missing tools, so destroying needs no gather.
func (t OFEDPin) Undo() []shell.Runnable {
	pkgs := t.packages()
	switch t.family() {
	case FamilyAuto:
		rhel, deb := t, t
		rhel.Family, deb.Family = FamilyRHEL, FamilyDebian
		return append(deb.Undo(), rhel.Undo()...)
	case FamilyRHEL:
		return []shell.Runnable{
			shell.Or(t.dnfWaiting(append([]string{"-q", "versionlock", "delete"}, pkgs...)...), shell.New("true")),
			shell.New("rm", "-f", "--", DnfRepoPath),
		}
	}
	return []shell.Runnable{
		shell.Or(shell.New("apt-mark", append([]string{"unhold"}, pkgs...)...).With(shell.Discard(1)), shell.New("true")),
		shell.New("rm", "-f", "--", AptSourcePath, AptPreferencesPath, AptAuthPath),
	}
}

// Undo returns the commands that stop loading the module at boot; the loaded module stays.
func (t ModuleLoaded) Undo() []shell.Runnable {
	return []shell.Runnable{shell.New("rm", "-f", "--", t.confPath())}
}
