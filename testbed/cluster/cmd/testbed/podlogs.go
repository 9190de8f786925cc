package main

// Pod logs on the fake nodes, through the real logs API (GET .../pods/POD/log, what kubectl logs
// and kube-rs call). The API server asks a node's kubelet for them, at the node's InternalIP and
// daemonEndpoints port: every fake node names 127.0.0.1 and the port of the pod-logs process
// (this file), which hands the request on to KWOK's server. KWOK answers /containerLogs with the
// kubelet's own reader (k8s.io/cri-client/pkg/logs: tailLines, follow, timestamps, sinceSeconds,
// sinceTime, limitBytes, previous) over the file that a Logs object (kwok.x-k8s.io/v1alpha1,
// named after the pod) gives for the container.
//
// The pod-logs process makes those files and objects. For every pod bound to a node it writes
// DIR/logs/pods/NS/POD/CONTAINER.log, in the CRI log format a kubelet reads, beginning with
// "tephra-testbed: pod NS/POD container C started", and while the container runs it adds a
// training step ("step 12 loss 0.4312") every second, unless the pod carries logLinesAnnotation.
// A restart (restartCount up) moves the file to CONTAINER.previous.log (previous=true) and starts
// a new one; the pod's deletion removes its directory, and the garbage collector its Logs object.
//
// It also ends follow streams as a kubelet does: KWOK's reader has no container to ask about and
// follows a file until the client hangs up, so a stream of a training that ended would never end.
// Here a follow of a container that has ended is served without follow, and a follow stream is
// closed a moment after its container ends, or at once when it restarts (before its new log
// begins, which KWOK would go on to).

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

const (
	// On a pod or its task template: the lines each container prints after the first line,
	// instead of training steps, newline-separated ("" prints nothing more). A test that writes
	// the log itself sets it so its lines are the only ones. Not under tephra.dev/: Tephra
	// refuses requests that set keys under its own domain.
	logLinesAnnotation = "testbed/log-lines"

	logStepInterval = time.Second
	// How long a follow stream goes on after its container ended: KWOK sends what was written
	// last within milliseconds (it watches the file), and at worst at its next check, a second on.
	followGrace = 1500 * time.Millisecond
)

// podLogsDir is where the pods' logs are: NS/POD/CONTAINER.log under it.
func podLogsDir(dir string) string { return filepath.Join(dir, "logs", "pods") }

type podLogsOptions struct {
	listen string // the kubelet endpoint the nodes name, host:port
	kwok   string // KWOK's server, host:port (plain HTTP)
}

