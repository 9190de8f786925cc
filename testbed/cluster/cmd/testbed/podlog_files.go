package main

// The pod-logs process's writer: each bound pod's CRI log files and its KWOK Logs object, kept
// up to date with the pods the watch sees (see podlogs.go).

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// write brings the files and Logs objects up to date with the pods at every change, and adds
// the training steps every second.
func (c *podLogs) write() {
	ticker := time.NewTicker(logStepInterval)
	defer ticker.Stop()
	for {
		c.mu.Lock()
		pods := make(map[string]*logPod, len(c.pods))
		for key, p := range c.pods {
			pods[key] = p
		}
		sweep := c.sweep
		c.sweep = false
		c.mu.Unlock()

		now := time.Now()
		for key, p := range pods {
			if err := c.update(p, now); err == nil {
				delete(c.lastErr, key)
			} else if c.lastErr[key] != err.Error() {
				fmt.Fprintf(os.Stderr, "pod-logs: %s: %v\n", key, err)
				c.lastErr[key] = err.Error()
			}
		}
		for key, l := range c.logs {
			if p := pods[key]; p == nil || p.Metadata.UID != l.uid {
				c.forget(key, l.uid)
			}
		}
		for key := range c.lastErr {
			if pods[key] == nil {
				delete(c.lastErr, key)
			}
		}
		if sweep {
			c.removeLeftovers(pods)
		}
		select {
		case <-ticker.C:
		case <-c.kick:
		}
	}
}

func (c *podLogs) dir(key string) string { return filepath.Join(c.root, filepath.FromSlash(key)) }

func (c *podLogs) file(key, container string) string {
	return filepath.Join(c.dir(key), container+".log")
}

func (c *podLogs) previousFile(key, container string) string {
	return filepath.Join(c.dir(key), container+".previous.log")
}

// update makes a pod's files (or takes over those an earlier pod-logs made for it), its Logs
// object, and its containers' new lines.
func (c *podLogs) update(p *logPod, now time.Time) error {
	key := p.key()
	l := c.logs[key]
	if l == nil || l.uid != p.Metadata.UID {
		var err error
		if l, err = c.open(p); err != nil {
			return err
		}
		c.logs[key] = l
	}
	if !l.object {
		if err := c.createObject(p); err != nil {
			return err
		}
		l.object = true
		c.mu.Lock()
		c.ready[key] = l.uid
		c.mu.Unlock()
	}
	_, custom := p.Metadata.Annotations[logLinesAnnotation]
	endless := endlessBytes(p)
	for _, name := range p.containers() {
		cl := l.containers[name]
		s, ok := p.status(name)
		if !ok || cl == nil {
			continue
		}
		if s.RestartCount > cl.restarts {
			// The kubelet keeps the last run's log for previous=true and starts a new one; a
			// follow of the last run ends with it.
			c.mu.Lock()
			for cancel := range c.follows[key+"/"+name] {
				(*cancel)()
			}
			c.mu.Unlock()
			if err := os.Rename(c.file(key, name), c.previousFile(key, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			cl.restarts, cl.steps, cl.lastStep = s.RestartCount, 0, now
			if err := c.start(p, name, s.RestartCount); err != nil {
				return err
			}
		}
		if (custom && endless == 0) || s.State.Running == nil || p.ended(name) || now.Sub(cl.lastStep) < logStepInterval-logStepInterval/10 {
			continue
		}
		cl.lastStep = now
		if endless > 0 {
			if err := appendPartial(c.file(key, name), now, endless); err != nil {
				return err
			}
			continue
		}
		cl.steps++
		if err := appendLog(c.file(key, name), now, stepLine(p.Metadata.UID+"/"+name, cl.steps)); err != nil {
			return err
		}
	}
	return nil
}

// open starts a pod's logs, or takes over those on disk if they are this pod's (the testbed was
// started again), continuing the step count from the lines already there.
func (c *podLogs) open(p *logPod) (*podLog, error) {
	key := p.key()
	l := &podLog{uid: p.Metadata.UID, containers: map[string]*containerLog{}}
	uidFile := filepath.Join(c.dir(key), ".uid")
	if uid, err := os.ReadFile(uidFile); err == nil && string(uid) == p.Metadata.UID {
		for _, name := range p.containers() {
			s, _ := p.status(name)
			data, _ := os.ReadFile(c.file(key, name))
			l.containers[name] = &containerLog{steps: max(strings.Count(string(data), "\n")-1, 0), restarts: s.RestartCount}
		}
		return l, nil
	}
	// Another pod's of the same name, or none: a new pod starts with new logs.
	if err := os.RemoveAll(c.dir(key)); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(c.dir(key), 0o755); err != nil {
		return nil, err
	}
	for _, name := range p.containers() {
		s, _ := p.status(name)
		if err := c.start(p, name, s.RestartCount); err != nil {
			return nil, err
		}
		l.containers[name] = &containerLog{restarts: s.RestartCount, lastStep: time.Now()}
	}
	// Last, so that logs half made are made again.
	return l, os.WriteFile(uidFile, []byte(p.Metadata.UID), 0o644)
}

// start begins a container's log: the line that names it, then the pod's own lines if it has any.
func (c *podLogs) start(p *logPod, container string, restarts int) error {
	first := fmt.Sprintf("tephra-testbed: pod %s container %s started", p.key(), container)
	if restarts > 0 {
		first += fmt.Sprintf(" (restart %d)", restarts)
	}
	lines := []string{first}
	if custom, ok := p.Metadata.Annotations[logLinesAnnotation]; ok && custom != "" {
		lines = append(lines, strings.Split(strings.TrimSuffix(custom, "\n"), "\n")...)
	}
	now := time.Now()
	var b strings.Builder
	for _, line := range lines {
		b.WriteString(criLine(now, line))
	}
	return os.WriteFile(c.file(p.key(), container), []byte(b.String()), 0o644)
}

// criLine is a line as a container runtime writes it for the kubelet to read: the time, the
// stream, F for a full line, the text.
func criLine(at time.Time, text string) string {
	return at.UTC().Format(time.RFC3339Nano) + " stdout F " + text + "\n"
}

func appendLog(path string, at time.Time, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(criLine(at, text))
	return errors.Join(err, f.Close())
}

// endlessBytes is what logEndlessAnnotation asks each second, in bytes (0 when unset or not a
// positive number of KiB).
func endlessBytes(p *logPod) int {
	kib, err := strconv.Atoi(p.Metadata.Annotations[logEndlessAnnotation])
	if err != nil || kib <= 0 {
		return 0
	}
	return kib * 1024
}

// appendPartial adds n bytes to a line that does not end, as partial entries of at most
// criPartialBytes, as a runtime writes a container's output that has no newline.
func appendPartial(path string, at time.Time, n int) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	stamp := at.UTC().Format(time.RFC3339Nano) + " stdout P "
	chunk := strings.Repeat("x", criPartialBytes)
	for ; n > 0 && err == nil; n -= criPartialBytes {
		_, err = w.WriteString(stamp + chunk[:min(n, criPartialBytes)] + "\n")
	}
	return errors.Join(err, w.Flush(), f.Close())
}

// stepLine is a training step's line: a loss that falls fast, then levels off, with a little
// noise that is the same for the same container and step.
func stepLine(seed string, step int) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s/%d", seed, step)
	noise := float64(h.Sum32()%1000)/1000 - 0.5
	loss := 0.08 + 2.3*math.Exp(-float64(step)/120) + 0.04*noise
	return fmt.Sprintf("step %d loss %.4f", step, loss)
}

