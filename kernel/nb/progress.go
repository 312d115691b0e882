package nb

import (
	"fmt"
	"time"

	"github.com/geoalign/geoalign/lib/progress"
	"github.com/janpfeifer/gonb/gonbui"
)

// In a notebook, every lib/progress bar — the library's training and evaluation loops, and
// Progress below — is drawn as an HTML line that updates in place.
func init() {
	if gonbui.IsNotebook {
		progress.SetDefault(notebookSink{})
	}
}

// Progress starts a progress bar of total steps for a loop in a cell (lib/progress.New):
//
//	bar := nb.Progress("steps", 5)
//	for i := range 5 { ...; bar.Add(1, fmt.Sprintf("loss %.3f", l)) }
//	bar.Done()
func Progress(label string, total int) *progress.Bar {
	return progress.New(label, total)
}

// notebookSink shows lib/progress bars as one updating HTML line per bar.
type notebookSink struct{}

var barIDs = map[string]string{}

func (notebookSink) Update(label string, current, total int, elapsed time.Duration, detail string, done bool) {
	id, ok := barIDs[label]
	if !ok {
		id = "progress_" + gonbui.UniqueID()
		barIDs[label] = id
	}
	line := progress.Line(label, current, total, elapsed, detail)
	if done {
		gonbui.UpdateHTML(id, "") // the transient bar disappears; the final state stays as text
		delete(barIDs, label)
		fmt.Println(line)
		return
	}
	bar := ""
	if total > 0 {
		bar = fmt.Sprintf(`<progress value="%d" max="%d" style="width:20em"></progress> `, current, total)
	}
	gonbui.UpdateHTML(id, fmt.Sprintf(`<div style="font-family:monospace">%s%s</div>`, bar, line))
}
