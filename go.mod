module github.com/geoalign/geoalign

go 1.27.0

require (
	github.com/gomlx/compute v0.1.14
	github.com/gomlx/gomlx v0.28.16
)

require (
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/gofrs/flock v0.13.0 // indirect
	github.com/gomlx/compute-onnx v0.1.13 // indirect
	github.com/gomlx/go-xla v0.4.13 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/exp v0.0.0-20260908205506-85c1c2202aba // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/term v0.40.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
)
