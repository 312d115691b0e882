// Command geoalign is the command-line face of the geoalign library: retrieval metrics,
// dataset building, table reproduction, training and evaluation on one's own features, without
// Jupyter.
//
//	geoalign version                 backend, SIMD and Go runtime in use
//	geoalign train <model> -h        train hlformer, gare, gram or hypergram on your features (train*.go)
//	geoalign eval --run RUNDIR       score a trained run: geoalign metrics' JSON (eval.go)
//	geoalign <command> -h            help for one command
//
// Every subcommand lives in its own file and registers itself in init with register.
// Exit codes: 0 success, 1 failure while running, 2 bad usage or bad input.
package main

import (
	"fmt"
	"os"
	"sort"
)

// command is one subcommand: run receives the arguments after the command name and
// returns the process exit code.
type command struct {
	summary string
	run     func(args []string) int
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string) int) {
	if _, dup := commands[name]; dup {
		panic("geoalign: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: geoalign <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-12s %s\n", n, commands[n].summary)
	}
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	cmd, ok := commands[os.Args[1]]
	if !ok {
		if os.Args[1] != "-h" && os.Args[1] != "--help" && os.Args[1] != "help" {
			fmt.Fprintf(os.Stderr, "geoalign: unknown command %q\n", os.Args[1])
		}
		usage()
		os.Exit(2)
	}
	os.Exit(cmd.run(os.Args[2:]))
}