// createObject makes the pod's Logs object, owned by the pod so that the garbage collector
// deletes it with the pod. One left by an earlier pod of the same name is deleted first, or the
// collector would take it from this pod.
func (c *podLogs) createObject(p *logPod) error {
	ns, name := p.Metadata.Namespace, p.Metadata.Name
	var logs []map[string]any
	for _, container := range p.containers() {
		logs = append(logs, map[string]any{
			"containers":       []string{container},
			"logsFile":         c.file(p.key(), container),
			"previousLogsFile": c.previousFile(p.key(), container),
			"follow":           true,
		})
	}
	object, err := json.Marshal(map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1",
		"kind":       "Logs",
		"metadata": map[string]any{
			"name": name, "namespace": ns,
			"ownerReferences": []map[string]any{{"apiVersion": "v1", "kind": "Pod", "name": name, "uid": p.Metadata.UID}},
		},
		"spec": map[string]any{"logs": logs},
	})
	if err != nil {
		return err
	}
	path := "/apis/kwok.x-k8s.io/v1alpha1/namespaces/" + url.PathEscape(ns) + "/logs"
	code, body, err := c.k.do("POST", path, object, "application/json")
	if err != nil {
		return err
	}
	switch code {
	case 201:
		return nil
	case 409:
	default:
		return fmt.Errorf("creating its Logs: %d %s", code, strings.TrimSpace(string(body)))
	}
	var existing struct {
		Metadata struct {
			UID             string `json:"uid"`
			OwnerReferences []struct {
				UID string `json:"uid"`
			} `json:"ownerReferences"`
		} `json:"metadata"`
	}
	if err := c.k.get(path+"/"+url.PathEscape(name), &existing); err != nil {
		return err
	}
	owners := existing.Metadata.OwnerReferences
	if len(owners) == 1 && owners[0].UID == p.Metadata.UID {
		return nil // made by an earlier pod-logs
	}
	precondition, _ := json.Marshal(map[string]any{"preconditions": map[string]string{"uid": existing.Metadata.UID}})
	code, body, err = c.k.do("DELETE", path+"/"+url.PathEscape(name), precondition, "application/json")
	if err == nil && code != 200 && code != 202 && code != 404 && code != 409 {
		err = fmt.Errorf("deleting an earlier pod's Logs: %d %s", code, strings.TrimSpace(string(body)))
	}
	return errors.Join(errors.New("an earlier pod's Logs was in the way; trying again"), err)
}

// forget drops a pod that is gone, with its files (if they are still its own).
func (c *podLogs) forget(key, uid string) {
	delete(c.logs, key)
	c.mu.Lock()
	if c.ready[key] == uid {
		delete(c.ready, key)
	}
	c.mu.Unlock()
	if own, err := os.ReadFile(filepath.Join(c.dir(key), ".uid")); err == nil && string(own) == uid {
		_ = os.RemoveAll(c.dir(key))
	}
}

// removeLeftovers removes the logs of pods deleted while no pod-logs ran.
func (c *podLogs) removeLeftovers(pods map[string]*logPod) {
	dirs, _ := filepath.Glob(filepath.Join(c.root, "*", "*", ".uid"))
	for _, uidFile := range dirs {
		dir := filepath.Dir(uidFile)
		key := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		uid, err := os.ReadFile(uidFile)
		if p := pods[key]; err == nil && (p == nil || p.Metadata.UID != string(uid)) {
			_ = os.RemoveAll(dir)
		}
	}
}
