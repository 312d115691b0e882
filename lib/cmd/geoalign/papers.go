package main

// The experiments `reproduce` and `figures` run: each study package registers its paper with
// lib/reproduce when it is linked in.
import (
	_ "github.com/geoalign/geoalign/lib/studies/garestudy"
	_ "github.com/geoalign/geoalign/lib/studies/gramstudy"
	_ "github.com/geoalign/geoalign/lib/studies/grid"
	_ "github.com/geoalign/geoalign/lib/studies/hlformerstudy"
)
