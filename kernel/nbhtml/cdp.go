package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// browser is a headless Chromium driven over the DevTools protocol on a pair of pipes
// (--remote-debugging-pipe: Chromium reads commands on its fd 3 and writes replies and events on
// its fd 4, each a JSON object followed by a NUL byte), so no network port and no WebSocket
// client are needed.
type browser struct {
	cmd     *exec.Cmd
	profile string
	in      io.WriteCloser // our end of Chromium's fd 3

	mu      sync.Mutex
	nextID  int
	pending map[int]chan reply
	events  chan event
	done    chan struct{} // closed when Chromium's fd 4 closes
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

type event struct {
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId"`
	Params    json.RawMessage `json:"params"`
}

// chromiumFlags are the flags of every run: headless as root in a container (no sandbox, no
// GPU), nothing that reaches the network or outlives the run (a fresh profile is added).
var chromiumFlags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--hide-scrollbars", "--remote-debugging-pipe",
}

// startBrowser starts Chromium with a fresh profile directory; its own messages go to logw.
func startBrowser(chromium string, logw io.Writer) (*browser, error) {
	profile, err := os.MkdirTemp("", "nbhtml-chromium-")
	if err != nil {
		return nil, err
	}
	cmdR, cmdW, err := os.Pipe() // commands: we write, Chromium reads on fd 3
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe() // replies and events: Chromium writes on fd 4
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(chromium, append(chromiumFlags, "--user-data-dir="+profile, "about:blank")...)
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	cmd.Stdout, cmd.Stderr = logw, logw
	if err := cmd.Start(); err != nil {
		os.RemoveAll(profile)
		return nil, fmt.Errorf("starting %s: %w (install Debian's chromium: make setup)", chromium, err)
	}
	cmdR.Close()
	outW.Close()
	b := &browser{cmd: cmd, profile: profile, in: cmdW, pending: map[int]chan reply{},
		events: make(chan event, 256), done: make(chan struct{})}
	go b.read(outR)
	return b, nil
}

// read dispatches Chromium's messages: replies to their callers, events to b.events.
func (b *browser) read(r io.ReadCloser) {
	defer close(b.done)
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m struct {
			ID int `json:"id"`
			reply
			event
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.pending[m.ID]
			delete(b.pending, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m.reply
			}
			continue
		}
		select {
		case b.events <- m.event:
		default: // nobody waits for this event: drop it rather than block the replies
		}
	}
}

// call sends a command (to a page when session is not empty) and decodes its result into out.
func (b *browser) call(session, method string, params, out any, timeout time.Duration) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan reply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(raw, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("%s: %s (code %d)", method, r.Error.Message, r.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-b.done:
		return fmt.Errorf("%s: chromium exited", method)
	case <-time.After(timeout):
		return fmt.Errorf("%s: no reply within %s", method, timeout)
	}
}

// waitEvent waits for an event of a page session, discarding others.
func (b *browser) waitEvent(session, method string, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		select {
		case e := <-b.events:
			if e.Method == method && e.SessionID == session {
				return nil
			}
		case <-b.done:
			return fmt.Errorf("waiting for %s: chromium exited", method)
		case <-deadline:
			return fmt.Errorf("no %s within %s", method, timeout)
		}
	}
}

// close ends Chromium and removes its profile.
func (b *browser) close() {
	b.call("", "Browser.close", nil, nil, 10*time.Second)
	b.in.Close()
	exited := make(chan struct{})
	go func() { b.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		b.cmd.Process.Kill()
		<-exited
	}
	os.RemoveAll(b.profile)
}
