package main

import "github.com/geoalign/geoalign/lib/runner"

// The tests' names for what package lib/runner holds since it left package main.
const (
	configFile = runner.ConfigFile
	curvesFile = runner.CurvesFile
)

type (
	runSpec       = runner.Spec
	historyRecord = runner.Epoch
)

var (
	readSpec    = runner.ReadSpec
	readHistory = runner.ReadHistory
	bestRecord  = runner.Best
)
