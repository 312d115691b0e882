module github.com/geoalign/geoalign

go 1.27.0

require (
	github.com/go-audio/wav v1.1.0
	github.com/gofrs/flock v0.13.0
	github.com/gomlx/compute v0.1.14
	github.com/gomlx/gomlx v0.28.16
	github.com/janpfeifer/gonb v0.11.5
	github.com/nlpodyssey/safetensors v0.0.0-20250209183917-bfb01cc25f7c
	golang.org/x/sys v0.48.0
	golang.org/x/text v0.35.0
	gonum.org/v1/gonum v0.16.0
	gonum.org/v1/plot v0.15.2
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.1.0 // indirect
	codeberg.org/go-pdf/fpdf v0.10.0 // indirect
	git.sr.ht/~sbinet/gg v0.6.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/campoy/embedmd v1.0.0 // indirect
	github.com/go-audio/audio v1.0.0 // indirect
	github.com/go-audio/riff v1.0.0 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/gofrs/uuid v4.4.0+incompatible // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/gomlx/compute-onnx v0.1.13 // indirect
	github.com/gomlx/go-xla v0.4.13 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/pmezard/go-difflib v1.0.1-0.20181226105442-5d4384ee4fb2 // indirect
	golang.org/x/exp v0.0.0-20260908205506-85c1c2202aba // indirect
	golang.org/x/image v0.26.0 // indirect
	golang.org/x/term v0.40.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
)
