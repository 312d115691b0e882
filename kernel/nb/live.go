package nb

import (
	"github.com/geoalign/geoalign/lib/report"
	"github.com/janpfeifer/gonb/gonbui"
)

// Live is a figure redrawn in place while a loop runs — the loss curve of live training steps,
// next to a Progress bar:
//
//	live := nb.NewLive()
//	for i := range steps {
//		...
//		live.Update(curve(losses))  // replaces the previous drawing
//	}
//	live.Done(curve(losses), "")    // the final figure, shown (and saved) as Plot does
//
// The drawings during the loop are transient, as the progress bar is: what stays in the
// notebook (and in its HTML export) is the figure Done shows.
type Live struct {
	id string
}

// NewLive starts a live figure; nothing is shown until the first Update.
func NewLive() *Live {
	l := &Live{}
	if gonbui.IsNotebook {
		l.id = "live_" + gonbui.UniqueID()
	}
	return l
}

// Update redraws the figure in place (outside a notebook it does nothing).
func (l *Live) Update(d report.Drawer) {
	if l.id == "" {
		return
	}
	fig := Must1(report.Render(d, 0, 0))
	gonbui.UpdateHTML(l.id, "<div>"+string(fig.SVG)+"</div>")
	flush()
}

// Done removes the transient drawing and shows the final figure with Plot (saved as
// <OutDir>/<name>.{png,svg} when name is not empty).
func (l *Live) Done(d report.Drawer, name string) {
	if l.id != "" {
		gonbui.UpdateHTML(l.id, "")
	}
	Plot(d, name)
}