type logPod struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		InitContainers []namedContainer `json:"initContainers"`
		Containers     []namedContainer `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase                 string            `json:"phase"`
		InitContainerStatuses []containerStatus `json:"initContainerStatuses"`
		ContainerStatuses     []containerStatus `json:"containerStatuses"`
	} `json:"status"`
}

type namedContainer struct {
	Name string `json:"name"`
}

type containerStatus struct {
	Name         string `json:"name"`
	RestartCount int    `json:"restartCount"`
	State        struct {
		Running    *struct{} `json:"running"`
		Terminated *struct{} `json:"terminated"`
	} `json:"state"`
}

func (p *logPod) key() string { return p.Metadata.Namespace + "/" + p.Metadata.Name }

func (p *logPod) containers() []string {
	var names []string
	for _, c := range append(append([]namedContainer{}, p.Spec.InitContainers...), p.Spec.Containers...) {
		names = append(names, c.Name)
	}
	return names
}

func (p *logPod) status(container string) (containerStatus, bool) {
	if p == nil {
		return containerStatus{}, false
	}
	for _, s := range append(append([]containerStatus{}, p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if s.Name == container {
			return s, true
		}
	}
	return containerStatus{}, false
}

// ended says whether a container will write no more: its pod is gone or finished, or it
// terminated.
func (p *logPod) ended(container string) bool {
	if p == nil || p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed" {
		return true
	}
	s, ok := p.status(container)
	return ok && s.State.Terminated != nil && s.State.Running == nil
}

// podLogs is the pod-logs process: the pods as the watch last saw them, and what the writer has
// made for them.
type podLogs struct {
	root string
	k    *kube
	// Watches need a client without the 30 s limit of k's.
	watchClient *http.Client
	kick        chan struct{}

	mu   sync.Mutex
	pods map[string]*logPod // by NS/POD; replaced, never changed in place
	// The pods (by NS/POD) whose files and Logs object are made, with the uid they are for.
	ready map[string]string
	// Set by a new list: the writer then removes what pods gone meanwhile left on disk.
	sweep bool
	// The follow streams being served, by NS/POD/CONTAINER, with what ends each.
	follows map[string]map[*context.CancelFunc]bool

	// The writer's own: the pods' logs, and the last error told for each pod (told once).
	logs    map[string]*podLog
	lastErr map[string]string
}

type podLog struct {
	uid        string
	object     bool // the Logs object exists
	containers map[string]*containerLog
}

type containerLog struct {
	steps    int
	restarts int
	lastStep time.Time
}

func podLogsServer(dir string, args []string) error {
	var o podLogsOptions
	fs := flag.NewFlagSet("pod-logs", flag.ContinueOnError)
	fs.StringVar(&o.listen, "listen", "", "address of the fake nodes' kubelet endpoint (TLS)")
	fs.StringVar(&o.kwok, "kwok", "", "address of KWOK's server")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.listen == "" || o.kwok == "" {
		return errors.New("pod-logs: --listen and --kwok are required")
	}
	k, err := kubeFromConfig(filepath.Join(dir, "kubeconfig"))
	if err != nil {
		return err
	}
	c := &podLogs{
		root:        podLogsDir(dir),
		k:           k,
		watchClient: &http.Client{Transport: k.http.Transport},
		kick:        make(chan struct{}, 1),
		pods:        map[string]*logPod{},
		ready:       map[string]string{},
		follows:     map[string]map[*context.CancelFunc]bool{},
		logs:        map[string]*podLog{},
		lastErr:     map[string]string{},
	}
	if err := os.MkdirAll(c.root, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "pod-logs: writing pod logs under %s, serving them at %s through KWOK at %s\n", c.root, o.listen, o.kwok)
	go c.watchPods()
	go c.write()
	return c.serve(o, filepath.Join(dir, "pki"))
}

func (c *podLogs) wake() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// The pods bound to a node; pods waiting for the scheduler have no logs.
const boundPods = "/api/v1/pods?fieldSelector=" + "spec.nodeName%21%3D"

// watchPods keeps c.pods current: a list, then a watch from it, again from the start when the
// watch fails (its resource version expired, the API restarted).
func (c *podLogs) watchPods() {
	for {
		rv, err := c.list()
		for err == nil {
			rv, err = c.watch(rv)
		}
		fmt.Fprintf(os.Stderr, "pod-logs: watching pods: %v\n", err)
		time.Sleep(time.Second)
	}
}

func (c *podLogs) list() (string, error) {
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []*logPod `json:"items"`
	}
	if err := c.k.get(boundPods, &list); err != nil {
		return "", err
	}
	pods := map[string]*logPod{}
	for _, p := range list.Items {
		pods[p.key()] = p
	}
	c.mu.Lock()
	c.pods, c.sweep = pods, true
	c.mu.Unlock()
	c.wake()
	return list.Metadata.ResourceVersion, nil
}

// watch applies the pods' changes from resource version rv on until the API ends the watch
// (timeoutSeconds), and returns the version reached; an error means listing again.
func (c *podLogs) watch(rv string) (string, error) {
	req, err := http.NewRequest("GET", c.k.server+boundPods+"&watch=1&allowWatchBookmarks=true&timeoutSeconds=300&resourceVersion="+url.QueryEscape(rv), nil)
	if err != nil {
		return rv, err
	}
	req.Header.Set("Authorization", "Bearer "+c.k.token)
	resp, err := c.watchClient.Do(req)
	if err != nil {
		return rv, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		body, _ := io.ReadAll(resp.Body)
		return rv, fmt.Errorf("watch: %d %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	dec := json.NewDecoder(resp.Body)
	for {
		var event struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&event); err != nil {
			if errors.Is(err, io.EOF) {
				return rv, nil
			}
			return rv, err
		}
		if event.Type == "ERROR" {
			return rv, fmt.Errorf("watch: %s", event.Object)
		}
		var p logPod
		if err := json.Unmarshal(event.Object, &p); err != nil {
			return rv, err
		}
		var meta struct {
			Metadata struct {
				ResourceVersion string `json:"resourceVersion"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(event.Object, &meta)
		rv = meta.Metadata.ResourceVersion
		c.mu.Lock()
		switch event.Type {
		case "ADDED", "MODIFIED":
			c.pods[p.key()] = &p
		case "DELETED":
			delete(c.pods, p.key())
		}
		c.mu.Unlock()
		if event.Type != "BOOKMARK" {
			c.wake()
		}
	}
}

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
		if custom || s.State.Running == nil || p.ended(name) || now.Sub(cl.lastStep) < logStepInterval-logStepInterval/10 {
			continue
		}
		cl.steps++
		cl.lastStep = now
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

// serve is the kubelet endpoint of every fake node: container logs as described at the top,
// anything else passed on to KWOK as it is.
func (c *podLogs) serve(o podLogsOptions, pki string) error {
	kwok := &url.URL{Scheme: "http", Host: o.kwok}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", func(w http.ResponseWriter, r *http.Request) {
		c.containerLogs(w, r, kwok)
	})
	mux.Handle("/", httputil.NewSingleHostReverseProxy(kwok))
	server := &http.Server{Addr: o.listen, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return server.ListenAndServeTLS(filepath.Join(pki, "kubelet.crt"), filepath.Join(pki, "kubelet.key"))
}

func (c *podLogs) pod(key string) *logPod {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pods[key]
}

// isReady says whether the pod's files and Logs object are made (KWOK may not have seen the
// object yet).
func (c *podLogs) isReady(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.pods[key]
	return p != nil && c.ready[key] == p.Metadata.UID
}

