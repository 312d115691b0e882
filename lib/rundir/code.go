package rundir

import (
	"os/exec"
	"strings"
	"sync"
)

// GitCommit is the checkout's HEAD commit (with "+dirty" when there are uncommitted changes),
// or "unknown" outside a git checkout, as it was when the process first asked: a command calls it
// when it starts, so that results written hours later name the code that ran, not a checkout that
// has moved on meanwhile. Record.Code holds it.
func GitCommit() string { return gitCommit() }

var gitCommit = sync.OnceValue(func() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
})
