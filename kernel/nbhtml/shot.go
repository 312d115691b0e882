package main

import (
	"fmt"
	"math"
	"time"
)

// maxShotPixels bounds a screenshot's height: a longer page is captured scaled down to it
// (Skia's raster surfaces stop at 2^15 pixels a side; the longest notebook is about 25,000 CSS
// pixels at 1,100 wide).
const maxShotPixels = 30000

// screenshot loads url in a new tab width CSS pixels wide and returns a PNG of the whole page
// (not only the window) and the page's height in CSS pixels.
func (b *browser) screenshot(url string, width int, timeout time.Duration) (png []byte, height int, err error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target, timeout); err != nil {
		return nil, 0, err
	}
	defer b.call("", "Target.closeTarget", map[string]any{"targetId": target.TargetID}, nil, timeout)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached, timeout); err != nil {
		return nil, 0, err
	}
	s := attached.SessionID
	viewport := func(h int) error {
		return b.call(s, "Emulation.setDeviceMetricsOverride",
			map[string]any{"width": width, "height": h, "deviceScaleFactor": 1, "mobile": false}, nil, timeout)
	}
	if err := b.call(s, "Page.enable", nil, nil, timeout); err != nil {
		return nil, 0, err
	}
	if err := viewport(800); err != nil {
		return nil, 0, err
	}
	if err := b.call(s, "Page.navigate", map[string]any{"url": url}, nil, timeout); err != nil {
		return nil, 0, err
	}
	if err := b.waitEvent(s, "Page.loadEventFired", timeout); err != nil {
		return nil, 0, err
	}
	// MathJax typesets after the load event, showing a "Loading" box and changing the height:
	// wait until it is done and the height settles.
	t0 := time.Now()
	if err := b.waitTrue(s, mathJaxDone, 20*time.Second); err != nil {
		return nil, 0, err
	}
	step(url, "load and MathJax", t0)
	if height, err = b.settledHeight(s, timeout); err != nil {
		return nil, 0, err
	}
	if err := viewport(min(height, maxShotPixels)); err != nil {
		return nil, 0, err
	}
	scale := math.Min(1, float64(maxShotPixels)/float64(height))
	defer step(url, "capture", time.Now())
	var shot struct {
		Data []byte `json:"data"` // base64 in the protocol; encoding/json decodes it
	}
	err = b.call(s, "Page.captureScreenshot", map[string]any{
		"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": width, "height": height, "scale": scale},
	}, &shot, timeout)
	return shot.Data, height, err
}

// mathJaxDone is true once MathJax 2 (nbconvert's HTML loads Debian's copy) has typeset the page
// and hidden its message box, or when the page has no MathJax.
const mathJaxDone = `(() => {
	if (typeof MathJax === "undefined" || !MathJax.Hub) return true;
	const box = document.getElementById("MathJax_Message");
	return MathJax.isReady === true && MathJax.Hub.queue.pending === 0 && (!box || box.offsetHeight === 0);
})()`

// waitTrue polls a JavaScript expression every 100 ms until it is true.
func (b *browser) waitTrue(session, expr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		var r struct {
			Result struct {
				Value bool `json:"value"`
			} `json:"result"`
		}
		if err := b.call(session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r, limit); err != nil {
			return err
		}
		if r.Result.Value {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("still waiting after %s for %s", limit, expr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// settledHeight polls the page's content height until two readings 300 ms apart agree (at most
// ten readings).
func (b *browser) settledHeight(session string, timeout time.Duration) (int, error) {
	last := -1
	for range 10 {
		var m struct {
			Content struct {
				Height float64 `json:"height"`
			} `json:"cssContentSize"`
		}
		if err := b.call(session, "Page.getLayoutMetrics", nil, &m, timeout); err != nil {
			return 0, err
		}
		h := int(math.Ceil(m.Content.Height))
		if h == last {
			return h, nil
		}
		last = h
		time.Sleep(300 * time.Millisecond)
	}
	if last <= 0 {
		return 0, fmt.Errorf("the page has no height")
	}
	return last, nil
}
