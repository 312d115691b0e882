// Command geoalign is the command-line face of the geoalign library: retrieval metrics,
// dataset building, table reproduction, training and evaluation on one's own features, without
// Jupyter.
//
//	geoalign version                 backend, SIMD, Go runtime and (under XLA) the PJRT plugin in use
//	geoalign train <model> -h        train hlformer, gare, gram or hypergram on your features (train*.go)
//	geoalign eval --run RUNDIR       score a trained run: geoalign metrics' JSON (eval.go)
//	geoalign sweep <model> --grid …  a grid of configurations × seeds as train runs, one table (sweep.go)
//	geoalign encode text --model minilm IN.txt OUT.npy
//	                                 your sentences → pretrained MiniLM features (encode.go)
//	geoalign <command> -h            help for one command
//
// Every subcommand lives in its own file and registers itself in init with register.
//
// Exit codes, the same for every command:
//
//	0  success, and help (geoalign -h, geoalign <command> -h)
//	1  failure while running (training, writing results)
//	2  bad usage (unknown command, flag or value; GOMLX_BACKEND unset, unknown or unusable;
//	   GEOALIGN_SHARED not a directory) or bad input:
//	   missing, truncated or corrupt data, with a message naming the file and field
//	   (lib/data.InputError); nothing is written
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/geoalign/geoalign/lib/backend"
	"github.com/geoalign/geoalign/lib/data"
	"github.com/geoalign/geoalign/lib/data/tracks"
	"github.com/geoalign/geoalign/lib/reproduce"
)

// Exit codes (see the package documentation).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// command is one subcommand: run receives the arguments after the command name and returns
// the process exit code.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string, stdout, stderr io.Writer) int) {
	if _, dup := commands[name]; dup {
		panic("geoalign: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: geoalign <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nexit codes: 0 success or help, 1 failure while running, 2 bad usage or bad input")
}

func main() {
	reproduce.GitCommit() // the commit of the code that runs, before a long run's checkout moves on
	if w := simdWarning(backend.SIMD, os.Getenv("GOMLX_BACKEND")); w != "" {
		fmt.Fprintln(os.Stderr, w)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// simdWarning is the warning of a binary built without GOEXPERIMENT=simd (simd false) that runs
// on GoMLX's pure-Go backend (config, GOMLX_BACKEND, is "go…"); "" otherwise. Such a binary works
// and computes the same models, only its kernels run without SIMD.
func simdWarning(simd bool, config string) string {
	if simd || !strings.HasPrefix(config, "go") {
		return ""
	}
	return "geoalign: warning: built without GOEXPERIMENT=simd: the pure-Go backend runs without its SIMD kernels, " +
		"15-35x slower (results are computed the same way); rebuild with GOEXPERIMENT=simd (the Makefile sets it)"
}

// run is the whole program: it dispatches args to a command and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stderr)
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "geoalign: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	if err := tracks.CheckSharedEnv(); err != nil { // every command that reads data finds it through GEOALIGN_SHARED
		fmt.Fprintf(stderr, "geoalign %s: %v\n", args[0], err)
		return exitUsage
	}
	return cmd.run(args[1:], stdout, stderr)
}

// parseFlags parses args with fs, whose messages go to stderr. ok is false when the command
// must stop and return code: exitOK after -h, exitUsage after a bad flag or a stray argument.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "geoalign %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage, false
	}
	return exitOK, true
}

// newFlagSet returns the flag set of `geoalign <name>` (parse it with parseFlags). Given usage
// lines, -h prints them on stderr before the flags; without, flag's own "Usage of <name>:".
func newFlagSet(name string, stderr io.Writer, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	if len(usage) > 0 {
		fs.Usage = func() {
			for _, line := range usage {
				fmt.Fprintln(stderr, line)
			}
			fs.PrintDefaults()
		}
	}
	return fs
}

// failWith returns the error exit of `geoalign <name>` for a code the command chooses (fail below
// derives it from the error): it prints "geoalign <name>: " and the message on stderr and returns
// code.
func failWith(stderr io.Writer, name string) func(code int, format string, a ...any) int {
	return func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "geoalign "+name+": "+format+"\n", a...)
		return code
	}
}

// checkBackend makes sure GOMLX_BACKEND names a usable backend before a command starts work (the
// backend is shared by the whole process, so this costs nothing later): an unset or unusable one
// is bad usage, exit 2, rather than a panic deep inside a run.
func checkBackend(stderr io.Writer, name string) (code int, ok bool) {
	if _, err := backend.New(); err != nil {
		fmt.Fprintf(stderr, "geoalign %s: %v\n", name, err)
		return exitUsage, false
	}
	return exitOK, true
}

// fail prints err after the command's name and returns its exit code: exitUsage for bad input
// (data.IsBadInput), exitFailure otherwise.
func fail(stderr io.Writer, name string, err error) int {
	fmt.Fprintf(stderr, "geoalign %s: %v\n", name, err)
	if data.IsBadInput(err) {
		return exitUsage
	}
	return exitFailure
}