func (c *podLogs) containerLogs(w http.ResponseWriter, r *http.Request, kwok *url.URL) {
	key := r.PathValue("namespace") + "/" + r.PathValue("pod")
	container := r.PathValue("container")
	// A client that has just seen the pod bound or Running may ask before the writer has caught
	// up, or before KWOK has seen the Logs object: it waits a little, as for a kubelet that is
	// starting the container.
	deadline := time.Now().Add(5 * time.Second)
	c.wake()
	for !c.isReady(key) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	query := r.URL.Query()
	if v, ok := query["previous"]; ok && len(v) > 0 && flagValue(v[0]) {
		if _, err := os.Stat(c.previousFile(key, container)); err != nil {
			// The kubelet's words; KWOK's would name the file.
			http.Error(w, fmt.Sprintf("previous terminated container %q in pod %q not found", container, r.PathValue("pod")), http.StatusBadRequest)
			return
		}
	}
	follow := false
	if v, ok := query["follow"]; ok && len(v) > 0 {
		follow = flagValue(v[0])
	}
	p := c.pod(key)
	if follow && p.ended(container) {
		query.Set("follow", "false")
		follow = false
	}
	restarts := -1
	if s, ok := p.status(container); ok {
		restarts = s.RestartCount
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	target := *kwok
	target.Path, target.RawQuery = r.URL.Path, query.Encode()
	var resp *http.Response
	for {
		req, err := http.NewRequestWithContext(ctx, "GET", target.String(), nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		resp, err = http.DefaultTransport.RoundTrip(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		if resp.StatusCode == http.StatusOK || !time.Now().Before(deadline) {
			break
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		// KWOK has not seen the Logs object yet.
		if !strings.Contains(string(body), "no logs found") {
			copyContentType(w, resp)
			w.WriteHeader(resp.StatusCode)
			_, _ = w.Write(body)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer resp.Body.Close()

	if follow {
		stream := key + "/" + container
		c.mu.Lock()
		if c.follows[stream] == nil {
			c.follows[stream] = map[*context.CancelFunc]bool{}
		}
		c.follows[stream][&cancel] = true
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			delete(c.follows[stream], &cancel)
			if len(c.follows[stream]) == 0 {
				delete(c.follows, stream)
			}
			c.mu.Unlock()
		}()
		// End the stream once the container has ended, after its last lines (a restart the
		// writer has not seen yet ends it at once).
		go func() {
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				p := c.pod(key)
				if s, ok := p.status(container); ok && restarts >= 0 && s.RestartCount != restarts {
					cancel()
					return
				}
				if p.ended(container) {
					select {
					case <-ctx.Done():
					case <-time.After(followGrace):
						cancel()
					}
					return
				}
			}
		}()
	}
	copyContentType(w, resp)
	w.WriteHeader(resp.StatusCode)
	flusher, _ := w.(http.Flusher)
	buf := make([]byte, 32*1024)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if err != nil {
			// The end of the log, the container's end (cancel), or the client gone: in every
			// case the response ends here, complete.
			return
		}
	}
}

func copyContentType(w http.ResponseWriter, resp *http.Response) {
	if t := resp.Header.Get("Content-Type"); t != "" {
		w.Header().Set("Content-Type", t)
	}
}

// pointNodesAtKubelet makes every fake node name 127.0.0.1 and port as its kubelet, as KWOK does
// for the nodes it initializes in this start (--node-ip, --node-port).
func pointNodesAtKubelet(k *kube, port int) error {
	var nodes struct {
		Items []struct {
			Metadata objectMeta `json:"metadata"`
			Status   struct {
				Addresses []struct {
					Type    string `json:"type"`
					Address string `json:"address"`
				} `json:"addresses"`
				DaemonEndpoints struct {
					KubeletEndpoint struct {
						Port int `json:"Port"`
					} `json:"kubeletEndpoint"`
				} `json:"daemonEndpoints"`
			} `json:"status"`
		} `json:"items"`
	}
	if err := k.get("/api/v1/nodes", &nodes); err != nil {
		return err
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{
		"addresses":       []map[string]string{{"type": "InternalIP", "address": "127.0.0.1"}},
		"daemonEndpoints": map[string]any{"kubeletEndpoint": map[string]int{"Port": port}},
	}})
	if err != nil {
		return err
	}
	for _, node := range nodes.Items {
		st := node.Status
		if node.Metadata.Annotations["kwok.x-k8s.io/node"] != "fake" || (st.DaemonEndpoints.KubeletEndpoint.Port == port &&
			len(st.Addresses) == 1 && st.Addresses[0].Type == "InternalIP" && st.Addresses[0].Address == "127.0.0.1") {
			continue
		}
		path := "/api/v1/nodes/" + url.PathEscape(node.Metadata.Name) + "/status"
		if err := k.mergePatch(path, patch); err != nil {
			return err
		}
	}
	return nil
}

// flagValue reads a query flag as the kubelet does: anything but 0 or false is true.
func flagValue(v string) bool { return v != "0" && !strings.EqualFold(v, "false") }
